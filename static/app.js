// webclient page behaviour that HTML alone cannot express: keyboard, focus, scrolling, connection state.
// Everything the server sends arrives as HTML through htmx; this file never builds markup from data.
(function () {
  "use strict";

  function composer() { return document.getElementById("composer"); }
  function transcript() { return document.getElementById("transcript"); }

  function sendButton() {
    return document.querySelector('#composer-form [data-testid="send"]');
  }

  // Enter sends, Shift+Enter inserts a newline; IME composition is left alone.
  document.addEventListener("keydown", function (event) {
    if (event.target !== composer() || event.key !== "Enter" || event.shiftKey || event.isComposing) {
      return;
    }
    event.preventDefault();
    var button = sendButton();
    if (button && !button.disabled && !composerBlank()) {
      document.getElementById("composer-form").requestSubmit(button);
    }
  });

  // An empty prompt is not worth a round trip. Any prompt that does go out ends the current offer of
  // suggestions: they were predicted for the conversation before it (see "Prompt suggestions" below).
  document.addEventListener("htmx:wsConfigSend", function (event) {
    var elt = event.target;
    if (elt && elt.id === "composer-form" && composerBlank()) {
      event.preventDefault();
      return;
    }
    if (elt && (elt.id === "composer-form" || elt.id === "suggestion-form" ||
                elt.getAttribute("data-testid") === "suggestion")) {
      suggestionsSent();
    }
  });

  // The composer's attachments: pills the server rendered (a chip's files taken with Edit or Tab).
  function pills() {
    return Array.prototype.slice.call(document.querySelectorAll('#composer-attachments [data-testid="composer-attachment"]'));
  }
  function composerBlank() { return composer().value.trim() === "" && pills().length === 0; }
  function clearPills() {
    pills().forEach(function (pill) { pill.remove(); });
    var box = document.getElementById("composer-attachments");
    if (box) { box.hidden = true; }
  }
  document.addEventListener("click", function (event) {
    var remove = event.target.closest && event.target.closest('[data-testid="composer-attachment-remove"]');
    if (!remove) { return; }
    remove.closest('[data-testid="composer-attachment"]').remove();
    if (pills().length === 0) { clearPills(); }
    composer().focus();
  });

  // Clear the composer once its prompt has left for the server.
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "composer-form") {
      composer().value = "";
      clearPills();
      composer().focus();
    }
  });

  // Keep the user's choice of open or closed thoughts when the server re-renders them.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    var fragment = event.detail && event.detail.fragment;
    if (!target || !fragment || target.tagName !== "DETAILS") { return; }
    var incoming = fragment.firstElementChild || fragment;
    if (incoming && incoming.tagName === "DETAILS") {
      incoming.open = target.open;
    }
  });

  // Following the conversation and the connection banner live in static/page.js.

  // The server tells a tab to open another session's page (after new, load or close). Only our own paths.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var nav = document.getElementById("navigate");
    var href = nav && nav.getAttribute("data-href");
    if (href && /^\/(s\/[A-Za-z0-9_-]+)?$/.test(href)) {
      nav.removeAttribute("data-href");
      window.location.assign(href);
    }
  });

  // --- Prompt suggestions ----------------------------------------------------------------------------
  // The server renders the chip row (#suggestions, with data-generation) and the ghost text; this code only
  // decides whether the list is offered right now, moves focus, copies a chip's text into the composer and
  // runs the opt-in auto-send countdown. It never builds markup from the agent's data.
  //
  // A list is offered while the composer is empty, unless the user dismissed it (typed, pressed Escape,
  // took it into the composer) or sent a prompt since it arrived. Lists are told apart by generation; the
  // first frame after a (re)connect is a snapshot, never a "new" list, so it can't trigger auto-send.

  var AUTO_KEY = "webclient.autoSend";
  var AUTO_DELAY_S = 3;
  var AUTO_CAP = 3;
  var offer = { lastGen: null, dismissedGen: null, freshGen: null, autoHandledGen: null, snapshotPending: true };
  var countdown = null;  // { gen, seconds, timer } while an auto-send is counting down
  var autoStreak = 0;    // auto-sends since the user last pressed a key or clicked
  var autoPaused = false;

  function row() { return document.getElementById("suggestions"); }
  function ghost() { return document.getElementById("ghost-text"); }
  function byId(id) { return document.getElementById(id); }
  function currentGen() { var r = row(); return r ? r.getAttribute("data-generation") : null; }
  function listSize() { var r = row(); return r ? Number(r.getAttribute("data-count")) || 0 : 0; }
  function chips() {
    return Array.prototype.slice.call(document.querySelectorAll('#suggestions [data-testid="suggestion"]'));
  }
  function composerEmpty() { var box = composer(); return !box || box.value.trim() === ""; }
  function offered() { return document.body.getAttribute("data-offer") === "shown"; }

  function updateOffer() {
    var shown = listSize() > 0 && currentGen() !== offer.dismissedGen && composerEmpty();
    document.body.setAttribute("data-offer", shown ? "shown" : "hidden");
    return shown;
  }

  function dismissSuggestions() {
    offer.dismissedGen = currentGen();
    cancelCountdown();
    updateOffer();
  }

  function suggestionsSent() {
    dismissSuggestions();
    byId("auto-send-skipped").hidden = true;
  }

  function announce(count) {
    var live = byId("suggestions-announcer");
    if (!live) { return; }
    live.textContent = "";
    live.textContent = count === 1 ? "1 suggestion" : count + " suggestions";
  }

  var focusWasInRow = false;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var r = row();
    focusWasInRow = !!(r && r.contains(document.activeElement));
  });

  document.addEventListener("htmx:wsOpen", function () { offer.snapshotPending = true; });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var gen = currentGen();
    if (offer.snapshotPending) {
      // A snapshot after (re)connecting shows what is there, but it is not a newly arrived list.
      offer.snapshotPending = false;
      offer.lastGen = gen;
    } else if (gen !== offer.lastGen) {
      offer.lastGen = gen;
      offer.freshGen = gen;
      cancelCountdown();
      byId("auto-send-skipped").hidden = true;
      if (updateOffer()) { announce(listSize()); }
    }
    var shown = updateOffer();
    if (focusWasInRow && !row().contains(document.activeElement)) {
      var first = chips()[0];
      if (shown && first) { first.focus(); } else if (composer()) { composer().focus(); }
    }
    focusWasInRow = false;
    considerAutoSend();
  });

  // Edit and Tab take a suggestion into the composer: its text here, its attachments as pills that the
  // server renders into this tab's composer (asked for with the edit form).
  function takeIntoComposer(text, index) {
    var box = composer();
    var gen = currentGen();
    dismissSuggestions();
    box.value = text;
    box.focus();
    box.setSelectionRange(text.length, text.length);
    clearPills();
    var form = byId("edit-form");
    if (form && gen !== null) {
      form.querySelector('[name="generation"]').value = gen;
      form.querySelector('[name="index"]').value = String(index);
      form.requestSubmit();
    }
  }

  document.addEventListener("input", function (event) {
    if (event.target === composer()) {
      if (!composerEmpty()) { dismissSuggestions(); } else { updateOffer(); }
    }
  });

  document.addEventListener("click", function (event) {
    var edit = event.target.closest && event.target.closest('[data-testid="suggestion-edit"]');
    if (edit) {
      var chip = edit.closest(".chip");
      takeIntoComposer(chip ? chip.getAttribute("data-text") || "" : "", Number(edit.getAttribute("data-index")) || 0);
      return;
    }
    if (event.target.closest && event.target.closest('[data-testid="auto-send-cancel"]')) {
      cancelCountdown();
    }
  });

  function focusChip(chip) {
    chips().forEach(function (c) { c.tabIndex = c === chip ? 0 : -1; });
    chip.focus();
  }

  document.addEventListener("focusin", function (event) {
    var chip = event.target.closest && event.target.closest('#suggestions [data-testid="suggestion"]');
    if (chip) { chips().forEach(function (c) { c.tabIndex = c === chip ? 0 : -1; }); }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    // Tab in an empty composer takes the ghost text (the first suggestion).
    if (target === composer() && event.key === "Tab" && !event.shiftKey && !event.ctrlKey && !event.altKey &&
        !event.metaKey && composerEmpty() && offered() && ghost() && !ghost().hidden) {
      event.preventDefault();
      takeIntoComposer(ghost().getAttribute("data-text") || "", 0);
      return;
    }
    if (event.key === "Escape" && (offered() || countdown)) {
      var inRow = row() && row().contains(target);
      dismissSuggestions();
      if (inRow && composer()) { composer().focus(); }
      return;
    }
    var chip = target.closest && target.closest('#suggestions [data-testid="suggestion"]');
    if (!chip) { return; }
    var list = chips();
    var i = list.indexOf(chip);
    var next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") { next = list[(i + 1) % list.length]; }
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { next = list[(i - 1 + list.length) % list.length]; }
    else if (event.key === "Home") { next = list[0]; }
    else if (event.key === "End") { next = list[list.length - 1]; }
    if (next) {
      event.preventDefault();
      focusChip(next);
    }
  });

  // --- auto-send (opt-in) ---

  function autoEnabled() { var box = byId("auto-send"); return !!(box && box.checked); }

  function idle() {
    var status = byId("agent-status");
    return !!status && status.getAttribute("data-state") === "ready";
  }

  function mayAutoSend(gen) {
    return autoEnabled() && !autoPaused && currentGen() === gen && offered() && composerBlank() && idle() &&
      !document.querySelector('[data-testid="permission"][data-state="pending"]') && document.visibilityState === "visible";
  }

  function considerAutoSend() {
    var gen = currentGen();
    if (countdown || gen === null || gen !== offer.freshGen || gen === offer.autoHandledGen) { return; }
    if (!mayAutoSend(gen)) { return; }  // maybe later in this list's life (e.g. once the turn has ended)
    offer.autoHandledGen = gen;
    var first = document.querySelector("#suggestions .chip");
    if (!first || first.getAttribute("data-auto-eligible") !== "true") {
      byId("auto-send-skipped").hidden = false;  // the user must look at attachments or hidden characters
      return;
    }
    countdown = { gen: gen, seconds: AUTO_DELAY_S, timer: null };
    showCountdown();
    countdown.timer = window.setInterval(tick, 1000);
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
    cancelCountdown();
    if (!mayAutoSend(gen)) { return; }
    var form = byId("suggestion-form");
    form.querySelector('[name="generation"]').value = gen;
    form.querySelector('[name="index"]').value = "0";
    autoStreak += 1;
    form.requestSubmit();
    if (autoStreak >= AUTO_CAP) {
      autoPaused = true;
      byId("auto-send-paused").hidden = false;
    }
  }

  function cancelCountdown() {
    if (!countdown) { return; }
    window.clearInterval(countdown.timer);
    countdown = null;
    byId("auto-send-countdown").hidden = true;
  }

  // Any key or click is the user at work: it stops a countdown and ends a streak of auto-sends.
  function userActed(event) {
    if (!event.isTrusted) { return; }
    cancelCountdown();
    autoStreak = 0;
    if (autoPaused) {
      autoPaused = false;
      byId("auto-send-paused").hidden = true;
    }
  }
  document.addEventListener("keydown", userActed, true);
  document.addEventListener("pointerdown", userActed, true);

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") { cancelCountdown(); }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = byId("auto-send");
    if (toggle) {
      try { toggle.checked = window.localStorage.getItem(AUTO_KEY) === "on"; } catch (e) { toggle.checked = false; }
      toggle.addEventListener("change", function () {
        try { window.localStorage.setItem(AUTO_KEY, toggle.checked ? "on" : "off"); } catch (e) { /* private mode */ }
        if (!toggle.checked) { cancelCountdown(); }
      });
    }
    offer.lastGen = currentGen();
    updateOffer();
    var box = composer();
    if (box) { box.focus(); }
  });
})();
