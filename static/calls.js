// Calls to the server that no button of the page makes by itself: attach a file, send a suggestion
// automatically, tell the server the inspector opened, and so on. Each is a hidden form in
// templates/index.html marked `data-call="NAME"`, sent over the page's WebSocket by htmx's ws extension
// (`ws-send`), so a call travels exactly like a click on a button: same message, same headers, same
// refusal while the connection is down. `webclient.call(NAME, FIELDS)` fills the form and sends it.
(function (root) {
  "use strict";

  /**
   * Send the call `name` with `fields` (input name -> value). Returns false when the page has no such call.
   * The fields are emptied afterwards, so nothing sent (an image's data, say) stays in the page.
   */
  function call(name, fields) {
    var form = root.document.querySelector('form[data-call="' + name + '"]');
    if (!form) { return false; }
    var inputs = Object.keys(fields || {}).map(function (key) {
      var input = form.querySelector('[name="' + key + '"]');
      input.value = String(fields[key]);
      return input;
    });
    form.requestSubmit();  // htmx reads the values while handling the submit event, before this returns
    inputs.forEach(function (input) { input.value = ""; });
    return true;
  }

  /** Whether `element` is the form of the call `name`. */
  function isCall(element, name) {
    return !!element && !!element.getAttribute && element.getAttribute("data-call") === name;
  }

  var webclient = root.webclient = root.webclient || {};
  webclient.call = call;
  webclient.isCall = isCall;
})(window);
