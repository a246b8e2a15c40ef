// The header shows whole: when the session's controls do not fit on one line beside the title and the
// status (a narrow window, a long status such as "waiting for you…", the usage), they wrap onto a second
// line (.topbar[data-header="compact"], static/presenter.css) instead of being cut off at the window's edge.
// Measured from the one-line header at load, on resize and when an update replaced part of the header.
(function (root) {
  "use strict";

  function overflows(el) { return !!el && el.scrollWidth > el.clientWidth + 1; }

  // The mark is on the top bar, not the body: switching it restyles the header alone, so the measure
  // that follows lays out the header, not a long transcript again (177 ms at a turn's start, once).
  function fit() {
    var topbar = document.querySelector(".topbar");
    if (!topbar) { return; }
    topbar.removeAttribute("data-header");
    var extra = document.getElementById("header-extra");
    var header = document.getElementById("session-header");
    if (overflows(topbar) || overflows(header) || overflows(extra)) {
      topbar.setAttribute("data-header", "compact");
    }
  }

  // Measured again only when an update replaced part of the header (not at every streamed chunk).
  var HEADER_PARTS = { "session-header": true, "agent-status": true };
  var changed = false;
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && HEADER_PARTS[target.id]) { changed = true; }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (changed) { changed = false; fit(); }
  });
  root.addEventListener("resize", fit);
  document.addEventListener("DOMContentLoaded", fit);

  root.webclient.headerFit = { fit: fit };
})(window);
