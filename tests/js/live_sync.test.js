// The page's side of staying in step with the server (static/live_sync.js): each frame's number checked,
// a gap or a digest other than the page's own asks for a snapshot, and the frames before it are dropped.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const sync = require(path.join(__dirname, "..", "..", "static", "live_sync.js"));

function frame(seq, extra) { return "<!--seq " + seq + (extra || "") + "-->"; }

function run(tracker, frames) {
  return frames.map((f) => tracker.decide(sync.parseHeader(f)));
}

test("a header is read from the start of a frame: number, snapshot, digest", () => {
  assert.deepEqual(sync.parseHeader(frame(7) + "<div></div>"), { seq: 7, snapshot: false, digest: null });
  assert.deepEqual(sync.parseHeader(frame(1, " snapshot") + "<x>"), { seq: 1, snapshot: true, digest: null });
  assert.deepEqual(sync.parseHeader(frame(9, " digest ready|3|0|msg-1")),
    { seq: 9, snapshot: false, digest: "ready|3|0|msg-1" });
  assert.equal(sync.parseHeader("<div>no header</div>"), null);
  assert.equal(sync.parseHeader("<div><!--seq 3--></div>"), null);  // only at the very start
});

test("frames in order are applied", () => {
  const tracker = new sync.Tracker();
  assert.deepEqual(run(tracker, [frame(1, " snapshot"), frame(2), frame(3)]), ["apply", "apply", "apply"]);
});

test("a gap asks for a snapshot once, the frames before the snapshot are skipped, and after it all is well", () => {
  const tracker = new sync.Tracker();
  const verdicts = run(tracker, [frame(1, " snapshot"), frame(2), frame(4), frame(5), frame(6, " snapshot"), frame(7)]);
  assert.deepEqual(verdicts, ["apply", "apply", "gap", "skip", "apply", "apply"]);
});

test("a duplicate frame is dropped, not applied twice", () => {
  const tracker = new sync.Tracker();
  assert.deepEqual(run(tracker, [frame(1, " snapshot"), frame(2), frame(2), frame(1), frame(3)]),
    ["apply", "apply", "duplicate", "duplicate", "apply"]);
});

test("after a reconnect the numbers start again at the new connection's snapshot", () => {
  const tracker = new sync.Tracker();
  run(tracker, [frame(1, " snapshot"), frame(2), frame(3)]);
  tracker.reset();
  assert.deepEqual(run(tracker, [frame(1, " snapshot"), frame(2)]), ["apply", "apply"]);
});

test("a frame after a reconnect that is not the snapshot's successor is a gap", () => {
  const tracker = new sync.Tracker();
  run(tracker, [frame(1, " snapshot"), frame(2)]);
  tracker.reset();
  assert.deepEqual(run(tracker, [frame(2)]), ["gap"]);
});

test("a digest that disagrees makes the page wait for a snapshot", () => {
  const tracker = new sync.Tracker();
  run(tracker, [frame(1, " snapshot")]);
  tracker.diverged();
  assert.deepEqual(run(tracker, [frame(2), frame(3, " snapshot"), frame(4)]), ["skip", "apply", "apply"]);
});

function element(id, attrs, local) {
  return {
    id,
    getAttribute: (name) => (name === "data-local" ? (local ? "true" : null) : (attrs || {})[name] ?? null),
  };
}

function page(entries, status, generation, count) {
  const items = entries.map((e, i) => ({ ...e, index: i }));
  items.forEach((e, i) => { e.previousElementSibling = items[i - 1] || null; });
  const byId = {
    "agent-status": element("agent-status", { "data-state": status }),
    suggestions: element("suggestions", { "data-generation": String(generation), "data-count": String(count) }),
    transcript: { lastElementChild: items[items.length - 1] || null },
  };
  return { getElementById: (id) => byId[id] || null };
}

test("the page's digest reads the badge, the list on offer and the last entry, skipping notes to this tab", () => {
  const doc = page([element("msg-1"), element("msg-2"), element("notice-9", {}, true)], "ready", 4, 2);
  assert.equal(sync.pageDigest(doc), "ready|4|2|msg-2");
  assert.equal(sync.pageDigest(page([], "working", 0, 0)), "working|0|0|none");
});
