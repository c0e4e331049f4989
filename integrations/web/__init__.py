"""The open web for the `web` tool group: search through a configured provider, and reading pages safely.

- `providers.py`: the search providers behind one interface (a self-hosted SearXNG, Brave Search's API), chosen by
  settings; without one the web group is absent from browse.
- `core/web_addresses.py` (in core, so research's feeds share it): which URLs may be fetched at all (schemes, ports,
  addresses after DNS resolution): SSRF refused.
- `fetch.py`: fetching one page with the address that was checked pinned (no DNS-rebinding window), redirects
  checked again hop by hop, timeouts and a size cap.
- `extract.py`: a page's main text (trafilatura; pypdf for PDFs) and the passages that bear on an objective.
- `services.py`: `web_search` and `web_read`, what the tools call.

The open web
============

- **Search** (`providers.py`): one interface (`SearchProvider.search(query, count) -> [Hit]`) with two providers, a
  self-hosted SearXNG (its JSON API, `SEARXNG_URL`) and Brave Search's API (`BRAVE_SEARCH_API_KEY`);
  `WEB_SEARCH_PROVIDER` picks when both are set. Without either the web group is off, as an optional group can be
  (`Group.enabled`, here the same for every workspace): absent from browse_tools' description, and browse, find and
  use_tool say what to set (`Group.off_message`). `web_search` (`services.py`) runs each query, merges the results
  one per page (reciprocal rank fusion; `www.` and a trailing slash are the same page), orders them by the
  provider's order (0.7) and the objective's words in title and snippets (BM25, 0.3), and keeps each page's three
  snippets that bear most on the objective. The excerpts are the provider's snippets: search doesn't fetch the
  pages. Failures map to the error kinds (429 `rate_limited`; a refused key or SearXNG without JSON `unavailable`
  with what to fix; 5xx and no answer `unavailable`; anything else `vendor`); one query failing among several still
  returns the rest.
- **Reading** (`core/web_addresses.py`, `fetch.py`, `extract.py`): every URL is checked before anything is fetched
  (http(s) only, ports 80/443/8080/8443, no credentials, every DNS answer a public address: loopback, private,
  link-local, CGNAT, multicast, unspecified, reserved and cloud-metadata addresses refused, IPv4 and IPv6, with
  IPv4-mapped, NAT64, 6to4 and decimal/octal/hex/short IPv4 forms read as the address they are); a refusal is
  `bad_input` naming `urls[i]`, the URL and why. Each hop (the URL, then up to 5 redirects, each checked again)
  connects to the address its check approved: an httpcore network backend ignores the name and dials that address,
  while Host and TLS's SNI and certificate check keep the name, so DNS rebinding has no window. Pages are fetched in
  parallel (at most 5), with timeouts (5 s connect, 10 s per read, 20 s a page), a 5 MB cap on the decoded body (a
  gzip bomb stops at the cap), environment proxies ignored. trafilatura extracts the main text (pypdf for PDFs;
  plain text as is; at most 30,000 characters). With an objective, the text is cut into passages and scored with
  BM25 over all the pages' passages; each page keeps those scoring at least a third of its best (up to 8, 6,000
  characters), in page order, or no text when none bears on it. A page that can't be read goes in `failed` with why;
  a page's `url` is where it was read, after redirects. The address policy lives in `core` so research's feed check
  (a layer below `integrations`) uses it too. Both tools declare `calls_apps` and call `network_call()` before each
  request, so they run with no transaction open. The tests read a local fake site through `allowing_for_tests`, an
  allow-list that only works under the test settings; DNS is answered from a table in the tests
  (`tests/integrations/ web_fakes.py`), and the search answers are JSON files in the providers' documented shapes
  (`tests/integrations/web_recorded/`).
"""
