// The turn from the keyboard, and focus that is never lost (slot "turn" of static/keymap.js):
//   Escape while a turn runs stops it (as editors do), unless something nearer took the key first;
//   Alt+P goes to the waiting permission request's first option; a new request is announced;
//   Ctrl+K (or Cmd+K) goes to the session list, where Up and Down move between sessions;
// and the end of an answer is announced politely. When an update replaces the element that had focus
// (the Cancel button, a permission's options once answered), focus goes back to the composer instead of
// falling to the page.
(function (root) {
  "use strict";

  var webclient = root.webclient;
  var keymap = webclient.keymap;

  function byId(id) { return document.getElementById(id); }
  function status() { var s = byId("agent-status"); return s ? s.getAttribute("data-state") : null; }
  function running() { return status() === "working"; }
  function composer() { return byId("composer"); }
  function pendingPermission() {
    return document.querySelector('[data-role="permission"][data-state="pending"]');
  }

  function announce(message) {
    var live = byId("turn-announcer");
    if (!live) { return; }
    live.textContent = "";
    live.textContent = message;
  }

  function sessionLinks() {
    return Array.prototype.slice.call(document.querySelectorAll("#sidebar .session-link a"));
  }

  function toSessions() {
    var toggle = document.querySelector('[data-action="sessions-toggle"]');
    if (toggle && toggle.getClientRects().length && toggle.getAttribute("aria-expanded") !== "true") { toggle.click(); }
    var links = sessionLinks();
    var current = links.filter(function (a) { return a.getAttribute("aria-current") === "page"; })[0] || links[0];
    if (current) { current.focus(); }
  }

  keymap.register("turn", function (event) {
    var plainKey = !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey;
    if (event.key === "Escape" && plainKey && !event.defaultPrevented && running() &&
        !(event.target.closest && event.target.closest("#inspector, #sidebar, #header-extra, .composer-options"))) {
      var cancel = document.querySelector('[data-action="cancel"]:not([disabled])');
      if (cancel) {
        cancel.click();
        composer().focus();
        return keymap.STOP;
      }
    }
    if (event.altKey && !event.ctrlKey && !event.metaKey && (event.key === "p" || event.key === "P" || event.code === "KeyP")) {
      var request = pendingPermission();
      var option = request && request.querySelector("button[data-option-id]");
      if (option) { option.focus(); return keymap.STOP; }
    }
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (event.key === "k" || event.key === "K")) {
      toSessions();
      return keymap.STOP;
    }
    var link = event.target.closest && event.target.closest("#sidebar .session-link a");
    if (link && plainKey && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      var links = sessionLinks();
      var next = links[(links.indexOf(link) + (event.key === "ArrowDown" ? 1 : links.length - 1)) % links.length];
      if (next) { next.focus(); }
      return keymap.STOP;
    }
    return keymap.PASS;
  });

  // --- what an update changed ---------------------------------------------------------------------------

  var before = { focused: null, status: null, asking: null };

  document.addEventListener("htmx:wsBeforeMessage", function () {
    before.focused = document.activeElement;
    before.status = status();
    var request = pendingPermission();
    before.asking = request ? request.id : null;
  });

  // The page says whether a turn runs (the answer's caret, static/conversation.css), from the badge the
  // server renders; set only when it changes.
  function markTurn() {
    var turn = running() ? "working" : "idle";
    if (document.body.getAttribute("data-turn") !== turn) { document.body.setAttribute("data-turn", turn); }
  }
  document.addEventListener("DOMContentLoaded", markTurn);

  document.addEventListener("htmx:wsAfterMessage", function () {
    markTurn();
    var lost = before.focused && before.focused !== document.body && !before.focused.isConnected &&
      (document.activeElement === document.body || document.activeElement === null);
    if (lost && composer()) { composer().focus(); }
    var request = pendingPermission();
    if (request && request.id !== before.asking) {
      var title = request.getAttribute("aria-label") || "Permission request";
      announce(title + ". The agent waits for your answer: Alt+P goes to it.");
    } else if (before.status === "working" && status() === "ready") {
      announce("The agent finished its answer.");
    }
  });
})(window);
