// The page's sign-in key. Cookies are not kept apart by port: every program serving on 127.0.0.1 that
// this browser visits is sent our cookie, and may overwrite it. So the cookie alone opens nothing. The
// token link hands the page a key of its own, in the fragment of the address it lands on (no server is
// sent a fragment); the page keeps it in its origin's storage, which is kept apart by port, and takes it
// out of the address bar. Every state-changing request carries it as a header, every WebSocket sends it
// as its first message, and a page refused for want of the cookie gives it back to have the cookie set
// again (webclient/web/security.py).
(function (root) {
  "use strict";

  var STORE = "webclient-sign-in-key";
  var RETRIED = "webclient-sign-in-retried";
  var FRAGMENT = "webclient-key=";
  var HEADER = "X-Webclient-Key";
  var NO_KEY_CLOSE = 4401;

  function stored() {
    try { return root.localStorage.getItem(STORE); } catch (e) { return null; }
  }

  /** The key the token link put in the address: kept, and taken out of the address bar. */
  function takeFromAddress() {
    var hash = root.location.hash;
    if (hash.indexOf("#" + FRAGMENT) !== 0) { return; }
    try { root.localStorage.setItem(STORE, hash.slice(1 + FRAGMENT.length)); } catch (e) { /* storage off */ }
    root.history.replaceState(root.history.state, "", root.location.pathname + root.location.search);
  }

  function sameOrigin(input) {
    try {
      var url = new URL(typeof input === "string" ? input : input.url, root.location.href);
      return url.origin === root.location.origin;
    } catch (e) { return false; }
  }

  // Every state-changing request of this page carries the key: fetch is the only way the page's scripts
  // make one (htmx talks over the WebSocket).
  var plainFetch = root.fetch.bind(root);
  root.fetch = function (input, init) {
    var method = ((init && init.method) || (input && input.method) || "GET").toUpperCase();
    var key = stored();
    if (key && method !== "GET" && method !== "HEAD" && sameOrigin(input)) {
      init = Object.assign({}, init);
      var headers = new Headers(init.headers || (typeof input === "string" ? undefined : input.headers));
      headers.set(HEADER, key);
      init.headers = headers;
    }
    return plainFetch(input, init);
  };

  function post(path, body) {
    return root.fetch(path, { method: "POST", body: body, credentials: "same-origin", cache: "no-store" });
  }

  /** Resolves true when the server set the cookie again for the stored key. */
  function renew() {
    var key = stored();
    if (!key) { return Promise.resolve(false); }
    return post("/auth/renew", key).then(function (response) { return response.status === 204; },
                                          function () { return false; });
  }

  root.webclient = root.webclient || {};
  root.webclient.signInKey = { renew: renew, stored: stored };

  takeFromAddress();

  // A WebSocket's first message is the key, before anything the page sends on it (this listener is
  // registered before every other script's, and a socket's queued messages go after its open event).
  root.document.addEventListener("htmx:wsOpen", function (event) {
    var socket = event.detail.event.target;
    socket.send(JSON.stringify({ webclient_key: stored() || "" }));
  });
  root.document.addEventListener("htmx:wsClose", function (event) {
    if (event.detail.event.code === NO_KEY_CLOSE) { root.location.assign("/auth/no-key"); }
  });

  // The page refused for want of the cookie: get it back and load the page again, once (a key from an
  // earlier start of the server is refused, and the page then stays, saying what to do).
  var refused = root.document.querySelector('[data-role="sign-in-renewal"]');
  if (refused) {
    var last = Number(root.sessionStorage.getItem(RETRIED) || 0);
    if (Date.now() - last > 10000) {
      renew().then(function (renewed) {
        if (!renewed) { return; }
        root.sessionStorage.setItem(RETRIED, String(Date.now()));
        root.location.reload();
      });
    }
  }
})(window);
