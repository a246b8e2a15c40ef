// The composer: the message box, its attachment pills and the tokens that stand for them in the text.
// Enter sends, an empty prompt is never sent, a sent prompt clears the box. Every change it makes or sees
// is told to whoever watches it (the suggestion offer hides while the user types).
(function (root) {
  "use strict";

  var webclient = root.webclient;
  var watchers = [];

  function byId(id) { return document.getElementById(id); }
  function all(selector, base) { return Array.prototype.slice.call((base || document).querySelectorAll(selector)); }
  function element() { return byId("composer"); }
  function form() { return byId("composer-form"); }
  function sendButton() { return document.querySelector('#composer-form [data-action="send"]'); }
  function pills() { return all('#composer-attachments [data-role="composer-attachment"]'); }

  /** Whether the composer holds nothing to send: no text (spaces aside) and no attachment. */
  function blank() { var box = element(); return (!box || box.value.trim() === "") && pills().length === 0; }

  function syncPills() {
    var box = byId("composer-attachments");
    if (box) { box.hidden = pills().length === 0; }
  }

  /** Call `watcher()` after every change of the composer's text or attachments. */
  function onChange(watcher) { watchers.push(watcher); }
  function changed() {
    paintTokens();
    watchers.forEach(function (watcher) { watcher(); });
  }

  /** Put `text` in the composer, focused, the caret at its end. */
  function fill(text) {
    var box = element();
    box.value = text;
    box.focus();
    box.setSelectionRange(text.length, text.length);
    changed();
  }

  // Enter sends, Shift+Enter inserts a newline; IME composition is left alone.
  function onKey(event) {
    if (event.target !== element() || event.key !== "Enter" || event.shiftKey || event.isComposing ||
        event.defaultPrevented) {
      return webclient.keymap.PASS;
    }
    var button = sendButton();
    if (button && !button.disabled && !blank()) { form().requestSubmit(button); }
    return webclient.keymap.TAKEN;
  }
  webclient.keymap.register("composer-send", onKey);

  // An empty prompt is not worth a round trip.
  document.addEventListener("htmx:wsConfigSend", function (event) {
    if (event.target === form() && blank()) { event.preventDefault(); }
  });

  // Clear the composer once its prompt has left for the server (which forgets the attachments it held).
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target !== form()) { return; }
    element().value = "";
    pills().forEach(function (pill) { pill.remove(); });
    syncPills();
    element().focus();
    changed();
  });

  document.addEventListener("input", function (event) {
    if (event.target === element()) { changed(); }
  });

  // Removing a pill takes its token out of the text too: the file leaves the sentence and the prompt.
  document.addEventListener("click", function (event) {
    var remove = event.target.closest && event.target.closest('[data-action="composer-attachment-remove"]');
    if (!remove) { return; }
    var pill = remove.closest('[data-role="composer-attachment"]');
    var box = element();
    box.value = withoutToken(box.value, pill.getAttribute("data-token") || "");
    webclient.call("detach", { id: pill.getAttribute("data-id") || "" });
    pill.remove();
    syncPills();
    box.focus();
    changed();
  });

  // `text` without the first `token`, and without the space after it when it stood as a word of its own.
  function withoutToken(text, token) {
    var at = token ? text.indexOf(token) : -1;
    if (at < 0) { return text; }
    var end = at + token.length;
    if (text.charAt(end) === " " && (at === 0 || text.charAt(at - 1) === " ")) { end += 1; }
    return text.slice(0, at) + text.slice(end);
  }

  // A file picked with `@` stands where the `@name` was typed: its token goes there (attach.js noted where).
  function placeNewTokens() {
    var box = element();
    all('#composer-attachments [data-insert="true"]').forEach(function (pill) {
      pill.removeAttribute("data-insert");
      var token = pill.getAttribute("data-token") || "";
      var at = Number(box.getAttribute("data-insert-at"));
      if (!(at >= 0 && at <= box.value.length)) { at = box.value.length; }
      box.removeAttribute("data-insert-at");
      var before = box.value.slice(0, at);
      var after = box.value.slice(at);
      var insert = token + (after.charAt(0) === " " ? "" : " ");
      box.value = before + insert + after;
      box.setSelectionRange(at + insert.length, at + insert.length);
    });
  }

  // Each reference the composer holds is highlighted where it stands: a backdrop under the textarea
  // repeats its text (transparent) with a <mark> behind each token. Built with text nodes only.
  var painted = null;  // what the backdrop shows: the tokens and the text it was painted for
  function paintTokens() {
    var box = element();
    var backdrop = byId("composer-tokens");
    if (!box || !backdrop) { return; }
    var tokens = pills().map(function (pill) { return pill.getAttribute("data-token") || ""; })
      .filter(function (token) { return token !== ""; });
    var text = box.value;
    // After most updates nothing changed here: painting again (and reading the box's scroll, which
    // lays the page out) would be work for nothing.
    var key = tokens.join("\u0000") + "\u0001" + text;
    if (backdrop.firstChild && key === painted) { return; }
    painted = key;
    backdrop.textContent = "";
    var at = 0;
    while (at < text.length) {
      var next = nextToken(text, tokens, at);
      if (!next) { break; }
      backdrop.appendChild(document.createTextNode(text.slice(at, next.at)));
      var mark = document.createElement("mark");
      mark.textContent = next.token;
      backdrop.appendChild(mark);
      at = next.at + next.token.length;
    }
    backdrop.appendChild(document.createTextNode(text.slice(at) + "\n"));
    backdrop.scrollTop = box.scrollTop;
  }

  // The first of `tokens` in `text` from `from` on, as { at, token }, or null.
  function nextToken(text, tokens, from) {
    var found = null;
    tokens.forEach(function (token) {
      var i = text.indexOf(token, from);
      if (i >= 0 && (!found || i < found.at)) { found = { at: i, token: token }; }
    });
    return found;
  }

  document.addEventListener("scroll", function (event) {
    if (event.target !== element()) { return; }
    var backdrop = byId("composer-tokens");
    if (backdrop) { backdrop.scrollTop = event.target.scrollTop; }
  }, true);

  /** After the server's update: new pills' tokens into the text, the pill box shown or not, tokens painted. */
  function refresh() {
    placeNewTokens();
    syncPills();
    paintTokens();
  }

  webclient.composer = {
    element: element,
    form: form,
    blank: blank,
    fill: fill,
    onChange: onChange,
    refresh: refresh,
    syncPills: syncPills,
    paintTokens: paintTokens
  };
})(window);
