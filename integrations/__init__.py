"""The owner's apps
================

`Connection` (per workspace: app google / quickbooks / local, account, an 8-hex `account_key` every id carries as
`7c41e2d0:…`, scopes, status, Fernet-encrypted tokens with compare-and-set writes). The real OAuth web flows
(google-auth-oauthlib with PKCE, intuit-oauth) live in `oauth.py` and `views.py`; tokens refresh on their own and a
refused refresh marks the connection and puts a reconnect card on Home. A QuickBooks refresh (Intuit rotates the
refresh token) is made by one worker at a time under a claim on the connection (`refresh_claimed_until`, a
conditional write), never a row lock held across the call; the others wait for its tokens. Providers implement one
interface per group (`providers/base.py`: Mail, Files, Calendar, Books) and register themselves
(`providers/registry.py`): Gmail, Drive/Docs/Sheets, Google Calendar, QuickBooks Online, and the local ones (models
under `integrations/local/`, bytes under `var/`), which the example workspace and most tests use. Provider failures
map to the 12 error kinds in `errors.py`. `durable.py` keeps the writes a failing tool must leave standing (the card
its error points to, a refreshed token) after the tool's transaction rolls back (for tools that call apps, which run
with none open, those writes are committed as they are made).

- **OneDrive** (`providers/onedrive.py`, `oauth.py`'s Microsoft half, `clients.graph_request`): the Microsoft
  identity platform's v2.0 authorization code flow with PKCE and Microsoft Graph v1.0, called with `requests`, not
  MSAL. MSAL keeps its own token cache (a serialized blob it refreshes from inside `acquire_token_silent`), which
  would sit beside the connection's Fernet-encrypted tokens and spend Microsoft's rotating refresh tokens outside
  the compare-and-set write and the one-worker refresh claim the connection already has for Intuit's rotating
  tokens; the protocol itself is three small HTTPS exchanges (authorize, code, refresh) that `oauth.py` already does
  for the other apps, and the Graph SDK is async-only over kiota, where every other provider is synchronous. Ids are
  `<driveId>~<itemId>` after the account key (a search hit or a shared file can be in another drive), or `u!<encoded
  link>` for a pasted link, read through Graph's `/shares`. Reading is live (Microsoft Search for `files.search`,
  `children`, `content`, older Office formats as Graph's PDF conversion); writing is only `files.save` (a new file,
  renamed on a clash, or a new version under `If-Match`, Undo only while the file is as the save left it), as the
  spec gives OneDrive. Search's copy takes the owner's own drive by the delta query (`search/onedrive_copy.py`);
  files shared from other drives stay live-only.
- **The two-minute hold** (`mail_hold.py`): `mail.send` stores a `HeldEmail` (held → sending → sent / undone /
  failed / unsure, every move a conditional UPDATE) with its own Message-ID and schedules the send; a sweep every
  minute picks up what is due and what a dead worker left. A try runs with no transaction open: the claim, then
  `handed_off_at`, are committed before the hand-off to the app, and the sent state after it. A try after a dead
  worker's hand-off looks for the Message-ID in the account's sent mail; where the app's sent mail can't tell
  (`MailProvider.sent_mail_tells`: the local mailbox keeps its copy after the SMTP server took it), the email
  becomes `unsure` and a card asks the owner (Send again) rather than send it twice. The local mailbox's SMTP
  backend (`smtp.py`) tells a failure after the whole message was sent (`unknown_outcome`) from one before it
  (`unavailable`). Undo within the hold sends nothing.
- **Events**: new mail (`from:`, `domain:`, `with:`, `thread:` keys), `kind:meeting.added`, `kind:invoice.overdue`
  (a scheduled query: QuickBooks has no such webhook), `kind:doc.changed`, emitted with
  `routines.engine.event_emit`.
- **Told when connected** (`agents/connected.py`, imported in AgentsConfig.ready): after a connection is made or
  renewed, each conversation its resolved connect / reconnect cards name as askers (this workspace's only) gets one
  system note saying which app and account is connected, and is woken; a closed thread's note goes to its agent's
  chat. Nobody asked, nobody told; the note carries `connected_event` (connection id and token version), so a second
  delivery of the same event tells nobody twice.
- **The owner's other apps** (`integrations/mcp_apps.py` the network, `mcp_apps_services.py` the writes,
  `models_mcp_apps.McpApp`, `views_mcp_apps.py`, `tools/groups/apps.py`; issue 28): Roadstar as an MCP client. The
  owner adds an app by its address; Roadstar discovers its authorization server (the SDK's discovery-URL order and
  models), registers itself, signs in with PKCE S256 and the resource, and keeps the tokens on a `Connection` (app
  `apps`) encrypted as Google's, with what the app declared (name, instructions, tools with their schemas and
  annotations) on `McpApp`. Its group is a workspace's own: `tools.registry` has `WORKSPACE_GROUPS` (sources asked
  per workspace), which browse/find/use consult after the declared groups; the tools are `DeclaredTool`s whose
  schema is the app's, validated with jsonschema, whose kind comes from the annotations (readOnlyHint reads,
  destructiveHint — true unless said — deletes, openWorldHint sends, else changes), run with no transaction open. A
  401 after one refresh marks the connection needs_reconnect with
"""
