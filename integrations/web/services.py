"""`web_search` and `web_read`: what the web group's tools call. Both call out with no transaction open."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, urlunsplit

from core.errors import ToolError
from core.network import network_call
from core.web_addresses import Target, check_url
from integrations.web.extract import PageText, page_text, rank_texts, select_passages
from integrations.web.fetch import fetch_page
from integrations.web.providers import Hit, configured_provider

HITS_PER_QUERY = 10
EXCERPTS_PER_RESULT = 3
# Reciprocal rank fusion across the queries: a result's place counts, its provider's raw score (not comparable
# between queries) doesn't. A small constant keeps the provider's order meaningful within one query's results.
RRF_K = 10
# How much the provider's order weighs against the objective's words in the result's title and passages: the
# provider's judgment leads, and the objective reorders what is close.
PROVIDER_WEIGHT, OBJECTIVE_WEIGHT = 0.7, 0.3

NOT_SET_UP = ("The web group (search the web and read pages) isn't set up on this Roadstar: whoever runs it sets "
              "SEARXNG_URL (a self-hosted SearXNG) or BRAVE_SEARCH_API_KEY. Carry on without it, or tell the owner "
              "what it would have needed.")


def web_available() -> bool:
    return configured_provider() is not None


def web_search(*, objective: str, queries: list[str], limit: int) -> dict:
    """Every query through the provider, the results merged (one per page), best for the objective first."""
    provider = configured_provider()
    if provider is None:
        raise ToolError("unsupported", NOT_SET_UP)
    ranked: list[list[Hit]] = []
    errors: list[ToolError] = []
    for query in dict.fromkeys(q.strip() for q in queries):
        try:
            ranked.append(provider.search(query, count=HITS_PER_QUERY))
        except ToolError as error:
            errors.append(error)
    if errors and not ranked:
        raise errors[0]

    merged: dict[str, Hit] = {}
    fused: dict[str, float] = {}
    for hits in ranked:
        for place, hit in enumerate(hits):
            key = _same_page(hit.url)
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + place + 1)
            if key not in merged:
                merged[key] = Hit(title=hit.title, url=hit.url, published=hit.published, snippets=list(hit.snippets))
            else:
                kept = merged[key]
                kept.title = kept.title or hit.title
                kept.published = kept.published or hit.published
                kept.snippets += [s for s in hit.snippets if s not in kept.snippets]
    if not merged:
        return {"results": []}
    keys = list(merged)
    relevance = rank_texts([" ".join([merged[k].title or "", *merged[k].snippets]) for k in keys], objective)
    top_fused, top_relevance = max(fused.values()), max(relevance) or 1.0
    score = {k: PROVIDER_WEIGHT * fused[k] / top_fused + OBJECTIVE_WEIGHT * r / top_relevance
             for k, r in zip(keys, relevance, strict=True)}
    best = sorted(keys, key=lambda k: -score[k])[:limit]  # sorted is stable: ties keep the providers' order
    return {"results": [_result(merged[k], objective) for k in best]}


def _result(hit: Hit, objective: str) -> dict:
    scores = rank_texts(hit.snippets, objective) if hit.snippets else []
    order = sorted(range(len(hit.snippets)), key=lambda i: -scores[i])[:EXCERPTS_PER_RESULT]
    return {"title": hit.title, "url": hit.url, "published": hit.published,
            "excerpts": [hit.snippets[i] for i in order]}


def _same_page(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower().removeprefix("www."), path, parts.query, ""))


def web_read(*, urls: list[str], objective: str | None) -> dict:
    """Up to five pages' text, fetched at once; with an objective, only the passages that bear on it.

    Every URL is checked (scheme, port, addresses after DNS) before any is fetched: a refused one fails the whole
    call with `bad_input` naming it. A page that can't be read (no such host, 404, too large, a redirect to a
    refused address) is listed in `failed` with why, and the rest are read.
    """
    if configured_provider() is None:
        raise ToolError("unsupported", NOT_SET_UP)
    network_call("web.read")  # the checks below ask DNS, which can be as slow as the fetches
    wanted = list(dict.fromkeys(urls))
    targets: dict[str, Target] = {}
    failed: dict[str, str] = {}
    for url in wanted:
        try:
            targets[url] = check_url(url, field=f"urls[{urls.index(url)}]")
        except ToolError as error:
            if error.kind == "bad_input":
                raise
            failed[url] = error.message

    texts: dict[str, PageText] = {}
    if targets:
        with ThreadPoolExecutor(max_workers=len(targets), thread_name_prefix="web-read") as pool:
            futures = {url: pool.submit(fetch_page, target) for url, target in targets.items()}
        for url, future in futures.items():
            try:
                texts[url] = page_text(future.result())
            except ToolError as error:
                failed[url] = error.message

    read = [texts[u] for u in wanted if u in texts]
    if objective and read:
        read = select_passages(read, objective)
    return {
        "pages": [{"title": p.title, "url": p.url, "text": p.text} for p in read],
        "failed": [{"url": u, "error": failed[u]} for u in wanted if u in failed],
    }
