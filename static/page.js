// The page around the conversation: connection state, following the conversation, the welcome's
// starters, the draft kept across reloads, and the phone's drawers. Never builds markup from data: every
// text it shows is already in the page (templates/_connection.html), it only picks one.
(function () {
  "use strict";

  function byId(id) { return document.getElementById(id); }
  function composer() { return byId("composer"); }
  function scroller() { return byId("conversation"); }
  function body() { return document.body; }

  // --- connection ------------------------------------------------------------------------------------
  // "open" while the WebSocket is up; "down" while it is not (htmx's ws extension retries with backoff);
  // "expired" when the server answers but no longer knows this tab (it restarted: new token, new cookie).

  var MAX_DELAY_MS = 30000;
  var connection = { state: "connecting", socket: null, current: null, retryAt: 0, timer: null };

  // Exponential backoff with jitter, capped; remembered so the banner can say when the next try is.
  window.htmx && (window.htmx.config.wsReconnectDelay = function (retryCount) {
    var ceiling = Math.min(MAX_DELAY_MS, 1000 * Math.pow(2, Math.min(retryCount, 5)));
    var delay = ceiling / 2 + Math.random() * ceiling / 2;
    connection.retryAt = Date.now() + delay;
    return delay;
  });

  // Buttons that would act on the server; while it is unreachable they are disabled (and put back after).
  var ACTING = '[data-action="send"], [data-action="suggestion"], [data-action="suggestion-edit"], ' +
    '[data-role="permission"] button, [data-action="new-session"], [data-action="load-session"], ' +
    '[data-action="resume-session"], [data-action="close-session"], [data-action="restart"], ' +
    '[data-action="cancel"], [data-action="starter"], #session-header select, #session-header input, ' +
    '[data-action="waiting-edit"], [data-action="waiting-cancel"]';

  function setActingDisabled(off) {
    document.querySelectorAll(ACTING).forEach(function (el) {
      if (off && !el.disabled) { el.disabled = true; el.setAttribute("data-offline", "true"); }
      if (!off && el.getAttribute("data-offline") === "true") { el.disabled = false; el.removeAttribute("data-offline"); }
    });
  }

  // The sidebar's sessions say "offline" too while the tab cannot know their state; each word comes back
  // with the connection (a snapshot after it renders them again anyway).
  function setSidebarOffline(off) {
    document.querySelectorAll(".session-status").forEach(function (el) {
      var label = el.lastChild;
      if (!label || label.nodeType !== 3) { return; }
      if (off && !el.hasAttribute("data-was")) {
        el.setAttribute("data-was", label.textContent);
        label.textContent = "offline";
      } else if (!off && el.hasAttribute("data-was")) {
        label.textContent = el.getAttribute("data-was");
        el.removeAttribute("data-was");
      }
    });
  }

  function setConnection(state) {
    connection.state = state;
    var banner = byId("connection");
    body().setAttribute("data-connection", state);
    if (banner) {
      banner.setAttribute("data-state", state);
      banner.hidden = state === "open" || state === "connecting";
    }
    setActingDisabled(state === "down" || state === "expired");
    // Without its connection the tab cannot know what the agent does: the badge says so, not "ready"
    // (the next snapshot after a reconnect renders it again).
    var badge = byId("agent-status");
    if (badge && (state === "down" || state === "expired")) {
      badge.textContent = state === "down" ? "offline" : "out of date";
    }
    setSidebarOffline(state === "down" || state === "expired");
    window.clearInterval(connection.timer);
    connection.timer = null;
    if (state === "down") {
      showRetry();
      connection.timer = window.setInterval(showRetry, 500);
    }
  }

  function showRetry() {
    var banner = byId("connection");
    if (!banner) { return; }
    var seconds = Math.max(0, Math.ceil((connection.retryAt - Date.now()) / 1000));
    banner.setAttribute("data-retry", seconds > 0 ? "later" : "now");
    var out = banner.querySelector(".retry-seconds");
    if (out) { out.textContent = String(seconds); }
  }

  // Is it the network, or a server that no longer knows us? A 401 on our own page means the latter,
  // unless our key gets the cookie set again (another server on this machine overwrote it).
  function probe() {
    return window.fetch(window.location.pathname, { method: "HEAD", cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status !== 401) { return "reachable"; }
        return window.webclient.signInKey.renew().then(function (renewed) { return renewed ? "reachable" : "expired"; });
      }, function () { return "unreachable"; });
  }

  function socketOf(event) {
    var d = event.detail || {};
    var e = d.event || d.error;
    return e && e.target ? e.target : null;
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    connection.socket = event.detail && event.detail.socketWrapper;
    connection.current = socketOf(event);
    setConnection("open");
  });
  function lost(event) {
    if (event.detail && event.detail.socketWrapper) { connection.socket = event.detail.socketWrapper; }
    // "Reconnect now" replaces the socket: the old one closing later is not a lost connection.
    var closed = socketOf(event);
    var current = connection.current;
    if (closed && current && closed !== current && current.readyState === window.WebSocket.OPEN) { return; }
    if (connection.state === "expired" || window.webclient.leaving) { return; }
    setConnection("down");
    probe().then(function (verdict) { if (verdict === "expired") { setConnection("expired"); } });
  }
  document.addEventListener("htmx:wsClose", lost);
  document.addEventListener("htmx:wsError", lost);

  // Nothing is queued while the connection is down: a prompt must not leave minutes later, unseen.
  document.addEventListener("htmx:wsConfigSend", function (event) {
    if (connection.state === "down" || connection.state === "expired") { event.preventDefault(); }
  });

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : null;
    if (!target) { return; }
    if (target.closest('[data-action="reconnect"]')) {
      connection.retryAt = 0;
      showRetry();
      probe().then(function (verdict) {
        if (verdict === "expired") { setConnection("expired"); }
        else if (verdict === "reachable" && connection.socket) { connection.socket.reconnect(); }
      });
    } else if (target.closest('[data-action="reload"]')) {
      window.location.reload();
    }
  });

  // --- follow the conversation -----------------------------------------------------------------------
  // Pinned to the bottom while the user is there; scrolled up, new content shows the "Latest" button.

  var PINNED_SLACK = 80;
  var pinned = true;
  var placedAt = 0;  // where following last put the scroll position

  function atBottom(el) { return el.scrollHeight - el.scrollTop - el.clientHeight < PINNED_SLACK; }

  // While pinned, the browser's scroll anchoring is off (data-following, static/app.css): a card above
  // that shrinks (a permission once answered) would otherwise move the view up before the next follow,
  // which reads as the reader scrolling away. A reader scrolled up keeps anchoring, and their place.
  function setPinned(el, value) {
    pinned = value;
    var following = value ? "true" : "false";
    if (el.getAttribute("data-following") !== following) { el.setAttribute("data-following", following); }
  }
  function jump() { return document.querySelector('[data-action="jump-latest"]'); }

  function hasEntries() { var t = byId("transcript"); return !!t && t.children.length > 0; }

  function toBottom() {
    var el = scroller();
    if (!el) { return; }
    // An empty session shows its welcome from the top; a conversation from its latest entry.
    el.scrollTop = hasEntries() ? el.scrollHeight : 0;
    placedAt = el.scrollTop;
    setPinned(el, true);
    var button = jump();
    if (button) { button.hidden = true; }
  }

  function follow() {
    var el = scroller();
    if (!el) { return; }
    if (pinned) { toBottom(); return; }
    var button = jump();
    if (button && !atBottom(el)) { button.hidden = false; }
  }

  document.addEventListener("scroll", function (event) {
    if (event.target !== scroller()) { return; }
    // The scroll event of our own move comes a frame later, when more may have arrived below: only a
    // move up from where following put it (the reader's) unpins.
    var el = scroller();
    setPinned(el, atBottom(el) || (pinned && el.scrollTop >= placedAt - 1));
    if (pinned && jump()) { jump().hidden = true; }
  }, { capture: true, passive: true });

  // Once an animation frame, however many updates came: following reads the layout, and reading it
  // after each of hundreds of chunks a second would lay the page out for each (static/stream.js).
  var followDue = false;
  function followSoon() {
    if (followDue) { return; }
    followDue = true;
    window.requestAnimationFrame(function () { followDue = false; follow(); });
  }
  window.webclient.followSoon = followSoon;
  document.addEventListener("htmx:wsAfterMessage", followSoon);
  // The view also changes size with no message: the suggestions below are folded to what fits a frame
  // after they arrive, the header fits itself, the phone's keyboard opens. A pinned reader stays at the
  // bottom through all of it; a message alone would leave them a suggestion row's height above it.
  function followResizes() {
    var view = scroller();
    if (!view || !window.ResizeObserver) { return; }
    new window.ResizeObserver(function () { if (pinned) { followSoon(); } }).observe(view);
  }
  // Sending a prompt (typed, a chip or a starter's) is the user moving on: show what it brings.
  document.addEventListener("htmx:wsAfterSend", function (event) {
    var elt = event.target;
    if (elt && (elt.id === "composer-form" || window.webclient.isCall(elt, "suggestion") ||
                (elt.getAttribute && elt.getAttribute("data-action") === "suggestion"))) {
      toBottom();
    }
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest('[data-action="jump-latest"]')) {
      toBottom();
      var box = composer();
      if (box) { box.focus({ preventScroll: true }); }
    }
  });

  // --- draft -------------------------------------------------------------------------------------------
  // What the user is typing survives a reload (per session page), and goes once the prompt is sent.

  function draftKey(path) { return "webclient.draft:" + (path || window.location.pathname); }
  // A page that opens another with text for its composer (a stored copy's "Copy into a new session").
  window.webclient.keepDraft = function (path, text) {
    try { window.localStorage.setItem(draftKey(path), text); } catch (e) { /* not kept: an empty box */ }
  };
  function saveDraft() {
    var box = composer();
    if (!box) { return; }
    try {
      if (box.value) { window.localStorage.setItem(draftKey(), box.value); }
      else { window.localStorage.removeItem(draftKey()); }
    } catch (e) { /* storage unavailable: the draft is simply not kept */ }
  }
  function restoreDraft() {
    var box = composer();
    var saved = null;
    try { saved = window.localStorage.getItem(draftKey()); } catch (e) { saved = null; }
    if (box && saved && !box.value) {
      box.value = saved;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }
  document.addEventListener("input", function (event) { if (event.target === composer()) { saveDraft(); } });
  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "composer-form") {
      try { window.localStorage.removeItem(draftKey()); } catch (e) { /* nothing kept */ }
    }
  });

  // --- welcome -----------------------------------------------------------------------------------------
  // A starter puts its prompt into the composer; the user reads it and sends it.

  document.addEventListener("click", function (event) {
    var starter = event.target.closest && event.target.closest('[data-action="starter"]');
    var box = composer();
    if (!starter || !box) { return; }
    var text = starter.getAttribute("data-prompt") || "";
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    box.focus();
    box.setSelectionRange(text.length, text.length);
  });

  // --- phone: sessions drawer and header menu ---------------------------------------------------------

  var TOGGLES = {
    drawer: '[data-action="sessions-toggle"]', menu: '[data-action="header-menu"]',
    options: '[data-action="composer-options"]'
  };

  function setPanel(name, open) {
    body().setAttribute("data-" + name, open ? "open" : "closed");
    var toggle = document.querySelector(TOGGLES[name]);
    if (toggle) { toggle.setAttribute("aria-expanded", open ? "true" : "false"); }
  }
  function isOpen(name) { return body().getAttribute("data-" + name) === "open"; }

  document.addEventListener("click", function (event) {
    var t = event.target.closest ? event.target : null;
    if (!t) { return; }
    if (t.closest('[data-action="sessions-toggle"]')) {
      setPanel("drawer", !isOpen("drawer"));
      if (isOpen("drawer")) {
        var first = document.querySelector("#sidebar a, #sidebar button");
        if (first) { first.focus(); }
      }
    } else if (t.closest('[data-action="drawer-scrim"]')) {
      setPanel("drawer", false);
    } else if (t.closest('[data-action="header-menu"]')) {
      setPanel("menu", !isOpen("menu"));
    } else if (isOpen("menu") && (!t.closest("#header-extra") || t.closest('[data-action="inspector-toggle"]'))) {
      setPanel("menu", false);  // a click elsewhere, or opening the inspector, closes the menu
    }
    // The composer's options (a menu on a phone): its button opens and closes it, a click elsewhere closes it.
    if (t.closest('[data-action="composer-options"]')) {
      setPanel("options", !isOpen("options"));
    } else if (isOpen("options") && !t.closest("#composer-options")) {
      setPanel("options", false);
    }
  });
  // Escape closes them, last in the keymap (static/keymap.js): after a menu or the suggestions had it.
  window.webclient.keymap.register("panels", function (event) {
    if (event.key !== "Escape") { return window.webclient.keymap.PASS; }
    if (isOpen("drawer")) { setPanel("drawer", false); var s = document.querySelector('[data-action="sessions-toggle"]'); if (s) { s.focus(); } }
    if (isOpen("menu")) { setPanel("menu", false); }
    if (isOpen("options")) {
      setPanel("options", false);
      var o = document.querySelector(TOGGLES.options);
      if (o) { o.focus(); }
    }
    return window.webclient.keymap.PASS;
  });

  // --- touch -------------------------------------------------------------------------------------------
  // Keyboard hints ("Enter sends, Shift+Enter ...") mean nothing on a touch screen.

  function adaptToTouch() {
    var touch = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
    body().setAttribute("data-touch", touch ? "true" : "false");
    var box = composer();
    if (box && touch) { box.setAttribute("placeholder", "Message the agent"); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    adaptToTouch();
    restoreDraft();
    toBottom();  // a reload opens at the latest, not at the top
    followResizes();
  });
})();
