// The page's one keydown listener. Modules do not listen to keys themselves: each registers a handler
// under its name in PRIORITY, and every key goes to the handlers in that order, so which one sees a key
// first is written here rather than decided by capture phases and the order of scripts in the bundle.
//
// A handler gets the keydown event and answers:
//   keymap.PASS  (or nothing)  not its key: the next handler sees it;
//   keymap.TAKEN               the handler acted and prevented the browser's default; the next still see it
//                              (an Escape that dismisses suggestions also closes the phone's drawer);
//   keymap.STOP                the key was this handler's alone: default prevented, no other handler (nor
//                              any other listener on the page) sees it.
(function (root) {
  "use strict";

  var PASS = "pass";
  var TAKEN = "taken";
  var STOP = "stop";

  // First to last. Each line: who, where it lives, which keys while what is true.
  var PRIORITY = [
    "file-picker",    // attach.js: while the @ file picker is open: Up/Down move, Enter/Tab choose, Escape closes
    "user-activity",  // auto_send.js: any key is the user at work: stops a countdown, ends a streak (always PASS)
    "slash-menu",     // slash.js: while the / menu is open: Up/Down move, Enter/Tab choose, Escape closes
    "composer-send",  // composer.js: Enter in the composer sends; Shift+Enter and IME composition are left alone
    "suggestions",    // suggestion_keys.js: in the composer: Escape dismisses, Tab takes the ghost text,
                      //   Alt+Up/Down cycle it, Up goes to the chips; on a chip: arrows, Home, End, E, Escape
    "turn",           // turn.js: Escape stops a running turn, Alt+P goes to a permission request, Ctrl+K to
                      //   the sessions (Up/Down move there)
    "inspector",      // inspector.js: Escape inside the inspector closes it
    "panels"          // page.js: Escape closes the phone's sessions drawer and header menu
  ];

  var handlers = {};

  /** Register `handler` as the key handler named `name`, one of PRIORITY. */
  function register(name, handler) {
    if (PRIORITY.indexOf(name) < 0) { throw new Error("keymap: no slot named " + name); }
    handlers[name] = handler;
  }

  function dispatch(event) {
    for (var i = 0; i < PRIORITY.length; i += 1) {
      var handler = handlers[PRIORITY[i]];
      var answer = handler ? handler(event) : PASS;
      if (answer === TAKEN || answer === STOP) { event.preventDefault(); }
      if (answer === STOP) {
        event.stopImmediatePropagation();
        return;
      }
    }
  }

  var keymap = { PASS: PASS, TAKEN: TAKEN, STOP: STOP, PRIORITY: PRIORITY, register: register, dispatch: dispatch };
  if (typeof module === "object" && module.exports) { module.exports = keymap; }
  if (root) {
    (root.webclient = root.webclient || {}).keymap = keymap;
    // Capture phase: the page sees a key before the focused element does.
    root.document.addEventListener("keydown", dispatch, true);
  }
})(typeof window === "object" ? window : null);
