// The page's one keydown dispatcher (static/keymap.js): handlers see a key in the written priority order,
// and what each answers decides whether the default is prevented and whether later handlers see it.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

function freshKeymap() {
  const file = path.join(__dirname, "..", "..", "static", "keymap.js");
  delete require.cache[require.resolve(file)];
  return require(file);
}

function keyEvent(key) {
  return {
    key,
    prevented: false,
    stopped: false,
    preventDefault() { this.prevented = true; },
    stopImmediatePropagation() { this.stopped = true; },
  };
}

test("handlers see a key in the order of PRIORITY, whatever the order they registered in", () => {
  const keymap = freshKeymap();
  const seen = [];
  for (const name of [...keymap.PRIORITY].reverse()) {
    keymap.register(name, () => { seen.push(name); return keymap.PASS; });
  }
  const event = keyEvent("x");
  keymap.dispatch(event);
  assert.deepEqual(seen, keymap.PRIORITY);
  assert.equal(event.prevented, false);
});

test("the menus come before Enter-sends and the suggestions, and the drawers come last", () => {
  const order = freshKeymap().PRIORITY;
  assert.ok(order.indexOf("file-picker") < order.indexOf("composer-send"));
  assert.ok(order.indexOf("slash-menu") < order.indexOf("composer-send"));
  assert.ok(order.indexOf("composer-send") < order.indexOf("suggestions"));
  assert.equal(order[order.length - 1], "panels");
});

test("STOP prevents the default and no later handler sees the key", () => {
  const keymap = freshKeymap();
  const seen = [];
  keymap.register("slash-menu", () => { seen.push("slash-menu"); return keymap.STOP; });
  keymap.register("composer-send", () => { seen.push("composer-send"); return keymap.TAKEN; });
  const event = keyEvent("Enter");
  keymap.dispatch(event);
  assert.deepEqual(seen, ["slash-menu"]);
  assert.equal(event.prevented, true);
  assert.equal(event.stopped, true);
});

test("TAKEN prevents the default and later handlers still see the key", () => {
  const keymap = freshKeymap();
  const seen = [];
  keymap.register("suggestions", () => { seen.push("suggestions"); return keymap.TAKEN; });
  keymap.register("panels", () => { seen.push("panels"); return keymap.PASS; });
  const event = keyEvent("Escape");
  keymap.dispatch(event);
  assert.deepEqual(seen, ["suggestions", "panels"]);
  assert.equal(event.prevented, true);
  assert.equal(event.stopped, false);
});

test("a handler under a name that has no slot is refused", () => {
  assert.throws(() => freshKeymap().register("nowhere", () => undefined), /no slot named nowhere/);
});
