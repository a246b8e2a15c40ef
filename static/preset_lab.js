// The preset lab (templates/presets/lab.html): a knob that changes applies the presets at once. Inside one of
// its previews (templates/presets/preview.html): nothing is sent; what a choice would send is shown
// instead, and "Show as a new list" lets the page take the list as one that just arrived (which starts
// the auto-send countdown when it is on). Does nothing on any other page.
(function (root) {
  "use strict";
  var webclient = root.webclient = root.webclient || {};

  // A knob that changes applies at once (the pasted list applies with Apply, not at every edit).
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest('[data-role="preset-knobs"]');
    if (form && event.target.name !== "paste") { form.requestSubmit(); }
  });

  // Posted with fetch, as the playground's form is: the page's no-referrer policy would make a plain form
  // post say `Origin: null`, which the server refuses. The lab is replaced by the answer, focus kept on
  // the field that had it, and the address keeps the knobs (never the paste) to come back to. Only the
  // last request counts, and what was typed while it ran is carried into the answer: nothing is lost.
  var pending = null;
  var touched = {};
  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest('[data-role="preset-knobs"]');
    if (form && event.target.name) { touched[event.target.name] = true; }
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches('[data-role="preset-knobs"]')) { return; }
    event.preventDefault();
    if (pending) { pending.abort(); }
    var request = pending = new AbortController();
    touched = {};
    var data = new FormData(form, event.submitter || undefined);
    var knobs = new URLSearchParams();
    data.forEach(function (value, key) { if (key !== "paste" && key !== "pick") { knobs.set(key, value); } });
    fetch("/presets", { method: "POST", body: new URLSearchParams(data), referrerPolicy: "same-origin",
                        credentials: "same-origin", signal: request.signal })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        if (pending !== request) { return; }
        pending = null;
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector('[data-role="preset-lab"]');
        var current = document.querySelector('[data-role="preset-lab"]');
        if (!fresh || !current) { return; }
        var focused = document.activeElement && document.activeElement.name;
        var live = document.importNode(fresh, true);
        current.replaceWith(live);
        Object.keys(touched).forEach(function (name) {
          var was = current.querySelector('[data-role="preset-knobs"] [name="' + name + '"]');
          var now = live.querySelector('[data-role="preset-knobs"] [name="' + name + '"]');
          if (was && now) { now.value = was.value; }
        });
        history.replaceState(null, "", "/presets?" + knobs.toString());
        var again = focused && document.querySelector('[data-role="preset-knobs"] [name="' + focused + '"]');
        if (again) { again.focus(); }
      })
      .catch(function () { return null; });  // aborted: a newer request replaces the lab
  });

  // The previews focus their composers as the page does; the lab itself stays at its top.
  document.addEventListener("DOMContentLoaded", function () {
    if (!preview()) { return; }
    if (document.activeElement) { document.activeElement.blur(); }
    // The list the preview opened with is what a page's first frame is: taken as it stands, never "new".
    document.dispatchEvent(new CustomEvent("htmx:wsAfterMessage"));
  });
  root.addEventListener("load", function () {
    if (document.querySelector('[data-role="preset-knobs"]')) { root.scrollTo(0, 0); }
  });

  function preview() { return document.body && document.body.getAttribute("data-role") === "preset-preview"; }
  function show(text) {
    var out = document.querySelector('[data-role="preset-would-send"]');
    if (out) { out.textContent = text; }
  }
  function chipText(index) {
    var chip = document.querySelector('#suggestions .chip[data-index="' + index + '"]');
    var label = chip && chip.querySelector("[id$='-full']");
    return label ? label.textContent : "";
  }

  // Ahead of the page's handlers: a suggestion shown in full would be sent; a collapsed one opens as usual.
  root.addEventListener("click", function (event) {
    if (!preview() || !event.target.closest) { return; }
    var button = event.target.closest('#suggestions [data-action="suggestion"]');
    if (button && button.getAttribute("data-truncated") !== "true") {
      event.preventDefault();
      event.stopImmediatePropagation();
      show("Would send suggestion " + (Number(button.getAttribute("data-index")) + 1) + ": " + chipText(button.getAttribute("data-index")));
    }
    if (event.target.closest('[data-action="preset-new-list"]')) {
      var row = document.getElementById("suggestions");
      row.setAttribute("data-generation", String(Number(row.getAttribute("data-generation")) + 1));
      document.dispatchEvent(new CustomEvent("htmx:wsAfterMessage"));
    }
  }, true);

  document.addEventListener("submit", function (event) {
    if (!preview()) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    var form = event.target;
    if (webclient.isCall && webclient.isCall(form, "suggestion")) {
      var index = form.querySelector('[name="index"]').value;
      show("Would auto-send suggestion " + (Number(index) + 1) + ": " + chipText(index));
    } else if (form.id === "composer-form") {
      show("Would send: " + document.getElementById("composer").value);
    }
  }, true);
})(window);
