// The official TypeScript MCP SDK's client signs in to Roadstar by address alone (OAuth: discovery, dynamic
// registration, PKCE, the resource), the owner's consent given by an HTTP client holding their session, then lists
// and uses the tools. Run by tests/mcp_server/test_oauth.py:
//   node sign_in.mjs <mcp url> <owner's sessionid> <agent id>
// Prints one JSON line: {tools, contacts, refused} or {error}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [url, sessionid, agentId] = process.argv.slice(2);
const CALLBACK = "http://127.0.0.1:53683/callback";

function cookiesOf(response, jar) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [name, value] = pair.split("=");
    jar[name.trim()] = value;
  }
}

function cookieHeader(jar) {
  return Object.entries(jar).map(([k, v]) => `${k}=${v}`).join("; ");
}

// The owner at the consent page: follow the app's authorize link, approve as the agent, and return where the
// answer sent the browser (never followed: nothing listens at the app's callback).
async function ownerApproves(authorizeUrl) {
  const jar = { sessionid };
  const first = await fetch(authorizeUrl, { redirect: "manual" });
  if (first.status !== 302) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const consent = first.headers.get("location");
  const page = await fetch(consent, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
  cookiesOf(page, jar);
  const html = await page.text();
  const csrf = html.match(/name="csrfmiddlewaretoken" value="([^"]+)"/)[1];
  const answered = await fetch(consent, {
    method: "POST", redirect: "manual",
    headers: { cookie: cookieHeader(jar), "content-type": "application/x-www-form-urlencoded", referer: consent },
    body: new URLSearchParams({ csrfmiddlewaretoken: csrf, answer: "approve", agent: agentId }),
  });
  if (answered.status !== 302) throw new Error(`the consent answered ${answered.status}`);
  return new URL(answered.headers.get("location"));
}

class Provider {
  constructor() { this.saved = {}; this.sentTo = null; }
  get redirectUrl() { return CALLBACK; }
  get clientMetadata() {
    return { client_name: "TypeScript desk", redirect_uris: [CALLBACK], grant_types: ["authorization_code", "refresh_token"],
             response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() { return this.saved.client; }
  saveClientInformation(info) { this.saved.client = info; }
  tokens() { return this.saved.tokens; }
  saveTokens(tokens) { this.saved.tokens = tokens; }
  async redirectToAuthorization(authorizationUrl) { this.sentTo = await ownerApproves(authorizationUrl.href); }
  saveCodeVerifier(verifier) { this.saved.verifier = verifier; }
  codeVerifier() { return this.saved.verifier; }
}

async function main() {
  const provider = new Provider();
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: "typescript-desk", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await transport.finishAuth(provider.sentTo.searchParams.get("code"));
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await client.connect(transport);
  }
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const listed = await client.callTool({ name: "use_tool", arguments: { name: "contacts.list", input: {} } });
  await client.close();
  // Without a token: refused, naming the protected-resource metadata.
  const bare = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
                                 body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  console.log(JSON.stringify({ tools, contacts: JSON.parse(listed.content[0].text), refused: bare.status,
                               access: provider.saved.tokens.access_token, state: provider.sentTo.searchParams.get("state") !== null }));
}

main().catch((error) => { console.log(JSON.stringify({ error: String(error && error.stack || error) })); process.exit(1); });
