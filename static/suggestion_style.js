// How suggestions are presented (chips, list or ghost text, from the Display menu, kept in this browser)
// and, in the ghost style, which suggestion the grey text in the composer shows. The server renders all
// three presentations in one markup; this file only picks one and moves the ghost text along.
(function (root) {
  "use strict";

  var STYLE_KEY = "webclient.suggestionStyle";
  var STYLES = ["chips", "list", "ghost"];

  var ghostIndex = 0;

  function byId(id) { return document.getElementById(id); }
  function all(selector) { return Array.prototype.slice.call(document.querySelectorAll(selector)); }
  function listSize() { var row = byId("suggestions"); return row ? Number(row.getAttribute("data-count")) || 0 : 0; }

  /** The presentation in use: the user's choice if any, else the page's default, else chips. */
  function current() {
    var row = byId("suggestions");
    // A study's preset fixes the presentation of this session (the server renders it as data-preset).
    if (row && row.hasAttribute("data-preset")) { return row.getAttribute("data-style"); }
    var select = byId("suggestion-style");
    var saved = null;
    try { saved = root.localStorage.getItem(STYLE_KEY); } catch (e) { saved = null; }
    if (STYLES.indexOf(saved) >= 0) { return saved; }
    var fallback = select ? select.getAttribute("data-default") : "chips";
    return STYLES.indexOf(fallback) >= 0 ? fallback : "chips";
  }

  /** Mark the page, the row and the Display menu with the presentation in use (after each update too). */
  function apply() {
    var chosen = current();
    document.body.setAttribute("data-suggestion-style", chosen);
    var row = byId("suggestions");
    if (row) {
      row.setAttribute("data-style", chosen);
      row.setAttribute("aria-orientation", chosen === "list" ? "vertical" : "horizontal");
    }
    var select = byId("suggestion-style");
    if (select && select.value !== chosen) { select.value = chosen; }
    if (select) { select.disabled = !!row && row.hasAttribute("data-preset"); }
    showGhost();
  }

  function choose(style) {
    try { root.localStorage.setItem(STYLE_KEY, style); } catch (e) { /* private mode */ }
    apply();
  }

  // --- ghost text ---------------------------------------------------------------------------------------

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

  /** Show the suggestion `step` places on (wrapping), in the ghost text. */
  function cycleGhost(step) {
    var n = listSize();
    if (!n) { return; }
    ghostIndex = (ghostIndex + step + n) % n;
    showGhost();
  }

  /** Back to the first suggestion (a new list, or the one an auto-send is about to send). */
  function resetGhost() {
    ghostIndex = 0;
    showGhost();
  }

  root.webclient.suggestionStyle = {
    current: current,
    apply: apply,
    choose: choose,
    ghostIndex: function () { return ghostIndex; },
    cycleGhost: cycleGhost,
    resetGhost: resetGhost
  };
})(window);
