// The keys of the suggestions, in the composer and on the suggestions themselves (slot "suggestions" of
// static/keymap.js, after the menus and Enter-sends):
//   in the composer, while a list is offered (or counting down to an auto-send):
//     Escape dismisses it; in the ghost style Tab takes the ghost text and Alt+Up/Down show another;
//     in the chips and list styles Up moves to the suggestions;
//   on a suggestion (or "+N more"): arrows, Home and End move, E edits it in the composer, Escape goes
//     back to the composer.
(function (root) {
  "use strict";

  var webclient = root.webclient;
  var keymap = webclient.keymap;
  var offer = webclient.offer;
  var focus = webclient.suggestionFocus;
  var style = webclient.suggestionStyle;

  function plain(event) { return !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey; }

  function onComposerKey(event) {
    var ghostStyle = style.current() === "ghost";
    if (event.key === "Escape" && webclient.suggestionFit.sheetOpen()) {
      offer.closeSheet(null);
      webclient.composer.element().focus();
      return true;
    }
    if (event.key === "Escape" && (offer.offered() || webclient.autoSend.countingDown())) {
      offer.dismiss();
      return true;
    }
    if (!offer.offered()) { return false; }
    if (ghostStyle && event.key === "Tab" && plain(event)) {
      offer.take(style.ghostIndex());
      return true;
    }
    if (ghostStyle && event.altKey && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      style.cycleGhost(event.key === "ArrowDown" ? 1 : -1);
      offer.update();
      return true;
    }
    if (!ghostStyle && event.key === "ArrowUp" && plain(event)) {
      focus.focus(focus.current());
      return true;
    }
    return false;
  }

  // Where an arrow, Home or End moves from `i` in a list of `n`, or -1 for any other key.
  function step(key, i, n) {
    if (key === "ArrowRight" || key === "ArrowDown") { return (i + 1) % n; }
    if (key === "ArrowLeft" || key === "ArrowUp") { return (i - 1 + n) % n; }
    if (key === "Home") { return 0; }
    if (key === "End") { return n - 1; }
    return -1;
  }

  function onItemKey(event, item) {
    var list = focus.items();
    var next = step(event.key, list.indexOf(item), list.length);
    if (next >= 0) { focus.focus(list[next]); return true; }
    if (event.key === "Escape" && webclient.suggestionFit.sheetOpen()) { offer.closeSheet(item); return true; }
    if (event.key === "Escape") { webclient.composer.element().focus(); return true; }
    if ((event.key === "e" || event.key === "E") && !event.ctrlKey && !event.metaKey && !event.altKey &&
        item.getAttribute("data-action") === "suggestion") {
      offer.take(Number(item.getAttribute("data-index")) || 0);
      return true;
    }
    return false;
  }

  // TAKEN, not STOP: an Escape that dismisses the suggestions also closes the phone's open drawer.
  keymap.register("suggestions", function (event) {
    var item = focus.itemOf(event.target);
    var handled = event.target === webclient.composer.element() ? onComposerKey(event)
      : item ? onItemKey(event, item) : false;
    return handled ? keymap.TAKEN : keymap.PASS;
  });
})(window);
