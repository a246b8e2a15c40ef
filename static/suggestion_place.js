// Where the suggestions sit: above the composer (the page's place for them), or, when a study's preset
// says so (data-placement="under_answer" on the row, webclient/views/presets.py), in the conversation
// under the agent's last answer, in the slot the page keeps after the transcript. The whole area moves
// (the row, "Suggestions (N)", auto-send's notes): the row is replaced by id at every update wherever it
// is, so it is placed again after each, and goes back home when a list comes without that placement.
(function (root) {
  "use strict";

  var webclient = root.webclient = root.webclient || {};
  var home = null;  // where the area was in the page as served: its parent and a marker after it

  function area() { return document.querySelector('[data-role="suggestions-area"]'); }
  function slot() { return document.querySelector('[data-role="suggestions-under-answer"]'); }

  function wanted() {
    var row = document.getElementById("suggestions");
    return row && row.getAttribute("data-placement") === "under_answer" ? "under_answer" : "home";
  }

  /** Put the area where the row's placement says; returns whether it moved. */
  function place() {
    var box = area();
    if (!box) { return false; }
    if (!home) {
      home = document.createComment("suggestions-area");
      box.after(home);
    }
    var target = wanted() === "under_answer" ? slot() : null;
    if (target && box.parentNode !== target) {
      target.appendChild(box);
      target.hidden = false;
    } else if (!target && box.nextSibling !== home) {
      home.before(box);
      var empty = slot();
      if (empty) { empty.hidden = true; }
    } else {
      return false;
    }
    if (webclient.followSoon) { webclient.followSoon(); }
    return true;
  }

  /** Whether the area is in the conversation, under the last answer. */
  function underAnswer() {
    var box = area();
    var target = slot();
    return !!box && !!target && box.parentNode === target;
  }

  webclient.suggestionPlace = { place: place, underAnswer: underAnswer, area: area };
})(window);
