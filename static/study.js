// A presentation study (web/study.py), on a session's page and on a study's report.
//
// Session page: while the server runs a study, its banner is fetched and put at the top of the
// conversation: the invitation (what is recorded and where), "Take part" (the page makes the participant's
// id, kept in this browser; the server assigns a preset and opens a session of the participant's own), and
// on that session the recording indicator with "Stop recording". Only there, and only while it records,
// this file watches what the person does with the lists of suggestions and sends it to the server: shown,
// sent, opened, edited (then sent, with how many characters changed), dismissed, typed_own, auto_sent,
// auto_cancelled, more_opened; each with the list's generation, the suggestion's rank and the time since
// the list showed. Nothing is sent to the agent; nothing is recorded anywhere else.
//
// Report page: "Add events" reads the chosen file and posts it to the study's import.
(function (root) {
  "use strict";

  var PARTICIPANT_KEY = "webclient.studyParticipant";
  var DECLINED_KEY = "webclient.studyDeclined";
  var webclient = root.webclient = root.webclient || {};
  var spare = null;
  var rec = { active: false, gen: null, shownAt: 0, sentGen: null, edit: null, countdownGen: null, autoGen: null };
  var sending = Promise.resolve();
  var queue = [];

  function sessionId() { var m = root.location.pathname.match(/^\/s\/([^/]+)$/); return m ? m[1] : null; }
  function newId() {
    if (root.crypto && root.crypto.randomUUID) { return root.crypto.randomUUID(); }
    return "p-" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }
  function participantId() {
    try {
      var id = root.localStorage.getItem(PARTICIPANT_KEY);
      if (!id) { id = newId(); root.localStorage.setItem(PARTICIPANT_KEY, id); }
      return id;
    } catch (e) { spare = spare || newId(); return spare; }
  }
  function post(path, body, type) {
    return root.fetch(path, {
      // keepalive: the last events still go out when the page is left at once.
      method: "POST", credentials: "same-origin", keepalive: !type,
      headers: { "content-type": type || "application/json" },
      body: type ? body : JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) { throw new Error(data.error || data.detail || ("the server answered " + response.status)); }
        return data;
      });
    });
  }
  function banner() { return document.getElementById("study-banner"); }
  function showError(text) {
    var el = banner() && banner().querySelector('[data-role="study-error"]');
    if (el) { el.textContent = text; el.hidden = false; }
  }

  // --- the banner -------------------------------------------------------------------------------------

  function loadBanner() {
    var id = sessionId();
    // Above the conversation, outside its scrolling: the invitation and the indicator stay in sight.
    var place = document.querySelector(".conversation-wrap");
    if (!id || !place) { return; }
    var query = "?session=" + encodeURIComponent(id) + "&participant=" + encodeURIComponent(participantId());
    root.fetch("/study/banner" + query, { credentials: "same-origin" }).then(function (response) {
      if (response.status !== 200) { return null; }
      return response.text();
    }).then(function (html) {
      if (html === null) { return; }
      var old = banner();
      if (old) { old.remove(); }
      var holder = document.createElement("div");
      holder.innerHTML = html;  // our own template's output, escaped there
      var fresh = holder.firstElementChild;
      var declined = false;
      try { declined = root.sessionStorage.getItem(DECLINED_KEY) === "true"; } catch (e) { declined = false; }
      if (fresh.getAttribute("data-state") === "invite" && declined) { return; }
      place.insertBefore(fresh, place.firstChild);
      startOrStop(fresh);
    }).catch(function () { /* no banner: nothing is recorded */ });
  }

  function startOrStop(el) {
    rec.active = el.getAttribute("data-state") === "recording" && el.getAttribute("data-participant") === participantId();
    rec.gen = null;
    if (rec.active) { check(); }
  }

  var ACTIONS = {
    "study-join": function () {
      post("/study/join", { participant: participantId(), session: sessionId() }).then(function (data) {
        if (data.href === root.location.pathname) { loadBanner(); } else { root.location.assign(data.href); }
      }).catch(function (error) { showError("Could not take part: " + error.message); });
    },
    "study-decline": function () {
      try { root.sessionStorage.setItem(DECLINED_KEY, "true"); } catch (e) { /* private mode */ }
      if (banner()) { banner().remove(); }
    },
    "study-stop": function () {
      rec.active = false;
      flush();
      post("/study/stop", { participant: participantId() }).then(loadBanner)
        .catch(function (error) { showError("Could not stop: " + error.message); });
    },
    "study-import": function (el) {
      var input = document.querySelector('[data-role="study-import-file"]');
      var result = document.querySelector('[data-role="study-import-result"]');
      var file = input && input.files && input.files[0];
      if (!file) { result.textContent = "Choose a CSV or JSON download first."; return; }
      file.text().then(function (text) {
        return post(el.getAttribute("data-href"), text, "text/plain; charset=utf-8");
      }).then(function (data) {
        result.textContent = data.imported + " events added. Reloading the report…";
        root.location.reload();
      }).catch(function (error) { result.textContent = "Not added: " + error.message; });
    }
  };

  document.addEventListener("click", function (event) {
    var el = event.target.closest && event.target.closest("[data-action]");
    var act = el && ACTIONS[el.getAttribute("data-action")];
    if (act) { act(el); }
  });

  // --- recording ----------------------------------------------------------------------------------------

  function row() { return document.getElementById("suggestions"); }
  function generation() { var r = row(); return r ? Number(r.getAttribute("data-generation")) : null; }
  function offered() {
    var r = row();
    return document.body.getAttribute("data-offer") === "shown" && !!r && Number(r.getAttribute("data-count")) > 0;
  }
  function composerText() { var box = document.getElementById("composer"); return box ? box.value : ""; }

  function record(event, rank, distance) {
    if (!rec.active || rec.gen === null) { return; }
    queue.push({
      list: rec.gen, event: event, rank: rank || null, edit_distance: distance === undefined ? null : distance,
      elapsed_ms: Math.max(0, Math.round(root.performance.now() - rec.shownAt))
    });
    root.setTimeout(flush, 0);
  }

  function flush() {
    if (!queue.length) { return; }
    var batch = queue.splice(0, queue.length);
    var body = { participant: participantId(), session: sessionId(), events: batch };
    // One at a time, in order: the report reads the events in the order they happened.
    sending = sending.then(function () { return post("/study/events", body); }).catch(function () { return null; });
  }

  /** A list that shows for the first time starts its clock; one the person hid with Escape is dismissed. */
  function check() {
    if (!rec.active) { return; }
    var gen = generation();
    if (offered()) {
      if (gen !== rec.gen) {
        rec.gen = gen;
        rec.shownAt = root.performance.now();
        record("shown");
      }
      rec.visible = true;
      return;
    }
    if (rec.visible && gen === rec.gen && rec.sentGen !== gen && webclient.composer && webclient.composer.blank()) {
      record("dismissed");
    }
    rec.visible = false;
  }

  function rankOf(el) { return Number(el.getAttribute("data-index")) + 1; }
  function formIndex(form) { var input = form.querySelector('[name="index"]'); return Number(input && input.value) + 1; }

  // On the window, in the capture phase: ahead of the page's own handlers, which open a collapsed suggestion.
  // Enter or Space on the suggestion's button is a click as well (its detail 0): opened from the keyboard,
  // it is recorded as from a mouse.
  root.addEventListener("click", function (event) {
    if (!rec.active || !event.target.closest) { return; }
    var collapsed = event.target.closest('#suggestions [data-action="suggestion"][data-truncated="true"]');
    if (collapsed) { record("opened", rankOf(collapsed)); }
    if (event.target.closest('#suggestions [data-action="suggestions-more"]')) { record("more_opened"); }
  }, true);

  document.addEventListener("htmx:wsConfigSend", function (event) {
    var elt = event.target;
    if (!rec.active || !elt || !elt.getAttribute) { return; }
    if (webclient.isCall(elt, "suggestion")) {
      rec.sentGen = rec.autoGen = rec.gen;
      record("auto_sent", formIndex(elt));
    } else if (elt.getAttribute("data-action") === "suggestion") {
      rec.sentGen = rec.gen;
      record("sent", rankOf(elt));
    } else if (webclient.isCall(elt, "edit")) {
      var rank = formIndex(elt);
      var chip = document.querySelector('#suggestions .chip[data-index="' + (rank - 1) + '"]');
      rec.edit = { gen: rec.gen, rank: rank, text: chip ? chip.getAttribute("data-text") || "" : "" };
    } else if (elt.id === "composer-form" && composerText().trim()) {
      if (rec.edit && rec.edit.gen === rec.gen) {
        rec.sentGen = rec.gen;
        record("edited", rec.edit.rank, distance(rec.edit.text, composerText()));
      } else if (rec.gen !== null && rec.sentGen !== rec.gen) {
        rec.sentGen = rec.gen;
        record("typed_own");
      }
      rec.edit = null;
    }
  });

  /** How many characters were inserted, deleted or replaced to turn `a` into `b` (Levenshtein). */
  function distance(a, b) {
    a = a.slice(0, 2000); b = b.slice(0, 2000);
    var previous = [];
    for (var j = 0; j <= b.length; j++) { previous.push(j); }
    for (var i = 1; i <= a.length; i++) {
      var current = [i];
      for (var k = 1; k <= b.length; k++) {
        var cost = a.charAt(i - 1) === b.charAt(k - 1) ? 0 : 1;
        current.push(Math.min(previous[k] + 1, current[k - 1] + 1, previous[k - 1] + cost));
      }
      previous = current;
    }
    return previous[b.length];
  }

  function watchCountdown() {
    var note = document.getElementById("auto-send-countdown");
    if (!note) { return; }
    new MutationObserver(function () {
      if (!note.hidden) { rec.countdownGen = rec.gen; return; }
      if (rec.countdownGen !== null && rec.autoGen !== rec.countdownGen) { record("auto_cancelled"); }
      rec.countdownGen = null;
    }).observe(note, { attributes: true, attributeFilter: ["hidden"] });
  }

  document.addEventListener("htmx:wsAfterMessage", check);
  document.addEventListener("DOMContentLoaded", function () {
    new MutationObserver(check).observe(document.body, { attributes: true, attributeFilter: ["data-offer"] });
    watchCountdown();
    loadBanner();
  });
  root.addEventListener("pagehide", flush);

  webclient.study = { distance: distance };
})(window);
