// What the page may do with the agent's prompt suggestions: plain data in, a decision out. No DOM, no
// timers, no storage: the modules that act on the page (suggestion_offer.js, auto_send.js) gather the facts
// and apply the answer, and tests/js/ checks the rules directly under `node --test`.
//
// Loaded by the page's bundle (it attaches to `window.webclient.suggestionPolicy`) and by Node (through
// `module.exports`); it is plain ES5 because the bundle is a concatenation, not a module graph.
(function (root) {
  "use strict";

  // Seconds an auto-send counts down before it sends, so a user at the keyboard can stop it.
  var AUTO_SEND_DELAY_S = 3;
  // Auto-sends in a row, with no key or click from the user, after which auto-send pauses itself.
  var AUTO_SEND_STREAK_CAP = 3;

  /**
   * Whether a list is offered above the composer, and whether "Suggestions (N)" can bring it back.
   *
   * facts: { count, generation, sentGeneration, dismissedGeneration, composerBlank }
   *   count: how many suggestions the current list holds (0: no list)
   *   generation: the current list's generation (a string from the page, or null)
   *   sentGeneration: the list current when a prompt last went out (it was predicted for before it)
   *   dismissedGeneration: the list the user dismissed with Escape
   *   composerBlank: no text and no attachments in the composer
   * returns { shown, restorable }
   */
  function offer(facts) {
    var live = facts.count > 0 && facts.generation !== facts.sentGeneration;
    var dismissed = facts.generation === facts.dismissedGeneration;
    return {
      shown: live && !dismissed && facts.composerBlank,
      restorable: live && dismissed && facts.composerBlank
    };
  }

  /**
   * Why auto-send may not send the list `generation` right now, or null when it may.
   *
   * facts: { enabled, paused, generation, offered, composerBlank, agentIdle, permissionPending, pageVisible }
   *   enabled: the user's opt-in (off unless the user turned it on)
   *   paused: auto-send stopped itself after a streak of sends the user did not touch
   *   generation: the list on the page now; a different one means the list changed
   *   offered: the list is shown (not dismissed, not typed over, not already answered)
   *   agentIdle: the agent's turn has ended
   *   permissionPending: the agent waits for the user's answer to a permission request
   *   pageVisible: the tab is in view, so the user can see what is sent
   */
  function blocker(facts, generation) {
    if (!facts.enabled) { return "off"; }
    if (facts.paused) { return "paused"; }
    if (facts.generation !== generation) { return "list-changed"; }
    if (!facts.offered) { return "not-offered"; }
    if (!facts.composerBlank) { return "composer-in-use"; }
    if (!facts.agentIdle) { return "agent-busy"; }
    if (facts.permissionPending) { return "permission-pending"; }
    if (!facts.pageVisible) { return "page-hidden"; }
    return null;
  }

  /**
   * Why the first suggestion needs the user's own look before it is sent, or null when it needs none.
   *
   * first: null (no list) or { autoEligible, attachments, hiddenChars, tailChars, collapsed, linkWarnings }
   *   autoEligible: the server's verdict on the same facts (both must agree)
   *   attachments: files or images sent with it, which a chip names but cannot show
   *   hiddenChars: characters that do not show on screen (the text may not say what it seems to)
   *   tailChars: characters not on screen until the suggestion is expanded (truncated text)
   *   collapsed: its whole text does not show at once (lines, width), so it opens before it is sent
   *   linkWarnings: file links whose name and URI disagree, or that point outside the workspace
   */
  function needsALook(first) {
    if (!first) { return "no-suggestion"; }
    if (first.attachments > 0) { return "attachments"; }
    if (first.hiddenChars > 0) { return "hidden-characters"; }
    if (first.linkWarnings > 0) { return "link-warning"; }
    if (first.tailChars > 0 || first.collapsed) { return "truncated"; }
    if (!first.autoEligible) { return "not-eligible"; }
    return null;
  }

  /**
   * What auto-send does about the list on the page, each time the page changes.
   *
   * facts: those of `blocker`, and
   *   countingDown: a countdown is already running
   *   freshGeneration: the last list that arrived new (a snapshot after a (re)connect never is)
   *   handledGeneration: the last list auto-send already decided on (it decides once per list)
   *   first: that of `needsALook`
   * returns { action, reason }, action one of
   *   "none":      nothing to decide (no new list, or this one was decided already)
   *   "wait":      not now (reason says why); asked again when the page changes
   *   "refuse":    never for this list: the user must look and choose (reason says why)
   *   "countdown": start counting down to send the first suggestion
   */
  function autoSend(facts) {
    var gen = facts.generation;
    if (facts.countingDown || gen === null || gen !== facts.freshGeneration || gen === facts.handledGeneration) {
      return { action: "none", reason: null };
    }
    var notNow = blocker(facts, gen);
    if (notNow) { return { action: "wait", reason: notNow }; }
    var look = needsALook(facts.first);
    if (look) { return { action: "refuse", reason: look }; }
    return { action: "countdown", reason: null };
  }

  /** Whether auto-send pauses itself after `streak` sends in a row that the user did not touch. */
  function pausesAfter(streak) { return streak >= AUTO_SEND_STREAK_CAP; }

  var policy = {
    AUTO_SEND_DELAY_S: AUTO_SEND_DELAY_S,
    AUTO_SEND_STREAK_CAP: AUTO_SEND_STREAK_CAP,
    offer: offer,
    blocker: blocker,
    needsALook: needsALook,
    autoSend: autoSend,
    pausesAfter: pausesAfter
  };
  if (typeof module === "object" && module.exports) { module.exports = policy; }
  if (root) { (root.webclient = root.webclient || {}).suggestionPolicy = policy; }
})(typeof window === "object" ? window : null);
