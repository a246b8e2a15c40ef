// The suggestions playground (templates/playground/page.html): a file opened into the input, and the share
// link, which carries the input in its fragment (#v=1&t=...&types=...), never in a request. Opening such a
// link fills the form and shows it. Does nothing on any other page.
(function () {
  "use strict";
  // A shared input longer than this is filled in but shown only when the user asks (press Show).
  const LARGE_SHARED_CHARS = 200000;
  function start() {
  const form = document.querySelector('[data-role="playground-form"]');
  if (!form) return;
  const input = form.querySelector('[data-role="playground-input"]');
  const share = form.querySelector('[data-role="playground-share"]');
  const file = form.querySelector('[data-action="playground-file"]');

  function encode(text) {
    const bytes = new TextEncoder().encode(text);
    let binary = "";
    bytes.forEach(function (b) { binary += String.fromCharCode(b); });
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function decode(value) {
    const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder().decode(Uint8Array.from(binary, function (c) { return c.charCodeAt(0); }));
  }
  function types() {
    return Array.from(form.querySelectorAll('input[name="types"]:checked')).map(function (box) { return box.value; });
  }
  function fragment() {
    const params = new URLSearchParams({ v: "1", t: encode(input.value), types: types().join(",") });
    return "#" + params.toString();
  }
  function updateShare() {
    if (!input.value.trim()) { share.hidden = true; return; }
    share.href = "/playground" + fragment();
    share.hidden = false;
  }

  form.addEventListener("input", updateShare);
  form.addEventListener("change", updateShare);
  // Posted with fetch: the page's no-referrer policy would make a plain form post say `Origin: null`,
  // which the server refuses; this request names its origin (same-origin only).
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const button = event.submitter;
    const target = (button && button.getAttribute("formaction")) || form.getAttribute("action");
    const body = new URLSearchParams(new FormData(form));
    history.replaceState(null, "", fragment());
    fetch(target, { method: "POST", body: body, referrerPolicy: "same-origin", credentials: "same-origin" })
      .then(function (response) {
        if (response.redirected) { location.assign(response.url); return null; }
        return response.text();
      })
      .then(function (html) {
        if (html === null) return;
        const fresh = new DOMParser().parseFromString(html, "text/html").querySelector('[data-role="playground"]');
        const current = document.querySelector('[data-role="playground"]');
        if (!fresh || !current) return;
        current.replaceWith(fresh);
        start();  // the new form: wire it again
      });
  });
  file.addEventListener("change", function () {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    chosen.text().then(function (text) { input.value = text; updateShare(); });
  });

  const params = new URLSearchParams(location.hash.slice(1));
  const rendered = form.closest('[data-role="playground"]').dataset.rendered === "true" || form.dataset.error === "true";
  if (params.get("v") === "1" && params.get("t") && !rendered) {
    try {
      input.value = decode(params.get("t"));
    } catch (error) {
      input.value = "";  // a damaged link: the empty form says what to paste
      return;
    }
    const wanted = (params.get("types") || "").split(",");
    form.querySelectorAll('input[name="types"]').forEach(function (box) { box.checked = wanted.indexOf(box.value) >= 0; });
    if (input.value.length > LARGE_SHARED_CHARS) {
      // A big link is not sent by itself: opening a link must not cost the server seconds unasked.
      const large = form.querySelector('[data-role="playground-large"]');
      large.querySelector('[data-role="playground-large-size"]').textContent = input.value.length.toLocaleString("en");
      large.hidden = false;
      updateShare();
      return;
    }
    form.requestSubmit();
    return;
  }
  updateShare();
  }
  start();
})();
