// Which suggestion list is offered above the composer right now, and what the user does with it: dismiss
// and restore it, expand a long one before sending it, take one into the composer to edit it. The rules
// are static/suggestion_policy.js; this file gathers the facts from the page and applies the answer.
//
// A list is offered while the composer is empty (no text, no attachments) unless the user pressed Escape
// (then "Suggestions (N)" brings it back) or sent a prompt since it arrived. Typing hides it; emptying the
// composer again brings it back. Lists are told apart by generation; the first frame after a (re)connect is
// a snapshot, never a "new" list, so it cannot start an auto-send.
(function (root) {
  "use strict";

  var webclient = root.webclient;
  var policy = webclient.suggestionPolicy;
  var composer = webclient.composer;
  var focus = webclient.suggestionFocus;
  var style = webclient.suggestionStyle;
  var fit = webclient.suggestionFit;
  var place = webclient.suggestionPlace;

  var state = { lastGen: null, dismissedGen: null, sentGen: null, snapshotPending: true, sheetGen: null };
  var watchers = { hidden: [], sent: [], "new-list": [], settled: [] };

  function byId(id) { return document.getElementById(id); }
  function row() { return byId("suggestions"); }
  function generation() { var r = row(); return r ? r.getAttribute("data-generation") : null; }
  function size() { var r = row(); return r ? Number(r.getAttribute("data-count")) || 0 : 0; }
  function offered() { return document.body.getAttribute("data-offer") === "shown"; }

  /**
   * Call `watcher()` on `moment`: "hidden" (the offer is not shown), "sent" (a prompt left, which answers
   * the list), "new-list" (a list arrived that is not a snapshot), "settled" (the page took an update).
   */
  function watch(moment, watcher) { watchers[moment].push(watcher); }
  function tell(moment) { watchers[moment].forEach(function (watcher) { watcher(); }); }

  /** Show or hide the list and "Suggestions (N)" as the rules say; returns whether the list is shown. */
  function update() {
    composer.paintTokens();
    var view = policy.offer({
      count: size(), generation: generation(), sentGeneration: state.sentGen,
      dismissedGeneration: state.dismissedGen, composerBlank: composer.blank()
    });
    document.body.setAttribute("data-offer", view.shown ? "shown" : "hidden");
    var restoreButton = byId("suggestions-restore");
    if (restoreButton) {
      restoreButton.hidden = !view.restorable;
      restoreButton.querySelector(".restore-count").textContent = String(size());
    }
    place.place();
    if (view.shown) { fit.fit(); } else { tell("hidden"); }
    return view.shown;
  }

  function dismiss() {
    state.dismissedGen = generation();
    update();
  }

  function restore() {
    state.dismissedGen = null;
    update();
    // Focus goes to what came back: the suggestions, or the composer that shows the ghost text.
    var item = focus.current();
    if (item) { focus.focus(item); } else { composer.element().focus(); }
  }

  function announce(count) {
    var live = byId("suggestions-announcer");
    if (!live) { return; }
    live.textContent = "";
    live.textContent = count === 1 ? "1 suggestion" : count + " suggestions";
  }

  // Only over an empty composer: nothing the user put there is ever discarded. The text comes from the
  // page at once; the server puts the suggestion's files into this tab's composer and sends their pills.
  function take(index) {
    var chip = document.querySelector('#suggestions .chip[data-index="' + index + '"]');
    var gen = generation();
    if (!chip || gen === null || !composer.blank()) { return; }
    composer.fill(chip.getAttribute("data-text") || "");
    webclient.call("edit", { generation: gen, index: index });
    update();
  }

  // --- expanding before sending: no blind sends ------------------------------------------------------

  // Capture phase, ahead of htmx's own click handler on the button: a suggestion whose text is not all
  // on screen opens on its first click and sends only from the expanded view.
  document.addEventListener("click", function (event) {
    var target = event.target;
    var truncated = target.closest && target.closest('#suggestions [data-action="suggestion"][data-truncated="true"]');
    if (truncated) {
      event.preventDefault();
      event.stopPropagation();
      openSheet();
      focus.focus(truncated);
    }
  }, true);

  function openSheet() {
    fit.open();
    state.sheetGen = generation();
  }

  /** Fold the sheet back into the row; focus stays with the suggestion it was on, or `item`. */
  function closeSheet(item) {
    var was = item || focus.itemOf(document.activeElement);
    state.sheetGen = null;
    fit.close();
    focus.focus(was && was.getClientRects().length ? was : focus.current());
  }

  function showAll() {
    var first = document.querySelector('#suggestions .chip[data-overflow] [data-action="suggestion"]');
    openSheet();
    focus.focus(first || focus.current());
  }

  var CLICKS = {
    "suggestion-edit": function (el) { take(Number(el.getAttribute("data-index")) || 0); },
    "suggestions-more": showAll,
    "suggestions-close": function () { closeSheet(null); },
    "ghost-next": function () { style.cycleGhost(1); update(); },
    "ghost-accept": function () { take(style.ghostIndex()); composer.element().focus(); },
    "suggestions-restore": restore
  };

  document.addEventListener("click", function (event) {
    var el = event.target.closest && event.target.closest("[data-action]");
    var act = el && CLICKS[el.getAttribute("data-action")];
    if (act) { act(el); }
  });

  // --- a prompt going out answers the list --------------------------------------------------------------

  function sendsAPrompt(elt) {
    return !!elt && (elt === composer.form() || webclient.isCall(elt, "suggestion") ||
                     elt.getAttribute("data-action") === "suggestion");
  }

  // Any prompt that does go out ends the current offer: its suggestions were predicted for the
  // conversation before it. (An empty composer's is refused by composer.js and sends nothing.)
  document.addEventListener("htmx:wsConfigSend", function (event) {
    var elt = event.target;
    if (!sendsAPrompt(elt) || (elt === composer.form() && composer.blank())) { return; }
    state.sentGen = generation();
    tell("sent");
    update();
  });

  composer.onChange(update);

  // --- live updates ---------------------------------------------------------------------------------

  var focusWasInRow = false;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var r = row();
    focusWasInRow = !!(r && r.contains(document.activeElement));
  });

  document.addEventListener("htmx:wsOpen", function () { state.snapshotPending = true; });

  function takeNewList(gen) {
    state.lastGen = gen;
    state.dismissedGen = null;  // a new list is a new offer
    style.resetGhost();
    tell("new-list");
    if (update()) { announce(size()); }
  }

  document.addEventListener("htmx:wsAfterMessage", function () {
    var gen = generation();
    style.apply();
    composer.refresh();
    if (state.snapshotPending) {
      state.snapshotPending = false;
      state.lastGen = gen;
    } else if (gen !== state.lastGen) {
      takeNewList(gen);
    }
    if (state.sheetGen !== null && state.sheetGen === gen && !fit.sheetOpen()) { fit.open(); }
    var shown = update();
    // The row was re-rendered under the user's focus: give it back to the same place.
    if (focusWasInRow && !row().contains(document.activeElement)) {
      if (shown && focus.current()) { focus.focus(focus.current()); }
      else if (composer.element()) { composer.element().focus(); }
    }
    focusWasInRow = false;
    tell("settled");
  });

  document.addEventListener("DOMContentLoaded", function () {
    var select = byId("suggestion-style");
    if (select) {
      select.addEventListener("change", function () {
        if (fit.sheetOpen()) { state.sheetGen = null; fit.close(); }
        style.choose(select.value);
        update();
      });
    }
    style.apply();
    state.lastGen = generation();
    update();
    var box = composer.element();
    if (box) { box.focus(); }
  });

  webclient.offer = {
    generation: generation,
    size: size,
    offered: offered,
    update: update,
    dismiss: dismiss,
    closeSheet: closeSheet,
    take: take,
    watch: watch
  };
})(window);
