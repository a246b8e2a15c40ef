// The prompts waiting for the agent's turn to end (templates/_prompt_queue.html). Edit takes one back into
// the composer: its button tells the server (which drops it from the queue and gives this tab's composer
// its attachments), and here its text goes into the composer, after what the person is typing, if anything.
(function (root) {
  "use strict";

  var document = root.document;

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest('[data-action="waiting-edit"]');
    var box = document.getElementById("composer");
    var prompt = button && button.closest('[data-role="waiting-prompt"]');
    if (!prompt || !box) { return; }
    var text = prompt.getAttribute("data-text") || "";
    box.value = box.value.trim() ? box.value.replace(/\s+$/, "") + "\n" + text : text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  });
})(window);
