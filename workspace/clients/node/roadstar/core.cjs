// Roadstar's tools from code: one call at a time over this run's socket, as one line of JSON each way.
"use strict";
const net = require("net");

class ToolError extends Error {
  constructor(kind, message) {
    super(`${kind}: ${message}`);
    this.name = "ToolError";
    this.kind = kind;
    this.detail = message;
  }
}

let connection = null;
let buffered = "";
let waiting = [];
let queue = Promise.resolve();

function connect() {
  if (connection) return connection;
  const path = process.env.ROADSTAR_SOCKET;
  if (!path) throw new ToolError("unsupported", "tools can only be called from code run by workspace.bash");
  connection = net.createConnection({ path });
  connection.setEncoding("utf8");
  connection.on("data", (chunk) => {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      const next = waiting.shift();
      if (next) next.resolve(line);
    }
  });
  const fail = (error) => {
    for (const next of waiting.splice(0)) next.reject(new ToolError("unavailable", `Roadstar stopped answering: ${error}`));
  };
  connection.on("error", fail);
  connection.on("close", () => fail("the run was stopped"));
  // The socket must not keep a finished script alive.
  connection.unref();
  return connection;
}

function send(name, input) {
  const socket = connect();
  return new Promise((resolve, reject) => {
    waiting.push({ resolve, reject });
    socket.ref();
    socket.write(JSON.stringify({ token: process.env.ROADSTAR_TOKEN || "", tool: name, input: input || {} }) + "\n");
  }).finally(() => { if (!waiting.length) socket.unref(); });
}

async function call(name, input) {
  // Calls are answered in order; one at a time keeps answers matched to their calls.
  const turn = queue.then(() => send(name, input));
  queue = turn.catch(() => {});
  const line = await turn;
  const answer = JSON.parse(line);
  if (answer.error) throw new ToolError(answer.error, answer.message || "");
  const result = answer.result;
  if (result && typeof result === "object" && "error" in result && "message" in result) {
    throw new ToolError(result.error, result.message);
  }
  return result;
}

function group(name) {
  return new Proxy({}, {
    get(_, action) {
      if (typeof action !== "string" || action === "then") return undefined;
      return (input) => call(`${name}.${action}`, input);
    },
  });
}

module.exports = { ToolError, call, group };
