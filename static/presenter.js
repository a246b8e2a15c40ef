// Presenter mode: the page in front of an audience. One switch (at the foot of the sessions list), kept in this
// browser; the server's --present makes it the default of a browser that has not chosen. It only changes
// what the page shows (body[data-present="on"], static/presenter.css): protocol words out of sight, the
// header down to the session's title and the agent's own name, larger type. What a person must see to
// decide (files, hidden characters, permission requests, the suggestions' warnings) is never hidden.
(function (root) {
  "use strict";

  var KEY = "webclient.present";

  function saved() {
    try { return root.localStorage.getItem(KEY); } catch (e) { return null; }
  }

  /** Whether the page presents: the browser's choice if any, else the server's default. */
  function on() {
    var choice = saved();
    if (choice === "on" || choice === "off") { return choice === "on"; }
    return document.body.getAttribute("data-present-default") === "on";
  }

  function apply() {
    var present = on();
    document.body.setAttribute("data-present", present ? "on" : "off");
    document.querySelectorAll('[data-action="present-toggle"]').forEach(function (box) { box.checked = present; });
    if (root.webclient.headerFit) { root.webclient.headerFit.fit(); }
  }

  function toggle() {
    try { root.localStorage.setItem(KEY, on() ? "off" : "on"); } catch (e) { /* private mode: this page only */ }
    if (saved() === null) { document.body.setAttribute("data-present-default", on() ? "off" : "on"); }
    apply();
    if (root.webclient.offer) { root.webclient.offer.update(); }  // the type's size changes what fits
  }

  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest('[data-action="present-toggle"]')) { toggle(); }
  });
  document.addEventListener("DOMContentLoaded", apply);

  root.webclient.presenter = { on: on, apply: apply };
})(window);
