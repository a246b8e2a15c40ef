// Roving focus in the suggestions: the row (or list) is one tab stop, and the item that had focus last
// keeps it, so Tab leaves the row and comes back to the same suggestion.
(function (root) {
  "use strict";

  var ITEMS = '#suggestions [data-action="suggestion"], #suggestions [data-action="suggestions-more"]';

  function isVisible(el) { return !!el && el.getClientRects().length > 0; }

  /** The suggestions the user can reach now, in order, and "+N more" when it shows. */
  function items() {
    var list = Array.prototype.slice.call(document.querySelectorAll('#suggestions [data-action="suggestion"]'))
      .filter(isVisible);
    var more = document.querySelector('#suggestions [data-action="suggestions-more"]');
    if (isVisible(more)) { list.push(more); }
    return list;
  }

  /** The item that holds the row's tab stop (or the first), or null when none shows. */
  function current() {
    var list = items();
    return list.filter(function (el) { return el.tabIndex === 0; })[0] || list[0] || null;
  }

  function giveTabStop(item) { items().forEach(function (el) { el.tabIndex = el === item ? 0 : -1; }); }

  /** Focus `item`, which takes the row's tab stop. */
  function focus(item) {
    if (!item) { return; }
    giveTabStop(item);
    item.focus();
  }

  /** The suggestion item (or "+N more") that `element` is in, or null. */
  function itemOf(element) { return (element && element.closest && element.closest(ITEMS)) || null; }

  document.addEventListener("focusin", function (event) {
    var item = itemOf(event.target);
    if (item) { giveTabStop(item); }
  });

  root.webclient.suggestionFocus = { items: items, current: current, focus: focus, itemOf: itemOf };
})(window);
