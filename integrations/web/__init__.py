"""The open web for the `web` tool group: search through a configured provider, and reading pages safely.

- `providers.py`: the search providers behind one interface (a self-hosted SearXNG, Brave Search's API), chosen by
  settings; without one the web group is absent from browse.
- `core/web_addresses.py` (in core, so research's feeds share it): which URLs may be fetched at all (schemes, ports,
  addresses after DNS resolution): SSRF refused.
- `fetch.py`: fetching one page with the address that was checked pinned (no DNS-rebinding window), redirects
  checked again hop by hop, timeouts and a size cap.
- `extract.py`: a page's main text (trafilatura; pypdf for PDFs) and the passages that bear on an objective.
- `services.py`: `web_search` and `web_read`, what the tools call.
"""
