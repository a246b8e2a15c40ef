// The rules for offering and auto-sending suggestions (static/suggestion_policy.js), checked directly.
// Run with `node --test tests/js`; tests/test_js.py runs them as part of the Python suite.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const policy = require(path.join(__dirname, "..", "..", "static", "suggestion_policy.js"));

const LIST = { count: 2, generation: "5", sentGeneration: null, dismissedGeneration: null, composerBlank: true };

test("a new list over an empty composer is offered", () => {
  assert.deepEqual(policy.offer(LIST), { shown: true, restorable: false });
});

test("no list, or a list already answered by a prompt, is not offered nor restorable", () => {
  assert.deepEqual(policy.offer({ ...LIST, count: 0 }), { shown: false, restorable: false });
  assert.deepEqual(policy.offer({ ...LIST, sentGeneration: "5" }), { shown: false, restorable: false });
});

test("a dismissed list hides and can be brought back while the composer is empty", () => {
  assert.deepEqual(policy.offer({ ...LIST, dismissedGeneration: "5" }), { shown: false, restorable: true });
  assert.deepEqual(policy.offer({ ...LIST, dismissedGeneration: "5", composerBlank: false }),
    { shown: false, restorable: false });
});

test("typing hides the offer; a dismissal of an older list does not hide a new one", () => {
  assert.equal(policy.offer({ ...LIST, composerBlank: false }).shown, false);
  assert.equal(policy.offer({ ...LIST, dismissedGeneration: "4", sentGeneration: "4" }).shown, true);
});

const FIRST = { autoEligible: true, attachments: 0, hiddenChars: 0, tailChars: 0, collapsed: false, linkWarnings: 0 };
const READY = {
  enabled: true, paused: false, countingDown: false, generation: "7", freshGeneration: "7",
  handledGeneration: null, offered: true, composerBlank: true, agentIdle: true, permissionPending: false,
  pageVisible: true, first: FIRST
};

test("a fresh short plain suggestion, everything quiet and the user opted in: count down", () => {
  assert.deepEqual(policy.autoSend(READY), { action: "countdown", reason: null });
});

test("only a list that arrived new, once, and not while a countdown runs", () => {
  for (const change of [
    { freshGeneration: "6" },        // a snapshot after a reconnect, not a new list
    { handledGeneration: "7" },      // decided already
    { countingDown: true },
    { generation: null },
  ]) {
    assert.deepEqual(policy.autoSend({ ...READY, ...change }), { action: "none", reason: null }, JSON.stringify(change));
  }
});

test("it waits, for a reason, while the user or the agent is not ready for it", () => {
  const cases = [
    [{ enabled: false }, "off"],
    [{ paused: true }, "paused"],
    [{ offered: false }, "not-offered"],
    [{ composerBlank: false }, "composer-in-use"],
    [{ agentIdle: false }, "agent-busy"],
    [{ permissionPending: true }, "permission-pending"],
    [{ pageVisible: false }, "page-hidden"],
  ];
  for (const [change, reason] of cases) {
    assert.deepEqual(policy.autoSend({ ...READY, ...change }), { action: "wait", reason }, reason);
  }
});

test("it refuses what needs a look: attachments, hidden characters, a link that may lie, text not all shown, no verdict", () => {
  const cases = [
    [{ attachments: 1 }, "attachments"],
    [{ hiddenChars: 2 }, "hidden-characters"],
    [{ tailChars: 40 }, "truncated"],
    [{ collapsed: true }, "truncated"],
    [{ linkWarnings: 1 }, "link-warning"],
    [{ autoEligible: false }, "not-eligible"],
  ];
  for (const [change, reason] of cases) {
    assert.deepEqual(policy.autoSend({ ...READY, first: { ...FIRST, ...change } }), { action: "refuse", reason }, reason);
  }
  assert.deepEqual(policy.autoSend({ ...READY, first: null }), { action: "refuse", reason: "no-suggestion" });
});

test("at the end of a countdown, a changed list or a user at work stops the send", () => {
  assert.equal(policy.blocker(READY, "7"), null);
  assert.equal(policy.blocker({ ...READY, generation: "8" }, "7"), "list-changed");
  assert.equal(policy.blocker({ ...READY, composerBlank: false }, "7"), "composer-in-use");
  assert.equal(policy.blocker({ ...READY, enabled: false }, "7"), "off");
});

test("auto-send pauses itself after three sends in a row", () => {
  assert.equal(policy.AUTO_SEND_STREAK_CAP, 3);
  assert.equal(policy.pausesAfter(2), false);
  assert.equal(policy.pausesAfter(3), true);
  assert.equal(policy.AUTO_SEND_DELAY_S, 3);
});

test("the module attaches to the page's namespace when there is a window", () => {
  const fs = require("node:fs");
  const vm = require("node:vm");
  const source = fs.readFileSync(path.join(__dirname, "..", "..", "static", "suggestion_policy.js"), "utf8");
  const window = {};
  vm.runInNewContext(source, { window });
  assert.equal(typeof window.webclient.suggestionPolicy.autoSend, "function");
});
