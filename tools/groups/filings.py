"""The filings group (optional per workspace): public companies' SEC filings. Thin declarations over
research.services, which reads SEC EDGAR (rate-limited, identified) and stores what it read once."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from core.errors import bad_input
from core.inputs import Chars, CompanyId
from research import selectors, services
from research.shapes import filing_text_shape
from tools.registry import Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="filings",
        summary="public companies' filings",
        how_to="SEC filings stored for companies: 10-K, 10-Q, 8-K, 20-F, proxies and more.",
        enabled=lambda org: selectors.group_on(org=org, group="filings"),
    )
)


# --- latest -----------------------------------------------------------------------------------------------------


class LatestInput(ToolInput):
    company_ids: Annotated[list[CompanyId], Field(min_length=1, max_length=50)]


def latest(ctx: ToolContext, inp: LatestInput) -> dict[str, Any]:
    return services.filings_latest(org=ctx.org, company_ids=inp.company_ids)


register(
    Tool(
        name="filings.latest",
        description="Each company's latest filings",
        input=LatestInput,
        run=latest,
        kind="reads",
        calls_apps=True,  # it reads SEC EDGAR: no transaction open across the call
    )
)


# --- read -------------------------------------------------------------------------------------------------------

ACCESSION = re.compile(r"^(\d{10})-?(\d{2})-?(\d{6})$")


class ReadInput(ToolInput):
    accession: Annotated[str, Chars(1, 40)]


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    match = ACCESSION.match(inp.accession.strip())
    if match is None:
        raise bad_input("accession", "an SEC accession number looks like 0000320193-24-000123; take it from "
                                     "filings.latest")
    filing = selectors.filing_get(org=ctx.org, accession="-".join(match.groups()))
    if filing.state == filing.State.FETCHED:
        return filing_text_shape(filing)
    if filing.state == filing.State.FAILED:
        raise services.filing_failure(filing)
    services.filing_request_text(filing=filing)
    return {"state": "fetching"}


register(
    Tool(
        name="filings.read",
        description="One filing's text",
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "filings.latest": {
        "companyIds": "The companies, by id",
    },
    "filings.read": {
        "accession": "The filing's accession number, from filings.latest",
    },
})
