// A streamed answer's frames, applied without htmx's swap machinery. While an agent writes, the server
// sends a frame every few milliseconds that only appends to an answer: its newly finished blocks, raw
// text of its open block, or the open block rendered again; or, to a tool card, the entries its content
// gained and the text a command wrote since. Through htmx each such frame cost a dozen events, class changes on the
// swapped elements, a walk of the inserted content, and the handlers that run after every message,
// several of which read the layout (a forced layout of the whole page per chunk). Here a frame that
// holds nothing but those pieces is parsed inert and moved into place; the following of the
// conversation waits for the next animation frame, once however many frames came.
// Anything else (a new entry, a region, the inspector) goes to htmx as before. The markup is the same
// either way (the server's, already escaped and sanitised), so the page ends as a fresh page shows it.
(function (root) {
  "use strict";

  var document = root.document;
  // The parts of a streamed answer a frame may append to; in a tool card, its content and a command's
  // output (what is appended there holds nothing for htmx to process).
  var PIECES = ["md-done", "md-tail", "tool-content", "terminal-output"];

  function isPiece(element) {
    return !!element && PIECES.some(function (name) { return element.classList.contains(name); });
  }

  // What to do with one top-level element of a frame, or null if it is not a piece of a streamed answer.
  function planFor(node) {
    if (node.nodeType === 3 && node.nodeValue.trim() === "") { return { skip: true }; }
    if (node.nodeType === 8) { return { skip: true }; }  // the frame's header (static/live_sync.js)
    if (node.nodeType !== 1) { return null; }
    var how = node.getAttribute("hx-swap-oob");
    if (how && how.indexOf("beforeend:#") === 0) {
      var into = document.getElementById(how.slice("beforeend:#".length));
      return isPiece(into) ? { into: into, node: node } : null;
    }
    if (how === "outerHTML" && node.id && node.classList.contains("md-tail")) {
      var old = document.getElementById(node.id);
      return isPiece(old) ? { replace: old, node: node } : null;
    }
    return null;
  }

  // The frame's plan, every element of it a piece of a streamed answer; null otherwise (htmx's job).
  function plan(message) {
    if (typeof message !== "string" || message.indexOf("hx-swap-oob=") < 0) { return null; }
    var template = document.createElement("template");
    template.innerHTML = message;  // inert: nothing in a template runs or loads
    var steps = [];
    var nodes = template.content.childNodes;
    for (var i = 0; i < nodes.length; i++) {
      var step = planFor(nodes[i]);
      if (!step) { return null; }
      if (!step.skip) { steps.push(step); }
    }
    return steps.length ? steps : null;
  }

  // --- the open block rendered again: only what changed is touched ------------------------------------
  // A long list or code block rendered again is mostly what the page already shows. Replacing it whole
  // would lay out every item again; instead the nodes equal from the start are kept, the first one that
  // differs is brought up to date the same way (a text that grew gets what it lacks), and what follows
  // is replaced. The result is the new markup, node for node.

  function sameAttributes(a, b) {
    if (a.attributes.length !== b.attributes.length) { return false; }
    for (var i = 0; i < a.attributes.length; i++) {
      if (b.getAttribute(a.attributes[i].name) !== a.attributes[i].value) { return false; }
    }
    return true;
  }

  function sameShell(a, b) {
    if (a.nodeType === 3 && b.nodeType === 3) { return true; }
    return a.nodeType === 1 && b.nodeType === 1 && a.tagName === b.tagName && sameAttributes(a, b);
  }

  function update(old, fresh) {
    if (old.nodeType === 3) {
      if (fresh.data.lastIndexOf(old.data, 0) === 0) { old.appendData(fresh.data.slice(old.data.length)); }
      else { old.data = fresh.data; }
      return;
    }
    var kept = old.childNodes;
    var coming = fresh.childNodes;
    var i = 0;
    while (i < kept.length && i < coming.length && kept[i].isEqualNode(coming[i])) { i++; }
    if (i < kept.length && i < coming.length && sameShell(kept[i], coming[i])) {
      update(kept[i], coming[i]);
      i++;
    }
    while (kept.length > i) { old.removeChild(old.lastChild); }
    var rest = document.createDocumentFragment();
    while (coming.length > i) { rest.appendChild(coming[i]); }
    old.appendChild(rest);
  }

  function apply(steps) {
    steps.forEach(function (step) {
      step.node.removeAttribute("hx-swap-oob");
      if (step.replace && sameShell(step.replace, step.node)) {
        update(step.replace, step.node);
      } else if (step.replace) {
        step.replace.replaceWith(step.node);
      } else {
        var fragment = document.createDocumentFragment();
        while (step.node.firstChild) { fragment.appendChild(step.node.firstChild); }
        if (step.into.classList.contains("terminal-output")) { appendOutput(step.into, fragment); }
        else { step.into.appendChild(fragment); }
      }
    });
  }

  // A command's output grows a line at a time in one <pre>. Appended there as text, each chunk had the
  // whole output laid out again (1.3 ms a frame at the start of 2,000 lines, 6.8 ms at their end). So what
  // comes after a line ended goes into a block (`terminal-piece`) of at most about PIECE_CHARS, laid out
  // alone, and what continues a line goes where that line is. Blocks of a frame each cost more when the
  // card is rendered whole: htmx cleans up every element it removes (1,600 of them took 70 ms). The text
  // is the same; the card rendered whole (once it changes otherwise, or its output pauses) has it as the
  // one text the full page shows.
  var PIECE_CHARS = 2000;

  function appendOutput(pre, fragment) {
    var last = pre.lastChild;
    var text = !last ? "" : (last.nodeType === 3 ? last.data : last.textContent);
    var inLine = text !== "" && text.charAt(text.length - 1) !== "\n";
    var piece = last && last.nodeType === 1 && last.classList.contains("terminal-piece") ? last : null;
    if (piece && (inLine || text.length < PIECE_CHARS)) {
      piece.appendChild(fragment);
    } else if (inLine) {
      pre.appendChild(fragment);
    } else {
      piece = document.createElement("span");
      piece.className = "terminal-piece";
      piece.appendChild(fragment);
      pre.appendChild(piece);
    }
  }

  // First of every listener (capture, on the document): a frame taken here goes no further, not to
  // htmx nor to the handlers of htmx:wsAfterMessage, which have nothing to do for it.
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var steps = plan(event.detail && event.detail.message);
    if (!steps) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    apply(steps);
    if (root.webclient && root.webclient.followSoon) { root.webclient.followSoon(); }
  }, true);
})(window);
