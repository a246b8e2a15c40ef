// The official ACP TypeScript SDK's server (`AcpServer`, @agentclientprotocol/sdk/experimental/server)
// serving the SDK test agent (sdk_agent.mjs) to remote clients, in both profiles of ACP's HTTP
// transport on one endpoint: Streamable HTTP (POST, and SSE streams per connection and per session)
// and a WebSocket upgrade (through the `ws` package, as the SDK's Node adapter expects).
//
//   node tests/peers/remote_server.mjs [--port N] [--path /acp] [--token SECRET]
//
// It listens on loopback only. With --token, every request must carry `Authorization: Bearer SECRET`
// (401 otherwise). Once listening it prints one JSON line, {"port": N}, to stdout. SIGTERM or SIGINT
// closes every ACP connection and the server. Sessions outlive the process when SDK_AGENT_STORE names
// a file (see sdk_agent.mjs).

import http from "node:http";
import { parseArgs } from "node:util";
import { WebSocketServer } from "ws";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from "@agentclientprotocol/sdk/experimental/node";
import { createSdkAgent } from "./sdk_agent.mjs";

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    path: { type: "string", default: "/acp" },
    token: { type: "string" },
  },
});

const acp = new AcpServer({ createAgent: createSdkAgent });
const handleHttp = createNodeHttpHandler(acp, { maxRequestBodyBytes: MAX_MESSAGE_BYTES });
const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
const handleUpgrade = createNodeWebSocketUpgradeHandler(acp, sockets);

/** Why this request may not reach the agent (a status and a text), or null when it may. */
function refusal(req) {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path !== values.path) {
    return [404, "not found\n"];
  }
  if (values.token !== undefined && req.headers.authorization !== `Bearer ${values.token}`) {
    return [401, "missing or wrong bearer token\n"];
  }
  return null;
}

const server = http.createServer((req, res) => {
  const refused = refusal(req);
  if (refused) {
    res.writeHead(refused[0], { "Content-Type": "text/plain" }).end(refused[1]);
    return;
  }
  handleHttp(req, res);
});

server.on("upgrade", (req, socket, head) => {
  const refused = refusal(req);
  if (refused) {
    const [status, text] = refused;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
    return;
  }
  handleUpgrade(req, socket, head);
});

server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});

async function shutDown() {
  server.close();
  await acp.close();
  process.exit(0);
}
process.on("SIGTERM", shutDown);
process.on("SIGINT", shutDown);
