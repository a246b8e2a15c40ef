// Staying signed in when another server on this machine overwrites the cookie. Cookies are not kept
// apart by port: any program serving on 127.0.0.1 can set a cookie of our name (or push ours out with
// many of its own), and the next page of ours would answer "not signed in". The origin's storage is
// kept apart by port, so a signed-in page keeps the cookie's value there as a key, and a page refused
// for want of the cookie gives the key back to have it set again (webclient/web/security.py).
(function (root) {
  "use strict";

  var STORE = "webclient-sign-in-key";
  var RETRIED = "webclient-sign-in-retried";

  function stored() {
    try { return root.localStorage.getItem(STORE); } catch (e) { return null; }
  }

  function post(path, body) {
    return root.fetch(path, { method: "POST", body: body, credentials: "same-origin", cache: "no-store" });
  }

  /** Keep this page's key in the origin's storage (a signed-in page does it once it loads). */
  function remember() {
    return post("/auth/key", "")
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (key) {
        if (key) { try { root.localStorage.setItem(STORE, key); } catch (e) { /* storage off: no renewal */ } }
      }, function () {});
  }

  /** Resolves true when the server set the cookie again for the stored key. */
  function renew() {
    var key = stored();
    if (!key) { return Promise.resolve(false); }
    return post("/auth/renew", key).then(function (response) { return response.status === 204; },
                                          function () { return false; });
  }

  root.webclient = root.webclient || {};
  root.webclient.signInKey = { remember: remember, renew: renew };

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
  } else {
    remember();  // a page of the app: signed in, or it would not have loaded
  }
})(window);
