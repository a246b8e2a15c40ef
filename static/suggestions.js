// The composer and the agent's prompt suggestions: what HTML alone cannot do (keys, focus, which list is
// offered right now, the opt-in auto-send countdown). The server renders every suggestion, pill and token;
// this file never builds markup from data, and the page holds no content blocks, only opaque ids.
//
// A list is offered while the composer is empty (no text, no attachments) unless the user pressed Escape
// (then "Suggestions (N)" brings it back) or sent a prompt since it arrived. Typing hides it; emptying the
// composer again brings it back. Lists are told apart by generation; the first frame after a (re)connect is
// a snapshot, never a "new" list, so it cannot start an auto-send.
(function () {
  "use strict";

  var STYLE_KEY = "webclient.suggestionStyle";
  var STYLES = ["chips", "list", "ghost"];
  var AUTO_KEY = "webclient.autoSend";
  var AUTO_DELAY_S = 3;
  var AUTO_CAP = 3;

  var offer = { lastGen: null, dismissedGen: null, sentGen: null, freshGen: null, autoHandledGen: null,
                snapshotPending: true };
  var ghostIndex = 0;
  var countdown = null;  // { gen, seconds, timer } while an auto-send is counting down
  var autoStreak = 0;    // auto-sends since the user last pressed a key or clicked
  var autoPaused = false;

  function byId(id) { return document.getElementById(id); }
  function all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }
  function composer() { return byId("composer"); }
  function row() { return byId("suggestions"); }
  function ghost() { return byId("ghost-text"); }
  function currentGen() { var r = row(); return r ? r.getAttribute("data-generation") : null; }
  function listSize() { var r = row(); return r ? Number(r.getAttribute("data-count")) || 0 : 0; }
  function sendButton() { return document.querySelector('#composer-form [data-testid="send"]'); }
  function suggestionButtons() { return all('#suggestions [data-testid="suggestion"]'); }
  function suggestionAt(index) { return document.querySelector('#suggestions [data-testid="suggestion"][data-index="' + index + '"]'); }
  function isVisible(el) { return !!el && el.getClientRects().length > 0; }

  // --- presentation style (Display menu) ---------------------------------------------------------------

  function style() {
    var select = byId("suggestion-style");
    var saved = null;
    try { saved = window.localStorage.getItem(STYLE_KEY); } catch (e) { saved = null; }
    if (STYLES.indexOf(saved) >= 0) { return saved; }
    var fallback = select ? select.getAttribute("data-default") : "chips";
    return STYLES.indexOf(fallback) >= 0 ? fallback : "chips";
  }

  function applyStyle() {
    var chosen = style();
    document.body.setAttribute("data-suggestion-style", chosen);
    var r = row();
    if (r) {
      r.setAttribute("data-style", chosen);
      r.setAttribute("aria-orientation", chosen === "list" ? "vertical" : "horizontal");
    }
    var select = byId("suggestion-style");
    if (select && select.value !== chosen) { select.value = chosen; }
    showGhost();
  }

  // --- the composer --------------------------------------------------------------------------------------

  function pills() { return all('#composer-attachments [data-testid="composer-attachment"]'); }
  function composerBlank() { var box = composer(); return (!box || box.value.trim() === "") && pills().length === 0; }
  function syncPillBox() {
    var box = byId("composer-attachments");
    if (box) { box.hidden = pills().length === 0; }
  }

  // Enter sends, Shift+Enter inserts a newline; IME composition is left alone.
  document.addEventListener("keydown", function (event) {
    if (event.target !== composer() || event.key !== "Enter" || event.shiftKey || event.isComposing ||
        event.defaultPrevented) {
      return;
    }
    event.preventDefault();
    var button = sendButton();
    if (button && !button.disabled && !composerBlank()) {
      byId("composer-form").requestSubmit(button);
    }
  });

  // An empty prompt is not worth a round trip. Any prompt that does go out ends the current offer: its
  // suggestions were predicted for the conversation before it.
  document.addEventListener("htmx:wsConfigSend", function (event) {
    var elt = event.target;
    if (elt && elt.id === "composer-form" && composerBlank()) {
      event.preventDefault();
      return;
    }
    if (elt && (elt.id === "composer-form" || elt.id === "suggestion-form" ||
                elt.getAttribute("data-testid") === "suggestion")) {
      offer.sentGen = currentGen();
      cancelCountdown();
      byId("auto-send-skipped").hidden = true;
      updateOffer();
    }
  });

  // Clear the composer once its prompt has left for the server (which forgets the attachments it held).
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "composer-form") {
      composer().value = "";
      pills().forEach(function (pill) { pill.remove(); });
      syncPillBox();
      composer().focus();
      updateOffer();
    }
  });

  // Removing a pill takes its token out of the text too: the file leaves the sentence and the prompt.
  document.addEventListener("click", function (event) {
    var remove = event.target.closest && event.target.closest('[data-testid="composer-attachment-remove"]');
    if (!remove) { return; }
    var pill = remove.closest('[data-testid="composer-attachment"]');
    var token = pill.getAttribute("data-token") || "";
    var box = composer();
    var at = token ? box.value.indexOf(token) : -1;
    if (at >= 0) {
      var end = at + token.length;
      if (box.value.charAt(end) === " " && (at === 0 || box.value.charAt(at - 1) === " ")) { end += 1; }
      box.value = box.value.slice(0, at) + box.value.slice(end);
    }
    var form = byId("detach-form");
    form.querySelector('[name="id"]').value = pill.getAttribute("data-id") || "";
    form.requestSubmit();
    pill.remove();
    syncPillBox();
    box.focus();
    updateOffer();
  });

  // A file picked with `@` stands where the `@name` was typed: its token goes there (attach.js noted where).
  function placeNewTokens() {
    var box = composer();
    all('#composer-attachments [data-insert="true"]').forEach(function (pill) {
      pill.removeAttribute("data-insert");
      var token = pill.getAttribute("data-token") || "";
      var at = Number(box.getAttribute("data-insert-at"));
      if (!(at >= 0 && at <= box.value.length)) { at = box.value.length; }
      box.removeAttribute("data-insert-at");
      var before = box.value.slice(0, at);
      var after = box.value.slice(at);
      var insert = token + (after.charAt(0) === " " ? "" : " ");
      box.value = before + insert + after;
      box.setSelectionRange(at + insert.length, at + insert.length);
    });
  }

  // Each reference the composer holds is highlighted where it stands: a backdrop under the textarea
  // repeats its text (transparent) with a <mark> behind each token. Built with text nodes only.
  function paintTokens() {
    var box = composer();
    var backdrop = byId("composer-tokens");
    if (!box || !backdrop) { return; }
    var tokens = pills().map(function (pill) { return pill.getAttribute("data-token") || ""; })
      .filter(function (token) { return token !== ""; });
    var text = box.value;
    backdrop.textContent = "";
    var at = 0;
    while (at < text.length) {
      var next = -1;
      var found = "";
      tokens.forEach(function (token) {
        var i = text.indexOf(token, at);
        if (i >= 0 && (next < 0 || i < next)) { next = i; found = token; }
      });
      if (next < 0) { break; }
      backdrop.appendChild(document.createTextNode(text.slice(at, next)));
      var mark = document.createElement("mark");
      mark.textContent = found;
      backdrop.appendChild(mark);
      at = next + found.length;
    }
    backdrop.appendChild(document.createTextNode(text.slice(at) + "\n"));
    backdrop.scrollTop = box.scrollTop;
  }
  document.addEventListener("scroll", function (event) {
    if (event.target === composer()) { var b = byId("composer-tokens"); if (b) { b.scrollTop = event.target.scrollTop; } }
  }, true);

  // --- which list is offered -------------------------------------------------------------------------

  function offered() { return document.body.getAttribute("data-offer") === "shown"; }

  function updateOffer() {
    paintTokens();
    var gen = currentGen();
    var live = listSize() > 0 && gen !== offer.sentGen;
    var shown = live && gen !== offer.dismissedGen && composerBlank();
    document.body.setAttribute("data-offer", shown ? "shown" : "hidden");
    var restore = byId("suggestions-restore");
    if (restore) {
      restore.hidden = !(live && gen === offer.dismissedGen && composerBlank());
      restore.querySelector(".restore-count").textContent = String(listSize());
    }
    if (!shown) { cancelCountdown(); }
    return shown;
  }

  function dismiss() {
    offer.dismissedGen = currentGen();
    updateOffer();
  }

  function restore() {
    offer.dismissedGen = null;
    updateOffer();
    // Focus goes to what came back: the suggestions, or the composer that shows the ghost text.
    var item = currentItem();
    if (item) { focusItem(item); } else { composer().focus(); }
  }

  function announce(count) {
    var live = byId("suggestions-announcer");
    if (!live) { return; }
    live.textContent = "";
    live.textContent = count === 1 ? "1 suggestion" : count + " suggestions";
  }

  // --- roving focus: the row (or list) is one tab stop ------------------------------------------------

  function items() {
    var list = suggestionButtons().filter(isVisible);
    var more = document.querySelector('#suggestions [data-testid="suggestions-more"]');
    if (isVisible(more)) { list.push(more); }
    return list;
  }
  function currentItem() {
    var list = items();
    return list.filter(function (el) { return el.tabIndex === 0; })[0] || list[0] || null;
  }
  function focusItem(item) {
    if (!item) { return; }
    items().forEach(function (el) { el.tabIndex = el === item ? 0 : -1; });
    item.focus();
  }

  document.addEventListener("focusin", function (event) {
    var item = event.target.closest && event.target.closest('#suggestions [data-testid="suggestion"], #suggestions [data-testid="suggestions-more"]');
    if (item) { items().forEach(function (el) { el.tabIndex = el === item ? 0 : -1; }); }
  });

  // --- taking a suggestion into the composer (Tab, Edit) ---------------------------------------------

  // Only over an empty composer: nothing the user put there is ever discarded. The text comes from the
  // page at once; the server puts the suggestion's files into this tab's composer and sends their pills.
  function takeIntoComposer(index) {
    var chip = document.querySelector('#suggestions .chip[data-index="' + index + '"]');
    var gen = currentGen();
    if (!chip || gen === null || !composerBlank()) { return; }
    var text = chip.getAttribute("data-text") || "";
    var box = composer();
    box.value = text;
    box.focus();
    box.setSelectionRange(text.length, text.length);
    var form = byId("edit-form");
    form.querySelector('[name="generation"]').value = gen;
    form.querySelector('[name="index"]').value = String(index);
    form.requestSubmit();
    updateOffer();
  }

  // --- expanding before sending: no blind sends ------------------------------------------------------

  function expand(button, open) {
    button.setAttribute("data-truncated", open ? "false" : "true");
    button.setAttribute("aria-expanded", open ? "true" : "false");
  }

  // Capture phase, ahead of htmx's own click handler on the button: a suggestion whose text is not all
  // on screen opens on its first click and sends only from the expanded view.
  document.addEventListener("click", function (event) {
    var target = event.target;
    var truncated = target.closest && target.closest('#suggestions [data-testid="suggestion"][data-truncated="true"]');
    if (truncated) {
      event.preventDefault();
      event.stopPropagation();
      expand(truncated, true);
      focusItem(truncated);
    }
  }, true);

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target.closest) { return; }
    var edit = target.closest('[data-testid="suggestion-edit"]');
    if (edit) { takeIntoComposer(Number(edit.getAttribute("data-index")) || 0); return; }
    var less = target.closest('[data-testid="suggestion-less"]');
    if (less) {
      var button = less.closest(".chip").querySelector('[data-testid="suggestion"]');
      expand(button, false);
      focusItem(button);
      return;
    }
    var more = target.closest('[data-testid="suggestions-more"]');
    if (more) {
      row().setAttribute("data-expanded", "true");
      more.setAttribute("aria-expanded", "true");
      var first = document.querySelector("#suggestions .chip-extra [data-testid='suggestion']");
      focusItem(first);
      return;
    }
    if (target.closest('[data-testid="ghost-next"]')) { cycleGhost(1); return; }
    if (target.closest('[data-testid="suggestions-restore"]')) { restore(); return; }
    if (target.closest('[data-testid="auto-send-cancel"]')) { cancelCountdown(); return; }
    if (target.closest('[data-testid="auto-send-resume"]')) { resumeAuto(); }
  });

  // --- ghost text -------------------------------------------------------------------------------------

  function showGhost() {
    var entries = all("#ghost-text .ghost-entry");
    if (ghostIndex >= entries.length) { ghostIndex = 0; }
    entries.forEach(function (entry, i) { entry.hidden = i !== ghostIndex; });
    all("#suggestions .chip").forEach(function (chip) {
      if (Number(chip.getAttribute("data-index")) === ghostIndex) { chip.setAttribute("data-ghost-current", "true"); }
      else { chip.removeAttribute("data-ghost-current"); }
    });
    var position = document.querySelector("#suggestions .ghost-position");
    if (position) { position.textContent = String(ghostIndex + 1); }
  }

  function cycleGhost(step) {
    var n = listSize();
    if (!n) { return; }
    ghostIndex = (ghostIndex + step + n) % n;
    showGhost();
  }

  // --- keys ---------------------------------------------------------------------------------------------

  function onComposerKey(event) {
    var plain = !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey;
    var ghostStyle = style() === "ghost";
    if (event.key === "Escape" && (offered() || countdown)) {
      dismiss();
      return true;
    }
    if (!offered()) { return false; }
    if (ghostStyle && event.key === "Tab" && plain) {
      takeIntoComposer(ghostIndex);
      return true;
    }
    if (ghostStyle && event.altKey && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      cycleGhost(event.key === "ArrowDown" ? 1 : -1);
      return true;
    }
    if (!ghostStyle && event.key === "ArrowUp" && plain) {
      focusItem(currentItem());
      return true;
    }
    return false;
  }

  function onItemKey(event, item) {
    var list = items();
    var i = list.indexOf(item);
    var next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") { next = list[(i + 1) % list.length]; }
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { next = list[(i - 1 + list.length) % list.length]; }
    else if (event.key === "Home") { next = list[0]; }
    else if (event.key === "End") { next = list[list.length - 1]; }
    if (next) { focusItem(next); return true; }
    if (event.key === "Escape") { composer().focus(); return true; }
    if ((event.key === "e" || event.key === "E") && !event.ctrlKey && !event.metaKey && !event.altKey &&
        item.getAttribute("data-testid") === "suggestion") {
      takeIntoComposer(Number(item.getAttribute("data-index")) || 0);
      return true;
    }
    return false;
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var handled = false;
    if (target === composer()) {
      handled = onComposerKey(event);
    } else {
      var item = target.closest && target.closest('#suggestions [data-testid="suggestion"], #suggestions [data-testid="suggestions-more"]');
      if (item) { handled = onItemKey(event, item); }
    }
    if (handled) { event.preventDefault(); }
  });

  document.addEventListener("input", function (event) {
    if (event.target === composer()) { updateOffer(); }
  });

  // --- live updates ---------------------------------------------------------------------------------

  var focusWasInRow = false;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var r = row();
    focusWasInRow = !!(r && r.contains(document.activeElement));
  });

  document.addEventListener("htmx:wsOpen", function () { offer.snapshotPending = true; });

  document.addEventListener("htmx:wsAfterMessage", function () {
    var gen = currentGen();
    applyStyle();
    placeNewTokens();
    syncPillBox();
    if (offer.snapshotPending) {
      offer.snapshotPending = false;
      offer.lastGen = gen;
    } else if (gen !== offer.lastGen) {
      offer.lastGen = gen;
      offer.freshGen = gen;
      offer.dismissedGen = null;  // a new list is a new offer
      ghostIndex = 0;
      showGhost();
      cancelCountdown();
      byId("auto-send-skipped").hidden = true;
      if (updateOffer()) { announce(listSize()); }
    }
    var shown = updateOffer();
    if (focusWasInRow && !row().contains(document.activeElement)) {
      if (shown && currentItem()) { focusItem(currentItem()); } else if (composer()) { composer().focus(); }
    }
    focusWasInRow = false;
    considerAutoSend();
  });

  // --- auto-send (opt-in) ---------------------------------------------------------------------------

  function autoEnabled() { var box = byId("auto-send"); return !!(box && box.checked); }

  function idle() {
    var status = byId("agent-status");
    return !!status && status.getAttribute("data-state") === "ready";
  }

  function mayAutoSend(gen) {
    return autoEnabled() && !autoPaused && currentGen() === gen && offered() && composerBlank() && idle() &&
      !document.querySelector('[data-testid="permission"][data-state="pending"]') &&
      document.visibilityState === "visible";
  }

  function considerAutoSend() {
    var gen = currentGen();
    if (countdown || gen === null || gen !== offer.freshGen || gen === offer.autoHandledGen) { return; }
    if (!mayAutoSend(gen)) { return; }  // maybe later in this list's life (e.g. once the turn has ended)
    offer.autoHandledGen = gen;
    var first = document.querySelector('#suggestions .chip[data-index="0"]');
    // Attachments, hidden characters or text not all on screen: the user must look and choose.
    if (!first || first.getAttribute("data-auto-eligible") !== "true") {
      byId("auto-send-skipped").hidden = false;
      return;
    }
    countdown = { gen: gen, seconds: AUTO_DELAY_S, timer: null };
    ghostIndex = 0;
    showGhost();
    markCountdown(true);
    showCountdown();
    countdown.timer = window.setInterval(tick, 1000);
  }

  // The suggestion that will go is marked where it shows (its chip or line, or the ghost text).
  function markCountdown(on) {
    [suggestionAt(0), document.querySelector('#ghost-text .ghost-entry[data-index="0"]')].forEach(function (el) {
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
    markCountdown(false);
    byId("auto-send-countdown").hidden = true;
  }

  function resumeAuto() {
    autoPaused = false;
    autoStreak = 0;
    byId("auto-send-paused").hidden = true;
  }

  // Any key or click is the user at work: it stops a countdown and ends a streak of auto-sends.
  function userActed(event) {
    if (!event.isTrusted) { return; }
    cancelCountdown();
    autoStreak = 0;
    if (autoPaused) { resumeAuto(); }
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
    var select = byId("suggestion-style");
    if (select) {
      select.addEventListener("change", function () {
        try { window.localStorage.setItem(STYLE_KEY, select.value); } catch (e) { /* private mode */ }
        applyStyle();
        updateOffer();
      });
    }
    applyStyle();
    offer.lastGen = currentGen();
    updateOffer();
    var box = composer();
    if (box) { box.focus(); }
  });
})();
