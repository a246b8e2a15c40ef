// webclient page behaviour that HTML alone cannot express: keyboard, focus, scrolling, connection state.
// Everything the server sends arrives as HTML through htmx; this file never builds markup from data.
(function () {
  "use strict";

  function composer() { return document.getElementById("composer"); }
  function transcript() { return document.getElementById("transcript"); }

  function sendButton() {
    return document.querySelector('#composer-form [data-testid="send"]');
  }

  // Enter sends, Shift+Enter inserts a newline; IME composition is left alone.
  document.addEventListener("keydown", function (event) {
    if (event.target !== composer() || event.key !== "Enter" || event.shiftKey || event.isComposing) {
      return;
    }
    event.preventDefault();
    var button = sendButton();
    if (button && !button.disabled && composer().value.trim() !== "") {
      document.getElementById("composer-form").requestSubmit(button);
    }
  });

  // An empty prompt is not worth a round trip.
  document.addEventListener("htmx:wsConfigSend", function (event) {
    var form = event.target;
    if (form && form.id === "composer-form" && composer().value.trim() === "") {
      event.preventDefault();
    }
  });

  // Clear the composer once its prompt has left for the server.
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "composer-form") {
      composer().value = "";
      composer().focus();
    }
  });

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

  // Follow the conversation while the user is at the bottom; leave them alone when they scrolled up.
  var stickToBottom = true;
  document.addEventListener("scroll", function () {
    var el = document.scrollingElement;
    stickToBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  }, { passive: true });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (stickToBottom) {
      var el = document.scrollingElement;
      el.scrollTop = el.scrollHeight;
    }
  });

  function showConnection(lost) {
    var banner = document.getElementById("connection");
    if (banner) { banner.hidden = !lost; }
    document.body.dataset.connected = lost ? "false" : "true";
  }
  document.addEventListener("htmx:wsOpen", function () { showConnection(false); });
  document.addEventListener("htmx:wsClose", function () { showConnection(true); });
  document.addEventListener("htmx:wsError", function () { showConnection(true); });

  document.addEventListener("DOMContentLoaded", function () {
    var box = composer();
    if (box) { box.focus(); }
  });
})();
