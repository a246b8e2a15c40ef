// The page stays in step with the server (webclient/views/live_sync.py). Every frame starts with a
// numbered header, `<!--seq 12-->`; a snapshot's says `snapshot`, and a frame that only tells what the
// page should show by now carries `digest D`. A number missing (a frame lost on the way) or a digest other
// than the page's own: the page asks for a fresh snapshot, quietly, and ignores the frames before it.
// Nothing is shown to the user: the snapshot brings the page to the session as it is.
(function (root) {
  "use strict";

  var HEADER = /^<!--seq (\d+)( snapshot)?(?: digest (\S+))?-->/;
  var ASK_AGAIN_MS = 2000;  // a request for a snapshot that brought none (itself lost) is made again

  function parseHeader(message) {
    var m = typeof message === "string" ? HEADER.exec(message) : null;
    return m ? { seq: Number(m[1]), snapshot: !!m[2], digest: m[3] || null } : null;
  }

  // What to do with each frame of one connection: "apply" it, drop a "duplicate", "skip" one that came
  // while a snapshot is awaited, or, at a "gap", ask for a snapshot (and drop the frame).
  function Tracker() { this.reset(); }
  Tracker.prototype.reset = function () { this.last = 0; this.awaiting = false; };
  Tracker.prototype.decide = function (header) {
    if (!header) { return "apply"; }
    if (header.seq <= this.last) { return "duplicate"; }
    var next = header.seq === this.last + 1;
    this.last = header.seq;
    if (header.snapshot) { this.awaiting = false; return "apply"; }
    if (this.awaiting) { return "skip"; }
    if (!next) { this.awaiting = true; return "gap"; }
    return "apply";
  };
  // The page's own digest disagreed with the server's: a snapshot is awaited from now on.
  Tracker.prototype.diverged = function () { this.awaiting = true; };

  function safe(word) { return String(word).replace(/[^A-Za-z0-9_.:-]/g, "_").replace(/--/g, "_"); }

  // The same few words the server's digest has, read from the page: the badge's state, the suggestion
  // list's generation and length, and the last transcript entry of the session (not a note to this tab).
  function pageDigest(doc) {
    var status = doc.getElementById("agent-status");
    var offer = doc.getElementById("suggestions");
    var transcript = doc.getElementById("transcript");
    var last = "none";
    var entry = transcript ? transcript.lastElementChild : null;
    while (entry && entry.getAttribute("data-local") === "true") { entry = entry.previousElementSibling; }
    if (entry && entry.id) { last = entry.id; }
    return [
      status ? status.getAttribute("data-state") : "",
      offer ? offer.getAttribute("data-generation") : "",
      offer ? offer.getAttribute("data-count") : "",
      last
    ].map(safe).join("|");
  }

  var api = { parseHeader: parseHeader, Tracker: Tracker, pageDigest: pageDigest };
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (!root.document) { return; }

  var tracker = new Tracker();
  var socket = null;
  var askTimer = null;
  root.webclient = root.webclient || {};
  root.webclient.liveSync = { resyncs: 0 };

  function ask(reason) {
    root.clearTimeout(askTimer);
    if (!socket) { return; }
    root.webclient.liveSync.resyncs += 1;
    document.body.setAttribute("data-resyncs", String(root.webclient.liveSync.resyncs));
    var message = { action: "resync", reason: reason, seen: pageDigest(document).slice(0, 300) };
    try { socket.sendImmediately(JSON.stringify(message)); } catch (e) { /* closed: it reconnects */ }
    askTimer = root.setTimeout(function () { if (tracker.awaiting) { ask("again"); } }, ASK_AGAIN_MS);
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail && event.detail.socketWrapper;
    tracker.reset();  // a new connection counts from 1, and starts with a snapshot
    document.body.removeAttribute("data-synced");
    root.clearTimeout(askTimer);
  });

  // A snapshot swapped in: the page shows the session as the server has it, and what it rendered before
  // the socket opened has been replaced (a test or a script acts on the page from here on).
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    var header = parseHeader(event.detail && event.detail.message);
    if (header && header.snapshot) { document.body.setAttribute("data-synced", String(header.seq)); }
  });

  // On the window, in the capture phase: before every other handler of the frame (static/stream.js).
  root.addEventListener("htmx:wsBeforeMessage", function (event) {
    var header = parseHeader(event.detail && event.detail.message);
    var verdict = tracker.decide(header);
    if (verdict === "apply" && header && header.snapshot) { root.clearTimeout(askTimer); }
    if (verdict === "apply" && header && header.digest) {  // a digest comes alone: nothing to swap
      if (header.digest === pageDigest(document)) { verdict = "checked"; }
      else { tracker.diverged(); verdict = "digest"; }
    }
    if (verdict === "apply") { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    if (verdict === "gap" || verdict === "digest") { ask(verdict); }
  }, true);
})(typeof window !== "undefined" ? window : globalThis);
