// Attachments for the user's own prompts: the `@` file picker and images (chosen or pasted).
// The server finds files and renders the picker and the pills; this file only asks, moves the selection
// and reads an image the user chose into base64. It never builds markup from data.
(function () {
  "use strict";

  var FIND_DELAY_MS = 120;
  var findTimer = null;
  var lastQuery = null;

  function byId(id) { return document.getElementById(id); }
  function composer() { return byId("composer"); }
  function picker() { return byId("file-picker"); }
  function options() {
    return Array.prototype.slice.call(document.querySelectorAll('#file-picker [data-action="file-option"]'));
  }
  function pickerOpen() { var p = picker(); return !!p && !p.hidden; }

  // The `@word` that ends just before the caret, if any.
  function mention() {
    var box = composer();
    var before = box.value.slice(0, box.selectionStart);
    var match = /(^|\s)@([^\s@]*)$/.exec(before);
    return match ? { query: match[2], start: before.length - match[2].length - 1 } : null;
  }

  function closePicker() {
    var p = picker();
    if (p) { p.hidden = true; }
    lastQuery = null;
  }

  function ask(query) {
    if (query === lastQuery) { return; }
    lastQuery = query;
    window.webclient.call("find", { query: query });
  }

  document.addEventListener("input", function (event) {
    if (event.target !== composer()) { return; }
    var found = mention();
    window.clearTimeout(findTimer);
    if (!found) { closePicker(); return; }
    findTimer = window.setTimeout(function () { ask(found.query); }, FIND_DELAY_MS);
  });

  function active() {
    return options().filter(function (o) { return o.getAttribute("aria-selected") === "true"; })[0] || null;
  }

  function move(step) {
    var list = options();
    if (!list.length) { return; }
    var i = list.indexOf(active());
    var next = list[(i + step + list.length) % list.length];
    list.forEach(function (o) { o.setAttribute("aria-selected", o === next ? "true" : "false"); });
    next.scrollIntoView({ block: "nearest" });
  }

  function choose(option) {
    var box = composer();
    var found = mention();
    if (found) {
      // Take the `@query` out of the text: the file's token goes in its place once the server holds it
      // (static/composer.js puts it there), so the link stands where it was typed.
      box.value = box.value.slice(0, found.start) + box.value.slice(box.selectionStart);
      box.setSelectionRange(found.start, found.start);
      box.setAttribute("data-insert-at", String(found.start));
    }
    closePicker();
    window.webclient.call("attach-file", { path: option.getAttribute("data-path") });
    box.focus();
  }

  // First in the keymap (static/keymap.js): while the picker is open, its keys come before Enter-sends,
  // the slash menu and the suggestions.
  var keymap = window.webclient.keymap;
  keymap.register("file-picker", function (event) {
    if (event.target !== composer() || !pickerOpen()) { return keymap.PASS; }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      move(event.key === "ArrowDown" ? 1 : -1);
    } else if ((event.key === "Enter" || event.key === "Tab") && active()) {
      choose(active());
    } else if (event.key === "Escape") {
      closePicker();
    } else {
      return keymap.PASS;
    }
    return keymap.STOP;
  });

  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest('#file-picker [data-action="file-option"]');
    if (option) { choose(option); }
  });

  // The picker came back from the server: drop it if the user has moved on meanwhile.
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (pickerOpen() && !mention()) { closePicker(); }
    window.webclient.composer.syncPills();
  });

  // Images: chosen with the button or pasted into the message.
  function sendImage(file) {
    if (!file || !/^image\//.test(file.type)) { return; }
    var reader = new FileReader();
    reader.onload = function () {
      var url = String(reader.result);
      window.webclient.call("attach-image", { mime_type: file.type, data: url.slice(url.indexOf(",") + 1) });
    };
    reader.readAsDataURL(file);
  }

  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "image-input") {
      sendImage(event.target.files && event.target.files[0]);
      event.target.value = "";
    }
  });

  document.addEventListener("paste", function (event) {
    if (event.target !== composer() || !event.clipboardData) { return; }
    var label = document.querySelector('[data-action="attach-image"]');
    if (!label || label.hidden) { return; }  // this agent takes no images
    var items = Array.prototype.slice.call(event.clipboardData.items || []);
    var image = items.filter(function (i) { return i.kind === "file" && /^image\//.test(i.type); })[0];
    if (image) {
      event.preventDefault();
      sendImage(image.getAsFile());
    }
  });
})();
