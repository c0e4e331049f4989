"""A client for SEC EDGAR's public JSON and filing documents.

EDGAR's fair-access rules: every request names who makes it in its User-Agent (a company or person and a contact
address: the EDGAR_USER_AGENT setting), and no more than 10 requests a second. The budget is shared by every
process of every worker through `SharedRateLimit`. EDGAR answers a client over its rate with 429, or with a 403
page saying "Request Rate Threshold Exceeded": both are `EdgarRateLimited`.

Every request is a network call: `network_call()` refuses one made with a transaction open.
"""

from __future__ import annotations

import httpx
from django.conf import settings

from core.network import network_call
from research.ratelimit import SharedRateLimit

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/CIK{cik:010d}.json"
ARCHIVE_URL = "https://www.sec.gov/Archives/edgar/data/{cik}/{folder}/{document}"
MAX_DOCUMENT_BYTES = 40 * 1024 * 1024  # a 10-K with its inline XBRL runs to a few MB; past this is not text
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
RATE_WORDS = ("request rate threshold exceeded", "rate limited", "too many requests")


class EdgarError(Exception):
    """EDGAR answered with an error of its own, or something that isn't what it serves."""


class EdgarNotSetUp(EdgarError):
    """No EDGAR_USER_AGENT: EDGAR refuses anonymous requests, and Roadstar won't make them."""


class EdgarRateLimited(EdgarError):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class EdgarUnavailable(EdgarError):
    """EDGAR didn't answer, or answered 5xx."""


class EdgarNotFound(EdgarError):
    pass


class EdgarTooLarge(EdgarError):
    pass


def edgar_rate_limit(**overrides) -> SharedRateLimit:
    return SharedRateLimit(name="edgar", limit=settings.EDGAR_REQUESTS_PER_SECOND, per=1.0, **overrides)


class EdgarClient:
    def __init__(self, *, user_agent: str | None = None, limiter: SharedRateLimit | None = None,
                 transport: httpx.BaseTransport | None = None):
        self.user_agent = (settings.EDGAR_USER_AGENT if user_agent is None else user_agent).strip()
        if not self.user_agent or "@" not in self.user_agent:
            raise EdgarNotSetUp(
                "SEC EDGAR needs to know who is asking: this server has no EDGAR_USER_AGENT with a contact address "
                "(such as \"Ortiz Bakery owner@ortizbakery.com\")."
            )
        self.limiter = limiter or edgar_rate_limit()
        self.http = httpx.Client(
            timeout=TIMEOUT, transport=transport,
            headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"},
        )

    def close(self) -> None:
        self.http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- what EDGAR serves ------------------------------------------------------------------------------------

    def company_tickers(self) -> list[dict]:
        """Every listed company: `[{cik, ticker, name}]`."""
        data = self._json(TICKERS_URL)
        if not isinstance(data, dict):
            raise EdgarError("EDGAR's ticker list wasn't the list it serves")
        rows = []
        for entry in data.values():
            try:
                rows.append({"cik": int(entry["cik_str"]), "ticker": str(entry["ticker"]), "name": str(entry["title"])})
            except (KeyError, TypeError, ValueError):
                continue  # one odd row doesn't spoil the list
        return rows

    def submissions(self, cik: int) -> dict:
        """A company's name and its recent filings, as rows: `{name, tickers, filings: [{accession, form, …}]}`."""
        data = self._json(SUBMISSIONS_URL.format(cik=cik))
        try:
            recent = data["filings"]["recent"]
            columns = [recent[k] for k in ("accessionNumber", "form", "filingDate", "reportDate",
                                            "primaryDocument", "primaryDocDescription")]
        except (KeyError, TypeError) as error:
            raise EdgarError(f"EDGAR's submissions for CIK {cik} weren't in the shape it serves") from error
        filings = [
            {"accession": a, "form": f, "filed": d, "period": r or None, "document": p or "", "what": w or ""}
            for a, f, d, r, p, w in zip(*columns, strict=False)
        ]
        return {"name": data.get("name") or "", "tickers": data.get("tickers") or [], "filings": filings}

    def document(self, *, cik: int, accession: str, document: str) -> tuple[str, str]:
        """A filing's document: (its text as served, its content type)."""
        url = ARCHIVE_URL.format(cik=cik, folder=accession.replace("-", ""), document=document)
        response = self._get(url)
        if len(response.content) > MAX_DOCUMENT_BYTES:
            raise EdgarTooLarge(f"the document is {len(response.content) // (1024 * 1024)} MB")
        return response.text, response.headers.get("content-type", "")

    # --- requests ---------------------------------------------------------------------------------------------

    def _json(self, url: str):
        response = self._get(url)
        try:
            return response.json()
        except ValueError as error:
            raise EdgarError(f"EDGAR answered {url} with something that isn't JSON") from error

    def _get(self, url: str) -> httpx.Response:
        self.limiter.acquire()
        network_call(f"EDGAR ({url})")
        try:
            response = self.http.get(url)
        except httpx.TimeoutException as error:
            raise EdgarUnavailable("SEC EDGAR didn't answer in time") from error
        except httpx.HTTPError as error:
            raise EdgarUnavailable(f"SEC EDGAR couldn't be reached ({type(error).__name__})") from error
        if response.status_code == 429 or (
            response.status_code == 403 and any(w in response.text.lower() for w in RATE_WORDS)
        ):
            raise EdgarRateLimited("SEC EDGAR is limiting requests", _retry_after(response))
        if response.status_code == 404:
            raise EdgarNotFound(f"SEC EDGAR has nothing at {url}")
        if response.status_code >= 500:
            raise EdgarUnavailable(f"SEC EDGAR answered {response.status_code}")
        if response.status_code >= 400:
            raise EdgarError(f"SEC EDGAR answered {response.status_code}")
        return response


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("retry-after", "")))
    except ValueError:
        return None
