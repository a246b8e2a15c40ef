// The slash-command menu: "/" at the start of the composer opens the list the server rendered from the
// agent's available_commands_update (#slash-menu). This file only shows, filters and hides its items and
// moves the selection; it never builds markup, and agent text only ever goes into textContent or value.
(function () {
  "use strict";

  var selectedName = null;   // the highlighted command, kept across re-renders of the list
  var dismissedValue = null; // Escape closes the menu until the composer's text changes
  var hintFor = null;        // the command whose input hint is showing

  function composer() { return document.getElementById("composer"); }
  function menu() { return document.getElementById("slash-menu"); }
  function hintBox() { return document.getElementById("slash-hint"); }
  function items() {
    var m = menu();
    return m ? Array.prototype.slice.call(m.querySelectorAll('[data-action="slash-command"]')) : [];
  }
  function visibleItems() { return items().filter(function (item) { return !item.hidden; }); }
  function isOpen() { var m = menu(); return !!m && !m.hidden; }

  // The text typed after "/" while it is still one word, or null when the menu does not apply.
  function query() {
    var box = composer();
    var match = box ? /^\/(\S*)$/.exec(box.value) : null;
    return match ? match[1].toLowerCase() : null;
  }

  function close() {
    var m = menu();
    if (m) { m.hidden = true; }
    var box = composer();
    if (box) {
      // A textarea takes no aria-expanded (axe: aria-allowed-attr); say nothing while the menu is closed.
      box.removeAttribute("aria-expanded");
      box.removeAttribute("aria-activedescendant");
    }
  }

  function select(item) {
    selectedName = item ? item.getAttribute("data-name") : null;
    items().forEach(function (each) {
      var on = each === item;
      each.setAttribute("aria-selected", on ? "true" : "false");
      each.classList.toggle("selected", on);
    });
    var box = composer();
    if (item && box) {
      box.setAttribute("aria-activedescendant", item.id);
      menu().setAttribute("aria-activedescendant", item.id);
      item.scrollIntoView({ block: "nearest" });
    }
  }

  function refresh() {
    var q = query();
    var box = composer();
    if (q === null || !box || box.value === dismissedValue) { close(); return; }
    var shown = [];
    items().forEach(function (item) {
      var name = (item.getAttribute("data-name") || "").toLowerCase();
      item.hidden = name.indexOf(q) !== 0;
      if (!item.hidden) { shown.push(item); }
    });
    if (shown.length === 0) { close(); return; }
    menu().hidden = false;
    box.setAttribute("aria-controls", "slash-menu");
    var keep = shown.filter(function (item) { return item.getAttribute("data-name") === selectedName; })[0];
    select(keep || shown[0]);
  }

  function showHint() {
    var box = hintBox();
    var c = composer();
    if (!box || !c) { return; }
    var item = items().filter(function (each) { return each.getAttribute("data-name") === hintFor; })[0];
    var hint = item ? item.getAttribute("data-hint") || "" : "";
    var prefix = "/" + hintFor + " ";
    if (hintFor === null || hint === "" || c.value !== prefix) {
      box.hidden = true;
      box.textContent = "";
      return;
    }
    box.textContent = "/" + hintFor + " takes: " + hint;
    box.hidden = false;
  }

  function choose(item) {
    var box = composer();
    if (!item || !box) { return; }
    var name = item.getAttribute("data-name") || "";
    box.value = "/" + name + " ";
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
    hintFor = name;
    close();
    showHint();
  }

  function move(step) {
    var shown = visibleItems();
    if (shown.length === 0) { return; }
    var current = shown.map(function (i) { return i.getAttribute("data-name"); }).indexOf(selectedName);
    select(shown[(current + step + shown.length) % shown.length]);
  }

  document.addEventListener("input", function (event) {
    if (event.target !== composer()) { return; }
    if (composer().value !== dismissedValue) { dismissedValue = null; }
    refresh();
    showHint();
  });

  // Ahead of Enter-sends and the suggestions in the keymap (static/keymap.js): while the menu is open,
  // its keys must not reach the composer's own Enter (send), Tab (take a suggestion) and Escape handlers.
  var keymap = window.webclient.keymap;
  // The same keys on the list itself (a tab stop: Shift+Tab from the composer); choosing or Escape
  // goes back to the composer.
  keymap.register("slash-menu", function (event) {
    var onList = event.target === menu();
    if ((event.target !== composer() && !onList) || !isOpen() || event.isComposing) { return keymap.PASS; }
    if (event.key === "ArrowDown") { move(1); }
    else if (event.key === "ArrowUp") { move(-1); }
    else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      choose(visibleItems().filter(function (i) { return i.getAttribute("data-name") === selectedName; })[0]);
    }
    else if (event.key === "Escape") { dismissedValue = composer().value; close(); if (onList) { composer().focus(); } }
    else { return keymap.PASS; }
    return keymap.STOP;
  });

  document.addEventListener("mousedown", function (event) {
    if (event.target.closest && event.target.closest("#slash-menu")) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var item = event.target.closest && event.target.closest('#slash-menu [data-action="slash-command"]');
    if (item) { choose(item); }
  });

  // The server re-renders the list when the agent's commands change: show it again as it was.
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (query() !== null) { refresh(); }
    showHint();
  });
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "composer-form") {
      hintFor = null;
      showHint();
      close();
    }
  });
})();
