// A test agent built on the official ACP TypeScript SDK (@agentclientprotocol/sdk, pinned in
// package.json): one AgentProtocolRouter serves ACP v1 and the v2 draft from the same agent, chosen
// by the `initialize` it receives.
//
// Run it over stdio with `node tests/peers/sdk_agent.mjs`, or import `createSdkAgent()` (an
// AgentConnector: `connect(stream)`) and serve it through any SDK transport, e.g. its `AcpServer`
// with `{createAgent: createSdkAgent}`.
//
// What each prompt does is named by words in its text (both versions unless marked):
//   tool        a read tool call that completes with text content
//   permission  asks permission for an edit; completes when allowed, fails when rejected
//   terminal    runs `echo` in a terminal: v1 the client's (terminal/create), v2 a display terminal
//   slow        streams a chunk every 100 ms until cancelled (stop reason `cancelled`)
//   notice      (v2) a `notice` update of severity warning, with a title and a description
//   compact     (v2) a compaction: `compaction_update` in progress, summary chunks, completed
//   background  (v2) a display terminal left running as background work after the turn; the
//               client stops it with `terminal/cancel` (a `sleep` tool call: `tool_call/cancel`)
//   fail        (v2) the turn ends with the `error` stop reason and its error data
//   elicit      (v2) asks the client for input (`elicitation/create`) and says how it was answered
//   anything    the reply `You said: <text>` in two chunks
// After every turn, a client that advertised prompt suggestions receives
// `prompt_suggestions_update` ["Tell me more", "Use a tool"]. The SDK's types do not have this
// update yet, so it is written to the stream as an extension the SDK does not validate.
//
// In v2, `session/new` and `session/resume` answer with the session's commands (/review).
//
// Sessions are kept in memory (in the file SDK_AGENT_STORE names, if set, so that they outlive the
// process): session/list, v1 session/load (with replay), session/resume (v2 replays on request),
// session/close and session/delete.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const INFO = { name: "sdk-test-agent", title: "SDK test agent", version: "2.4.0" };
const SUGGESTIONS = ["Tell me more", "Use a tool"];
const COMMANDS = [
  { type: "command", name: "review", description: "Review the changes", input: { type: "text", hint: "what to review" } },
];
const STORE = process.env.SDK_AGENT_STORE;

const sessions = loadSessions();
let nextId = 1;

function loadSessions() {
  if (STORE && existsSync(STORE)) return new Map(Object.entries(JSON.parse(readFileSync(STORE, "utf8"))));
  return new Map();
}

function saveSessions() {
  if (STORE) writeFileSync(STORE, JSON.stringify(Object.fromEntries(sessions)));
}

function newSession(cwd) {
  const sessionId = `sdk-${process.pid}-${nextId++}`;
  sessions.set(sessionId, { cwd, title: null, updatedAt: new Date().toISOString(), history: [] });
  saveSessions();
  return sessionId;
}

function stored(sessionId) {
  const session = sessions.get(sessionId);
  if (!session) {
    throw new v2.RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
  }
  return session;
}

function remember(sessionId, role, text) {
  const session = stored(sessionId);
  session.history.push({ role, text });
  session.title ??= text.slice(0, 40);
  session.updatedAt = new Date().toISOString();
  saveSessions();
}

function listed() {
  return [...sessions].map(([sessionId, s]) => ({
    sessionId,
    cwd: s.cwd,
    title: s.title,
    updatedAt: s.updatedAt,
  }));
}

function promptText(prompt) {
  return prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function words(text) {
  return new Set(text.toLowerCase().split(/\W+/));
}

const base64 = (text) => Buffer.from(text, "utf8").toString("base64"); // v2 terminal bytes

const delay = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * One connection's tap on its stream: the raw `initialize` params (the SDK's parsed params drop what
 * its schema does not have, such as `promptSuggestions`), and a way to write a message the SDK's
 * types lack, in order with the SDK's own output.
 */
function tap(stream) {
  const state = { initialize: null, send: null };
  const writer = stream.writable.getWriter();
  let chain = Promise.resolve();
  state.send = (message) => (chain = chain.then(() => writer.write(message)));
  const writable = new WritableStream({
    write: (message) => state.send(message),
    close: () => chain.then(() => writer.close()),
    abort: (reason) => writer.abort(reason),
  });
  const readable = stream.readable.pipeThrough(
    new TransformStream({
      transform(message, controller) {
        if (message && message.method === "initialize") state.initialize = message.params ?? {};
        controller.enqueue(message);
      },
    }),
  );
  return { stream: { readable, writable }, state };
}

function suggests(state, version) {
  const params = state.initialize ?? {};
  const caps = version === 1 ? params.clientCapabilities : params.capabilities;
  const offered = caps?.session?.promptSuggestions;
  return offered !== undefined && offered !== null;
}

/** The next-prompt predictions after a completed turn; after any other end, an empty list withdraws
 * the earlier one (the RFD's rule: a list is replaced or withdrawn once a prompt is accepted). */
async function sendSuggestions(state, version, sessionId, completed) {
  if (!suggests(state, version)) return;
  const update = {
    sessionUpdate: "prompt_suggestions_update",
    suggestions: completed ? SUGGESTIONS.map((text) => ({ prompt: [{ type: "text", text }] })) : [],
  };
  await state.send({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } });
}

// --- ACP v1 ----------------------------------------------------------------------------------------

function v1Agent(state) {
  const turns = new Map();
  const m = v1.methods;
  const update = (client, sessionId, u) => client.notify(m.client.session.update, { sessionId, update: u });
  const say = (client, sessionId, text) =>
    update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

  async function terminal(client, sessionId, cwd) {
    const { terminalId } = await client.request(m.client.terminal.create, {
      sessionId,
      command: "echo",
      args: ["hello from the terminal"],
      cwd,
    });
    await update(client, sessionId, {
      sessionUpdate: "tool_call",
      toolCallId: "terminal-1",
      title: "echo hello from the terminal",
      kind: "execute",
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
    const exit = await client.request(m.client.terminal.waitForExit, { sessionId, terminalId });
    const { output } = await client.request(m.client.terminal.output, { sessionId, terminalId });
    await update(client, sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId: "terminal-1",
      status: exit.exitCode === 0 ? "completed" : "failed",
    });
    await client.request(m.client.terminal.release, { sessionId, terminalId });
    return `The terminal said: ${output.trim()}`;
  }

  async function permission(client, sessionId) {
    const toolCall = { toolCallId: "edit-1", title: "Edit notes.txt", kind: "edit", status: "pending" };
    await update(client, sessionId, { sessionUpdate: "tool_call", ...toolCall });
    const { outcome } = await client.request(m.client.session.requestPermission, {
      sessionId,
      toolCall,
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    const allowed = outcome.outcome === "selected" && outcome.optionId === "allow";
    await update(client, sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId: "edit-1",
      status: allowed ? "completed" : "failed",
    });
    return allowed ? "Edited notes.txt." : "I did not edit notes.txt.";
  }

  async function play(client, sessionId, text, signal) {
    const asked = words(text);
    if (asked.has("slow")) {
      for (let i = 1; !signal.aborted; i++) {
        await say(client, sessionId, `${i}… `);
        await delay(100, signal);
      }
      return "cancelled";
    }
    let reply = `You said: ${text}`;
    if (asked.has("tool")) {
      await update(client, sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: "read-1",
        title: "Read notes.txt",
        kind: "read",
        status: "pending",
      });
      await update(client, sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: "read-1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "notes: three lines" } }],
      });
      reply = "I read notes.txt.";
    }
    if (asked.has("permission")) reply = await permission(client, sessionId);
    if (asked.has("terminal")) reply = await terminal(client, sessionId, stored(sessionId).cwd);
    const half = Math.ceil(reply.length / 2);
    await say(client, sessionId, reply.slice(0, half));
    await say(client, sessionId, reply.slice(half));
    remember(sessionId, "agent", reply);
    return "end_turn";
  }

  async function replay(client, sessionId) {
    for (const { role, text } of stored(sessionId).history) {
      const kind = role === "user" ? "user_message_chunk" : "agent_message_chunk";
      await update(client, sessionId, { sessionUpdate: kind, content: { type: "text", text } });
    }
  }

  return v1
    .agent({ name: "sdk-test-agent v1" })
    .onRequest(m.agent.initialize, () => ({
      protocolVersion: v1.PROTOCOL_VERSION,
      agentInfo: INFO,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      },
      authMethods: [],
    }))
    .onRequest(m.agent.session.new, ({ params }) => ({ sessionId: newSession(params.cwd) }))
    .onRequest(m.agent.session.load, async ({ params, client }) => {
      await replay(client, params.sessionId);
      return {};
    })
    .onRequest(m.agent.session.resume, ({ params }) => (stored(params.sessionId), {}))
    .onRequest(m.agent.session.list, () => ({ sessions: listed() }))
    .onRequest(m.agent.session.close, ({ params }) => {
      turns.get(params.sessionId)?.abort();
      return {};
    })
    .onRequest(m.agent.session.delete, ({ params }) => {
      stored(params.sessionId);
      sessions.delete(params.sessionId);
      saveSessions();
      return {};
    })
    .onRequest(m.agent.session.prompt, async ({ params, client }) => {
      const text = promptText(params.prompt);
      remember(params.sessionId, "user", text);
      const turn = new AbortController();
      turns.set(params.sessionId, turn);
      try {
        const played = await play(client, params.sessionId, text, turn.signal);
        const stopReason = turn.signal.aborted ? "cancelled" : played;
        await sendSuggestions(state, 1, params.sessionId, stopReason === "end_turn");
        return { stopReason };
      } finally {
        turns.delete(params.sessionId);
      }
    })
    .onNotification(m.agent.session.cancel, ({ params }) => turns.get(params.sessionId)?.abort());
}

// --- ACP v2 ----------------------------------------------------------------------------------------

function v2Agent(state) {
  const turns = new Map();
  const queues = new Map(); // sessionId -> the promise of its last queued turn: one turn at a time
  const work = new Map(); // background terminal or tool call id -> AbortController
  const m = v2.methods;
  let counter = 0;
  const id = (prefix) => `${prefix}-${++counter}`;
  const update = (client, sessionId, u) => client.notify(m.client.session.update, { sessionId, update: u });
  const background = () => [...work.keys()].map((key) => {
    const [type, itemId] = key.split(":");
    return type === "terminal" ? { type, terminalId: itemId } : { type, toolCallId: itemId };
  });
  const stateUpdate = (client, sessionId, fields) =>
    update(client, sessionId, { sessionUpdate: "state_update", background: background(), ...fields });

  async function say(client, sessionId, messageId, text) {
    await update(client, sessionId, {
      sessionUpdate: "agent_message_chunk",
      messageId,
      content: { type: "text", text },
    });
  }

  async function displayTerminal(client, sessionId, terminalId, command) {
    await update(client, sessionId, {
      sessionUpdate: "terminal_update",
      terminalId,
      command,
      cwd: stored(sessionId).cwd,
      capabilities: { cancel: {} },
    });
  }

  async function startBackground(client, sessionId) {
    const terminalId = id("term");
    await displayTerminal(client, sessionId, terminalId, "tail -f build.log");
    const toolCallId = id("sleep");
    await update(client, sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId,
      name: "sleep",
      title: "sleep 600",
      kind: "execute",
      status: "in_progress",
      capabilities: { cancel: {} },
    });
    const terminal = new AbortController();
    const tool = new AbortController();
    work.set(`terminal:${terminalId}`, terminal);
    work.set(`tool_call:${toolCallId}`, tool);
    (async () => {
      for (let line = 1; !terminal.signal.aborted && !client.signal?.aborted; line++) {
        await update(client, sessionId, { sessionUpdate: "terminal_output_chunk", terminalId, data: base64(`line ${line}\n`) });
        await delay(200, terminal.signal);
      }
    })().catch(() => terminal.abort()); // the connection closed
    return `Started ${terminalId} and ${toolCallId} in the background.`;
  }

  async function stopWork(client, sessionId, key, finish) {
    const controller = work.get(key);
    if (!controller) throw new v2.RequestError(-32602, `No such background work: ${key}`);
    controller.abort();
    work.delete(key);
    await update(client, sessionId, finish);
    await stateUpdate(client, sessionId, { state: "idle", stopReason: null });
  }

  async function play(client, sessionId, text, signal) {
    const asked = words(text);
    const messageId = id("msg");
    let reply = `You said: ${text}`;
    if (asked.has("slow")) {
      for (let i = 1; !signal.aborted; i++) {
        await say(client, sessionId, messageId, `${i}… `);
        await delay(100, signal);
      }
      return { stopReason: "cancelled" };
    }
    if (asked.has("notice")) {
      await update(client, sessionId, {
        sessionUpdate: "notice",
        severity: "warning",
        title: "Rate limit close",
        description: "80% of this hour's requests are used.",
      });
    }
    if (asked.has("compact")) {
      const compactionId = id("compaction");
      await update(client, sessionId, { sessionUpdate: "compaction_update", compactionId, status: "in_progress" });
      for (const piece of ["The user said hello. ", "The agent answered."]) {
        await update(client, sessionId, {
          sessionUpdate: "compaction_summary_chunk",
          compactionId,
          content: { type: "text", text: piece },
        });
      }
      await update(client, sessionId, { sessionUpdate: "compaction_update", compactionId, status: "completed" });
      reply = "I compacted the conversation.";
    }
    if (asked.has("tool")) {
      const toolCallId = id("read");
      await update(client, sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        name: "read",
        title: "Read notes.txt",
        kind: "read",
        status: "pending",
      });
      await update(client, sessionId, {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId,
        content: { type: "content", content: { type: "text", text: "notes: three lines" } },
      });
      await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
      reply = "I read notes.txt.";
    }
    if (asked.has("permission")) {
      const toolCallId = id("edit");
      const toolCall = { toolCallId, name: "edit", title: "Edit notes.txt", kind: "edit", status: "pending" };
      await update(client, sessionId, { sessionUpdate: "tool_call_update", ...toolCall });
      await stateUpdate(client, sessionId, { state: "requires_action" });
      const { outcome } = await client.request(m.client.session.requestPermission, {
        sessionId,
        title: "Edit notes.txt?",
        description: "The agent wants to change notes.txt.",
        subject: { type: "tool_call", toolCall },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      });
      await stateUpdate(client, sessionId, { state: "running" });
      const allowed = outcome.outcome === "selected" && outcome.optionId === "allow";
      await update(client, sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: allowed ? "completed" : "failed",
      });
      reply = allowed ? "Edited notes.txt." : "I did not edit notes.txt.";
    }
    if (asked.has("terminal")) {
      const terminalId = id("term");
      const toolCallId = id("run");
      await displayTerminal(client, sessionId, terminalId, "echo hello from the terminal");
      await update(client, sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        name: "run",
        title: "echo hello from the terminal",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId }],
      });
      await update(client, sessionId, { sessionUpdate: "terminal_output_chunk", terminalId, data: base64("hello from the terminal\n") });
      await update(client, sessionId, { sessionUpdate: "terminal_update", terminalId, exitStatus: { exitCode: 0 } });
      await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
      reply = "The terminal said: hello from the terminal";
    }
    if (asked.has("background")) reply = await startBackground(client, sessionId);
    if (asked.has("elicit")) {
      try {
        await client.request(m.client.elicitation.create, {
          sessionId,
          mode: "form",
          message: "Which branch?",
          requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
        });
        reply = "elicitation answered";
      } catch (error) {
        reply = `elicitation refused: ${error.code}`;
      }
    }
    if (asked.has("fail")) {
      const error = { code: -32603, message: "The model provider failed", data: { provider: "test", retryAfter: 30 } };
      return { stopReason: "error", error };
    }
    const half = Math.ceil(reply.length / 2);
    await say(client, sessionId, messageId, reply.slice(0, half));
    await say(client, sessionId, messageId, reply.slice(half));
    remember(sessionId, "agent", reply);
    return { stopReason: "end_turn" };
  }

  async function turn(client, sessionId, messageId, prompt) {
    const controller = new AbortController();
    turns.set(sessionId, controller);
    try {
      await update(client, sessionId, { sessionUpdate: "user_message", messageId, content: prompt });
      await stateUpdate(client, sessionId, { state: "running" });
      const text = promptText(prompt);
      remember(sessionId, "user", text);
      const end = await play(client, sessionId, text, controller.signal);
      const stopReason = controller.signal.aborted ? "cancelled" : end.stopReason;
      await sendSuggestions(state, 2, sessionId, stopReason === "end_turn");
      await stateUpdate(client, sessionId, { state: "idle", ...end, stopReason });
    } finally {
      turns.delete(sessionId);
    }
  }

  async function replay(client, sessionId) {
    for (const { role, text } of stored(sessionId).history) {
      const messageId = id("replay");
      const content = [{ type: "text", text }];
      await update(client, sessionId, { sessionUpdate: role === "user" ? "user_message" : "agent_message", messageId, content });
    }
  }

  return v2
    .agent({ name: "sdk-test-agent v2" })
    .onRequest(m.agent.initialize, () => ({
      protocolVersion: v2.PROTOCOL_VERSION,
      info: INFO,
      capabilities: {
        session: {
          prompt: { image: {}, embeddedContext: {} },
          delete: {},
        },
      },
      authMethods: [],
    }))
    .onRequest(m.agent.session.new, ({ params }) => ({ sessionId: newSession(params.cwd), availableCommands: COMMANDS }))
    .onRequest(m.agent.session.resume, async ({ params, client }) => {
      stored(params.sessionId);
      if (params.replayFrom) await replay(client, params.sessionId);
      await stateUpdate(client, params.sessionId, { state: "idle", stopReason: null });
      return { availableCommands: COMMANDS };
    })
    .onRequest(m.agent.session.list, () => ({ sessions: listed() }))
    .onRequest(m.agent.session.close, ({ params }) => {
      stored(params.sessionId);
      turns.get(params.sessionId)?.abort();
      return {};
    })
    .onRequest(m.agent.session.delete, ({ params }) => {
      stored(params.sessionId);
      sessions.delete(params.sessionId);
      saveSessions();
      return {};
    })
    .onRequest(m.agent.session.prompt, ({ params, client }) => {
      stored(params.sessionId);
      const messageId = id("user");
      // The prompt is taken in at once and waits for the turns before it; each turn starts by
      // inserting its user message and ends with its idle state_update.
      const queued = (queues.get(params.sessionId) ?? Promise.resolve())
        .then(() => turn(client, params.sessionId, messageId, params.prompt))
        .catch((error) => console.error(error));
      queues.set(params.sessionId, queued);
      return { messageId };
    })
    .onRequest(m.agent.toolCall.cancel, async ({ params, client }) => {
      await stopWork(client, params.sessionId, `tool_call:${params.toolCallId}`, {
        sessionUpdate: "tool_call_update",
        toolCallId: params.toolCallId,
        status: "cancelled",
      });
      return {};
    })
    .onRequest(m.agent.terminal.cancel, async ({ params, client }) => {
      await stopWork(client, params.sessionId, `terminal:${params.terminalId}`, {
        sessionUpdate: "terminal_update",
        terminalId: params.terminalId,
        exitStatus: { signal: "SIGTERM" },
      });
      return {};
    })
    .onNotification(m.agent.session.cancel, ({ params }) => turns.get(params.sessionId)?.abort());
}

/** A fresh agent for one connection: the router hands it to the v1 or the v2 app. */
export function createSdkAgent() {
  return {
    connect(stream, options) {
      const { stream: tapped, state } = tap(stream);
      const router = v2.agentProtocolRouter().withV1(v1Agent(state)).withV2(v2Agent(state));
      return router.connect(tapped, options);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const stream = v2.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const { closed } = createSdkAgent().connect(stream);
  await closed;
  process.exit(0); // stdin closed: leave no background work running
}
