// The suggestions take the room above the composer that the conversation does not need: in the chips and
// list styles as many suggestions show as fit while the conversation keeps its floor (a share of the
// window's height), then "+N more"; each shows up to a few lines of its text. The rule's values come with
// the row (webclient/views/fold.py: data-fold-floor, -lines, -most, -area). A suggestion whose whole text does not
// show at once (too long, too many lines) is marked collapsed (data-truncated="true"), whatever made it
// long: its first click opens the sheet, and auto-send never sends it. "+N more" and a collapsed suggestion
// open the sheet (the row's data-expanded): every suggestion in full, over the conversation, each sent by
// one click; Close or Escape folds it.
(function (root) {
  "use strict";

  var webclient = root.webclient;

  function row() { return document.getElementById("suggestions"); }
  function all(r, selector) { return Array.prototype.slice.call(r.querySelectorAll(selector)); }
  function sheetOpen() { var r = row(); return !!r && r.hasAttribute("data-expanded"); }

  function rule(r) {
    var floor = Number(r.getAttribute("data-fold-floor"));
    return {
      floor: floor > 0 && floor < 1 ? floor : 0.55,
      lines: Math.max(1, Number(r.getAttribute("data-fold-lines")) || 3),
      most: Math.max(0, Number(r.getAttribute("data-fold-most")) || 0),
      area: Math.max(0, Number(r.getAttribute("data-fold-area")) || 0)
    };
  }

  // The pixels the conversation has beyond its floor (negative: the suggestions take too much). What sticks
  // to its top (a plan while a turn runs) covers it and does not count. No conversation (a preview): room.
  // Under the last answer (static/suggestion_place.js), the suggestions scroll with the conversation: the
  // share they may take is the rest of the window's height once the floor is kept for the answer above.
  function spare(floor) {
    var conversation = document.getElementById("conversation");
    var place = webclient.suggestionPlace;
    if (place && place.underAnswer()) {
      return (1 - floor) * root.innerHeight - place.area().getBoundingClientRect().height;
    }
    if (!conversation) { return Infinity; }
    var covered = 0;
    var plan = document.getElementById("plan");
    if (plan && !plan.hidden && getComputedStyle(plan).position === "sticky") {
      covered = plan.getBoundingClientRect().height;
    }
    return conversation.getBoundingClientRect().height - covered - floor * root.innerHeight;
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

  // How many rows the elements take (a row of chips, or a line of the list): their distinct tops.
  function lines(elements) {
    var tops = [];
    elements.forEach(function (el) {
      if (!el.getClientRects().length) { return; }
      var top = Math.round(el.getBoundingClientRect().top);
      if (!tops.some(function (t) { return Math.abs(t - top) < 4; })) { tops.push(top); }
    });
    return tops.length;
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
    var fold = rule(r);
    r.style.setProperty("--fold-lines", String(fold.lines));
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
    // Show the first `k` (and "+N more" for the rest); whether the conversation then keeps its floor.
    function fits(k) {
      chips.forEach(function (chip, i) {
        if (i < k) { chip.removeAttribute("data-overflow"); } else { chip.setAttribute("data-overflow", "true"); }
      });
      if (more) {
        more.hidden = k >= chips.length;
        more.querySelector(".more-count").textContent = String(chips.length - k);
      }
      if (fold.area && lines(chips.slice(0, k).concat(more && !more.hidden ? [more] : [])) > fold.area) {
        return false;
      }
      return spare(fold.floor) >= 0;
    }
    // The most that fit, the first one always: all at once in the usual case, else a binary search (the
    // room shrinks as more show), a few layouts however long the list.
    var most = fold.most ? Math.min(fold.most, chips.length) : chips.length;
    var count = most;
    if (most > 1 && !fits(most)) {
      var lo = 1, hi = most - 1;
      while (lo < hi) {
        var mid = Math.ceil((lo + hi) / 2);
        if (fits(mid)) { lo = mid; } else { hi = mid - 1; }
      }
      count = lo;
    }
    fits(count);
    var shown = chips.slice(0, count);
    shown.forEach(function (chip) {
      var button = chip.querySelector('[data-action="suggestion"]');
      var text = chip.querySelector(".chip-text");
      if (button && text && !button.hasAttribute("data-truncated") && cut(text)) { markCollapsed(button, true); }
    });
  }

  /** Open the sheet: every suggestion in full (none collapsed: one click sends it), above the composer. */
  function open() {
    var r = row();
    if (!r) { return; }
    r.setAttribute("data-expanded", "true");
    all(r, '[data-action="suggestion"][data-truncated="true"]').forEach(function (button) {
      button.setAttribute("data-truncated", "false");
      button.setAttribute("aria-expanded", "true");
      // Open, its name is its whole text as shown (the short name would no longer match what is on screen).
      if (button.hasAttribute("aria-label")) {
        button.setAttribute("data-label", button.getAttribute("aria-label"));
        button.removeAttribute("aria-label");
      }
    });
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
