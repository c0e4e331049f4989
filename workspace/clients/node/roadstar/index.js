// `import { mail } from "roadstar"` in a script in the agent's folder: each group's tools as `await mail.send({...})`.
// ES modules need their names spelled out: every group of the spec's tools is here (tests/workspace checks that
// each group Roadstar registers is), and `call("group.action", input)` reaches any tool by name.
import core from "./core.cjs";

export const { ToolError, call } = core;
export const books = core.group("books");
export const calendar = core.group("calendar");
export const comments = core.group("comments");
export const companies = core.group("companies");
export const contacts = core.group("contacts");
export const docs = core.group("docs");
export const files = core.group("files");
export const filings = core.group("filings");
export const help = core.group("help");
export const integrations = core.group("integrations");
export const mail = core.group("mail");
export const newsfeed = core.group("newsfeed");
export const pages = core.group("pages");
export const projects = core.group("projects");
export const search = core.group("search");
export const tables = core.group("tables");
export const templates = core.group("templates");
export const web = core.group("web");
export const workspace = core.group("workspace");
