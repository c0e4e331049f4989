"use strict";
const { ToolError, call, group } = require("./core.cjs");
// `const { mail } = require("roadstar")`: any group, by name.
module.exports = new Proxy({ ToolError, call }, {
  get(target, name) {
    if (name in target) return target[name];
    if (typeof name !== "string" || name === "then" || name === "__esModule") return undefined;
    return group(name);
  },
});
