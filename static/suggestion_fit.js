// The suggestions take a bounded area above the composer, so the conversation keeps its room: in the
// chips and list styles only as many suggestions as fit in a few lines show, then "+N more"; each shows on
// one line. A suggestion whose whole text does not show at once (too long, several lines, too wide) is
// marked collapsed (data-truncated="true"), whatever made it long: its first click opens the sheet with
// everything in full, and auto-send never sends it. "+N more" and a collapsed suggestion open the sheet
// (the row's data-expanded): every suggestion in full, over the conversation; Close or Escape folds it.
(function (root) {
  "use strict";

  var webclient = root.webclient;
  // How many lines of suggestions (chips) or suggestions (list) the folded area shows, "+N more" included.
  var LINES = { chips: 2, list: 3 };

  function row() { return document.getElementById("suggestions"); }
  function all(r, selector) { return Array.prototype.slice.call(r.querySelectorAll(selector)); }
  function sheetOpen() { var r = row(); return !!r && r.hasAttribute("data-expanded"); }

  function lines(elements) {
    var tops = [];
    elements.forEach(function (el) {
      if (!el.getClientRects().length) { return; }
      var top = Math.round(el.getBoundingClientRect().top);
      if (!tops.some(function (t) { return Math.abs(t - top) < 4; })) { tops.push(top); }
    });
    return tops.length;
  }

  function markCollapsed(button, collapsed) {
    if (collapsed) {
      button.setAttribute("data-truncated", "true");
      button.setAttribute("aria-expanded", "false");
      button.setAttribute("data-measured", "true");
    } else if (button.getAttribute("data-measured") === "true") {
      button.removeAttribute("data-truncated");
      button.removeAttribute("aria-expanded");
      button.removeAttribute("data-measured");
    }
  }

  // Whether `box` shows less than its content: cut on the right (one line) or at the bottom (clamped).
  function cut(box) { return box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1; }

  /** Fold the row to what fits, and mark every suggestion whose text does not all show. */
  function fit() {
    var r = row();
    if (!r || sheetOpen()) { return; }
    var style = r.getAttribute("data-style");
    var chips = all(r, ".chip");
    chips.forEach(function (chip) { chip.removeAttribute("data-overflow"); });
    all(r, '[data-measured="true"]').forEach(function (button) { markCollapsed(button, false); });
    var more = r.querySelector('[data-action="suggestions-more"]');
    if (style === "ghost") {
      if (more) { more.hidden = true; }
      document.querySelectorAll("#ghost-text .ghost-entry").forEach(function (entry) {
        if (entry.hidden) { return; }
        var chip = r.querySelector('.chip[data-index="' + entry.getAttribute("data-index") + '"]');
        var button = chip && chip.querySelector('[data-action="suggestion"]');
        if (button && !button.hasAttribute("data-truncated") && cut(entry)) { markCollapsed(button, true); }
      });
      return;
    }
    var limit = Number(r.getAttribute("data-fold-lines")) || LINES[style] || LINES.chips;
    // A preset (data-preset) also caps how many show before the fold; without one, only lines count.
    var first = r.hasAttribute("data-preset") ? Number(r.getAttribute("data-first")) || 1 : chips.length;
    var shown = chips.slice();
    var hidden = 0;
    if (more) { more.hidden = true; }
    while (shown.length > 1 && (shown.length > first || lines(shown.concat(more && !more.hidden ? [more] : [])) > limit)) {
      shown.pop().setAttribute("data-overflow", "true");
      hidden += 1;
      if (more) {
        more.hidden = false;
        more.querySelector(".more-count").textContent = String(hidden);
      }
    }
    shown.forEach(function (chip) {
      var button = chip.querySelector('[data-action="suggestion"]');
      var text = chip.querySelector(".chip-text");
      if (button && text && !button.hasAttribute("data-truncated") && cut(text)) { markCollapsed(button, true); }
    });
  }

  /** Open the sheet: every suggestion in full, above the composer. */
  function open() {
    var r = row();
    if (!r) { return; }
    r.setAttribute("data-expanded", "true");
    var more = r.querySelector('[data-action="suggestions-more"]');
    if (more) { more.setAttribute("aria-expanded", "true"); }
    all(r, ".chip").forEach(function (chip) { chip.removeAttribute("data-overflow"); });
  }

  /** Fold the sheet back to the row, each suggestion collapsed again where its text does not all show. */
  function close() {
    var r = row();
    if (!r) { return; }
    r.removeAttribute("data-expanded");
    var more = r.querySelector('[data-action="suggestions-more"]');
    if (more) { more.setAttribute("aria-expanded", "false"); }
    all(r, '[data-action="suggestion"][data-truncated="false"]').forEach(function (button) {
      button.setAttribute("data-truncated", "true");
      button.setAttribute("aria-expanded", "false");
      if (button.hasAttribute("data-label")) { button.setAttribute("aria-label", button.getAttribute("data-label")); }
    });
    fit();
  }

  root.addEventListener("resize", function () { fit(); });

  webclient.suggestionFit = { fit: fit, open: open, close: close, sheetOpen: sheetOpen };
})(window);
