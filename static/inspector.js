// The protocol inspector panel: open and close, filter by method, keep the list short and scrolled.
// The server renders every entry; this file only shows, hides, trims and scrolls what it sent.
(function () {
  "use strict";

  function panel() { return document.getElementById("inspector"); }
  function list() { return document.getElementById("inspector-entries"); }
  function filterBox() { return document.getElementById("inspector-filter"); }
  function toggles() { return document.querySelectorAll('[data-action="inspector-toggle"]'); }

  function isOpen() { var p = panel(); return !!p && !p.hidden; }

  // The header is re-rendered by the server, so the toggle's state is read from the panel each time.
  function syncToggles() {
    var open = isOpen();
    toggles().forEach(function (button) { button.setAttribute("aria-expanded", open ? "true" : "false"); });
  }

  // The server sends entries only to tabs whose panel is open.
  function tellServer(open) {
    window.webclient.call("inspector", { open: open ? "true" : "false" });
  }

  function setOpen(open) {
    var p = panel();
    if (!p) { return; }
    var changed = p.hidden === open;
    p.hidden = !open;
    document.body.classList.toggle("inspector-open", open);
    syncToggles();
    if (changed) { tellServer(open); }
    if (open) {
      scrollToEnd();
      filterBox().focus();
    }
  }

  function scrollToEnd() { var l = list(); if (l) { l.scrollTop = l.scrollHeight; } }

  function atEnd() {
    var l = list();
    return !l || l.scrollHeight - l.scrollTop - l.clientHeight < 40;
  }

  // Client-side filter: an entry stays visible when its method or its update kind contains the text.
  function applyFilter() {
    var l = list();
    if (!l) { return; }
    var needle = (filterBox().value || "").trim().toLowerCase();
    var shown = 0;
    Array.prototype.forEach.call(l.children, function (entry) {
      var hay = ((entry.getAttribute("data-method") || "") + " " + (entry.getAttribute("data-kind") || "")).toLowerCase();
      var visible = !needle || hay.indexOf(needle) !== -1;
      entry.hidden = !visible;
      if (visible) { shown += 1; }
    });
    var empty = document.querySelector('[data-role="inspector-no-match"]');
    if (empty) { empty.hidden = shown > 0 || l.children.length === 0; }
  }

  // Appended entries pile up; keep only the newest `data-cap` so a flood cannot freeze the page.
  function trim() {
    var l = list();
    if (!l) { return; }
    var cap = parseInt(l.getAttribute("data-cap") || "500", 10);
    while (l.children.length > cap) { l.removeChild(l.firstElementChild); }
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target.closest) { return; }
    if (target.closest('[data-action="inspector-toggle"]')) {
      setOpen(!isOpen());
    } else if (target.closest('[data-action="inspector-close"]')) {
      setOpen(false);
      var toggle = toggles()[0];
      if (toggle) { toggle.focus(); }
    }
  });

  // Escape inside the panel closes it (slot "inspector" of static/keymap.js); the browser's default stays.
  window.webclient.keymap.register("inspector", function (event) {
    if (event.key === "Escape" && isOpen() && panel().contains(event.target)) {
      setOpen(false);
    }
    return window.webclient.keymap.PASS;
  });

  document.addEventListener("input", function (event) {
    if (event.target === filterBox()) { applyFilter(); }
  });

  var follow = true;
  // A reconnected tab is a new subscriber on the server: tell it again that the panel is open.
  document.addEventListener("htmx:wsOpen", function () { if (isOpen()) { tellServer(true); } });

  document.addEventListener("htmx:wsBeforeMessage", function () { follow = atEnd(); });
  document.addEventListener("htmx:wsAfterMessage", function () {
    trim();
    applyFilter();
    syncToggles();
    if (follow && isOpen()) { scrollToEnd(); }
  });
})();
