"""The owner's research tables: /tables/ lists them, /tables/<id>/ shows one with its run (estimate, cap, spend),
every cell's value and how it was found: values waiting for review stand out (with Accept), and each cell links
to the words in the page it was filled from (/tables/<id>/sources/<source>/, the quote marked), or to the page.

It reads and writes through research's selectors and services, as the tools do. Another workspace's table or
source is a 404, and a button pressed on one changes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.actors import Actor
from core.errors import ToolError
from core.http import workspace_or_404
from pages.views import _back_to, _page
from research import selectors, services
from research.table_run import money_words

STATUS_WORDS = {
    "filled": "",
    "needs_review": "Check this",
    "not_disclosed": "Not disclosed",
    "failed": "Couldn't fill",
    "edited": "Added by hand",
}
RUN_WORDS = {
    "queued": "Waiting for a worker",
    "running": "Researching",
    "done": "Done",
    "stopped": "Stopped",
    "failed": "Failed",
}


def _run_view(run) -> dict | None:
    if run is None:
        return None
    return {
        "run": run,
        "words": RUN_WORDS.get(run.status, run.status),
        "estimate": money_words(run.estimate_micros),
        "cap": money_words(run.cap_micros),
        "spent": money_words(run.spent_micros),
    }


@login_required
def tables(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    datasets = selectors.datasets_of(org=org)
    runs = selectors.dataset_latest_runs(datasets=datasets)
    return _page(request, org, "pages/tables.html", {
        "on": selectors.group_on(org=org, group="tables"),
        "tables": [{"dataset": d, "run": _run_view(runs.get(d.id))} for d in datasets],
    })


def _cell(dataset, row, column: dict) -> dict:
    value = (row.values or {}).get(column["name"])
    source = (row.sources or {}).get(column["name"]) or {}
    status = source.get("status", "")
    quote = source.get("quote")
    link = None
    if quote:
        link = (reverse("pages:table_source", args=[dataset.id, quote["page"]])
                + f"?start={int(quote['start'])}&end={int(quote['end'])}")
    return {
        "value": "" if value is None else value,
        "unit": column.get("unit") or "",
        "status": status,
        "words": STATUS_WORDS.get(status, ""),
        "link": link,
        "url": source.get("url") if not quote else None,
        "agree": source.get("agree"),
        "human": bool(source.get("human")),
        "was": source.get("was"),
        "column": column["name"],
        # A cell the owner may write by hand: any but those that name the row.
        "editable": not column.get("identifies"),
    }


@login_required
def table(request: HttpRequest, dataset_id) -> HttpResponse:
    org = workspace_or_404(request)
    dataset = _table_or_404(org, dataset_id)
    columns = dataset.plan["columns"]
    rows = selectors.dataset_rows(dataset=dataset)
    cells = [[_cell(dataset, r, c) for c in columns] for r in rows]
    shown = [{"row": r, "cells": row_cells} for r, row_cells in zip(rows, cells, strict=True)]
    review = sum(1 for row_cells in cells for c in row_cells if c["status"] == "needs_review")
    return _page(request, org, "pages/table.html", {
        "dataset": dataset,
        "columns": columns,
        "rows": shown,
        "review": review,
        "run": _run_view(selectors.dataset_latest_runs(datasets=[dataset]).get(dataset.id)),
        "spent": money_words(selectors.dataset_spent(dataset=dataset)),
    })


@login_required
def table_source(request: HttpRequest, dataset_id, source_id) -> HttpResponse:
    """The words a cell was filled from, marked in the text the researcher read, with the page's address."""
    org = workspace_or_404(request)
    try:
        dataset = selectors.dataset_get(org=org, dataset_id=dataset_id)
        source = selectors.dataset_source_get(org=org, dataset_id=dataset_id, source_id=source_id)
    except ToolError as exc:
        raise Http404("No such source in this workspace.") from exc
    text = source.text
    try:
        start, end = int(request.GET.get("start", "")), int(request.GET.get("end", ""))
    except ValueError:
        start = end = 0
    if not 0 <= start < end <= len(text):
        start = end = 0
    return _page(request, org, "pages/table_source.html", {
        "dataset": dataset, "source": source,
        "before": text[:start], "quote": text[start:end], "after": text[end:],
    })


@require_POST
@login_required
def table_edit(request: HttpRequest, dataset_id) -> HttpResponse:
    """The owner writes a cell by hand: it stands as theirs (edited), what it was kept with it."""
    org = workspace_or_404(request)
    dataset = _table_or_404(org, dataset_id)
    key, column = request.POST.get("key", ""), request.POST.get("column", "")
    try:
        with transaction.atomic():
            services.table_edit_cell(dataset=dataset, key=key, column=column, value=request.POST.get("value", ""),
                                     actor=Actor.for_user(request.user))
    except ToolError as error:
        messages.error(request, _refusal_words(error) + " Nothing was changed.")
        return _back_to(reverse("pages:table", args=[dataset.id]), f"row-{key}")
    messages.success(request, f"Changed {_column_label(dataset, column)} for {key}. What it was is kept with it.")
    return _back_to(reverse("pages:table", args=[dataset.id]), f"row-{key}")


@login_required
@require_POST
def table_accept(request: HttpRequest, dataset_id) -> HttpResponse:
    """The owner accepts a value waiting for review (on their own page their press is the yes)."""
    org = workspace_or_404(request)
    dataset = _table_or_404(org, dataset_id)
    key, column = request.POST.get("key", ""), request.POST.get("column", "")
    try:
        with transaction.atomic():
            services.table_accept_cell(dataset=dataset, key=key, column=column, actor=Actor.for_user(request.user))
    except ToolError as error:
        messages.error(request, _refusal_words(error))
        return _back_to(reverse("pages:table", args=[dataset.id]))
    messages.success(request, f"Accepted {_column_label(dataset, column)} for {key}. What it was is kept with it.")
    return _back_to(reverse("pages:table", args=[dataset.id]), f"row-{key}")


def _table_or_404(org, dataset_id):
    try:
        return selectors.dataset_get(org=org, dataset_id=dataset_id)
    except ToolError as exc:
        raise Http404("No such table in this workspace.") from exc


def _refusal_words(error: ToolError) -> str:
    """The service's refusal as a sentence for the owner, without the input's name it begins with."""
    words = error.message.split(": ", 1)[-1]
    return words[:1].upper() + words[1:] + "."


def _column_label(dataset, column: str) -> str:
    return next((c["label"] for c in dataset.plan["columns"] if c["name"] == column), column)
