// Auto-send, which the user opts into (the composer's "Auto-send" box, kept in this browser): a new list
// whose first suggestion needs no second look is sent after a short countdown that any key or click
// stops. After three sends in a row that the user did not touch, it pauses until the user resumes it.
// What may be sent and when is decided by static/suggestion_policy.js; this file keeps the countdown.
(function (root) {
  "use strict";

  var AUTO_KEY = "webclient.autoSend";

  var webclient = root.webclient;
  var policy = webclient.suggestionPolicy;
  var offer = webclient.offer;
  var composer = webclient.composer;

  var freshGen = null;    // the last list that arrived new (a snapshot never is)
  var handledGen = null;  // the last list auto-send decided on
  var countdown = null;   // { gen, seconds, timer } while an auto-send is counting down
  var streak = 0;         // auto-sends since the user last pressed a key or clicked
  var paused = false;

  function byId(id) { return document.getElementById(id); }

  function enabled() { var box = byId("auto-send"); return !!(box && box.checked); }
  function agentIdle() {
    var status = byId("agent-status");
    return !!status && status.getAttribute("data-state") === "ready";
  }

  // What the rules need to know about the page now.
  function facts() {
    return {
      enabled: enabled(),
      paused: paused,
      countingDown: !!countdown,
      generation: offer.generation(),
      freshGeneration: freshGen,
      handledGeneration: handledGen,
      offered: offer.offered(),
      composerBlank: composer.blank(),
      agentIdle: agentIdle(),
      permissionPending: !!document.querySelector('[data-role="permission"][data-state="pending"]'),
      pageVisible: document.visibilityState === "visible",
      first: firstSuggestion()
    };
  }

  function firstSuggestion() {
    var chip = document.querySelector('#suggestions .chip[data-index="0"]');
    if (!chip) { return null; }
    return {
      autoEligible: chip.getAttribute("data-auto-eligible") === "true",
      attachments: Number(chip.getAttribute("data-attachments")) || 0,
      hiddenChars: Number(chip.getAttribute("data-hidden-chars")) || 0,
      tailChars: Number(chip.getAttribute("data-tail-chars")) || 0,
      // Collapsed on the page (static/suggestion_fit.js): its whole text does not show at once.
      collapsed: !!chip.querySelector('[data-action="suggestion"][data-truncated]'),
      linkWarnings: Number(chip.getAttribute("data-link-warnings")) || 0
    };
  }

  // After every update of the page: maybe later in this list's life (e.g. once the turn has ended).
  function consider() {
    var decision = policy.autoSend(facts());
    if (decision.action === "none" || decision.action === "wait") { return; }
    handledGen = offer.generation();
    if (decision.action === "refuse") {
      var skipped = byId("auto-send-skipped");
      skipped.setAttribute("data-reason", decision.reason || "not-eligible");  // which reason shows
      skipped.hidden = false;  // the user must look and choose
      return;
    }
    countdown = { gen: handledGen, seconds: policy.AUTO_SEND_DELAY_S, timer: null };
    webclient.suggestionStyle.resetGhost();
    mark(true);
    showCountdown();
    countdown.timer = root.setInterval(tick, 1000);
  }

  // The suggestion that will go is marked where it shows (its chip or line, or the ghost text).
  function mark(on) {
    var targets = [document.querySelector('#suggestions [data-action="suggestion"][data-index="0"]'),
                   document.querySelector('#ghost-text .ghost-entry[data-index="0"]')];
    targets.forEach(function (el) {
      if (!el) { return; }
      if (on) { el.setAttribute("data-countdown", "true"); } else { el.removeAttribute("data-countdown"); }
    });
  }

  function showCountdown() {
    var note = byId("auto-send-countdown");
    note.querySelector(".countdown-seconds").textContent = String(countdown.seconds);
    note.hidden = false;
  }

  function tick() {
    if (!countdown) { return; }
    countdown.seconds -= 1;
    if (countdown.seconds > 0) { showCountdown(); return; }
    var gen = countdown.gen;
    cancel();
    if (policy.blocker(facts(), gen) !== null) { return; }
    streak += 1;
    webclient.call("suggestion", { generation: gen, index: 0 });
    if (policy.pausesAfter(streak)) {
      paused = true;
      byId("auto-send-paused").hidden = false;
    }
  }

  function cancel() {
    if (!countdown) { return; }
    root.clearInterval(countdown.timer);
    countdown = null;
    mark(false);
    byId("auto-send-countdown").hidden = true;
  }

  function resume() {
    paused = false;
    streak = 0;
    byId("auto-send-paused").hidden = true;
  }

  function hideSkipped() { byId("auto-send-skipped").hidden = true; }

  // Any key or click is the user at work: it stops a countdown and ends a streak of auto-sends.
  function userActed(event) {
    if (!event.isTrusted) { return; }
    cancel();
    streak = 0;
    if (paused) { resume(); }
  }
  webclient.keymap.register("user-activity", function (event) {
    userActed(event);
    return webclient.keymap.PASS;
  });
  document.addEventListener("pointerdown", userActed, true);

  document.addEventListener("click", function (event) {
    var el = event.target.closest && event.target.closest("[data-action]");
    var action = el && el.getAttribute("data-action");
    if (action === "auto-send-cancel") { cancel(); }
    else if (action === "auto-send-resume") { resume(); }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") { cancel(); }
  });

  offer.watch("hidden", cancel);
  offer.watch("sent", function () { cancel(); hideSkipped(); });
  offer.watch("new-list", function () { freshGen = offer.generation(); cancel(); hideSkipped(); });
  offer.watch("settled", consider);

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = byId("auto-send");
    if (!toggle) { return; }
    try { toggle.checked = root.localStorage.getItem(AUTO_KEY) === "on"; } catch (e) { toggle.checked = false; }
    toggle.addEventListener("change", function () {
      try { root.localStorage.setItem(AUTO_KEY, toggle.checked ? "on" : "off"); } catch (e) { /* private mode */ }
      if (!toggle.checked) { cancel(); }
      // A list already on offer when the box is ticked was not offered for auto-send: it never is, however
      // often a frame re-renders it; only a list that arrives from now on may be.
      else { handledGen = offer.generation(); }
    });
  });

  webclient.autoSend = { countingDown: function () { return !!countdown; } };
})(window);
