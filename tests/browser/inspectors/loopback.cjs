// Preloaded (node --require) into each inspector's server: it listens on loopback only, and it reaches no host but
// this machine's, so neither its telemetry (Sentry, PostHog) nor anything else it would call leaves the machine.
"use strict";
const net = require("node:net");

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): put loopback in the host's place, whatever was there.
    const host = typeof args[1] === "string" ? 1 : -1;
    if (host === 1) args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (first && typeof first === "object" && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = args[0] && typeof args[0] === "object" && !Array.isArray(args[0]) ? args[0] : null;
  const host = options ? options.host : typeof args[1] === "string" ? args[1] : "localhost";
  const path = options ? options.path : typeof args[0] === "string" && !/^\d+$/.test(args[0]) ? args[0] : undefined;
  if (path === undefined && !LOOPBACK.has(host ?? "localhost")) {
    const error = Object.assign(new Error(`refused: ${host} is not this machine (tests/browser/inspectors)`), {
      code: "ECONNREFUSED",
    });
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};
