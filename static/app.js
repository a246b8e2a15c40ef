// webclient page behaviour that HTML alone cannot express: scrolling, open thoughts, navigation, connection
// state. The composer is static/composer.js, the suggestions static/suggestion_*.js and auto_send.js.
// Everything the server sends arrives as HTML through htmx; this file never builds markup from data.
(function () {
  "use strict";

  function transcript() { return document.getElementById("transcript"); }

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

  // A fold the user opened inside a region the server re-renders stays open in the new markup: a stored
  // session's "Delete…" confirmation while the list refreshes, a tool call's raw input while the call
  // runs. Each such fold names itself in `data-open-key`, unique on the page.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    var fragment = event.detail && event.detail.fragment;
    if (!target || !fragment || !fragment.querySelectorAll) { return; }
    var open = target.querySelectorAll("details[data-open-key][open]");
    for (var i = 0; i < open.length; i++) {
      var key = open[i].getAttribute("data-open-key");
      var incoming = fragment.querySelector('details[data-open-key="' + CSS.escape(key) + '"]');
      if (incoming) { incoming.open = true; }
    }
  });

  // A region swapped while it holds the focus (the sessions list, whose states change at every turn, while a
  // keyboard user walks it) gives the focus to the same link or button in its new markup, instead of
  // dropping it to the page.
  var refocus = null;
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    var focused = document.activeElement;
    refocus = null;
    if (!target || !target.id || !focused || focused === document.body || !target.contains(focused)) { return; }
    var href = focused.getAttribute("href");
    var action = focused.getAttribute("data-action");
    var selector = href ? 'a[href="' + CSS.escape(href) + '"]'
      : focused.id ? "#" + CSS.escape(focused.id)
      : action ? '[data-action="' + CSS.escape(action) + '"]' : null;
    if (selector) { refocus = { region: target.id, selector: selector }; }
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!refocus) { return; }
    var wanted = refocus;
    refocus = null;
    if (document.activeElement && document.activeElement !== document.body) { return; }  // moved on
    var region = document.getElementById(wanted.region);
    var element = region && (region.matches(wanted.selector) ? region : region.querySelector(wanted.selector));
    if (element) { element.focus({ preventScroll: true }); }
  });

  // Following the conversation and the connection banner live in static/page.js.

  // The server tells a tab to open another session's page (after new, load or close). Only our own paths.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var nav = document.getElementById("navigate");
    var href = nav && nav.getAttribute("data-href");
    if (href && /^\/(s\/[A-Za-z0-9_-]+)?$/.test(href)) {
      nav.removeAttribute("data-href");
      var draft = nav.querySelector('[data-role="draft"]');
      if (draft) { window.webclient.keepDraft(href, draft.value); }
      window.webclient.leaving = true;  // the socket may close before the next page comes: not a loss
      window.location.assign(href);
    }
  });

})();
