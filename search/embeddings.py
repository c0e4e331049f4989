"""Related results: items found by meaning, from embeddings of the copy, where an embeddings endpoint is configured
(ROADSTAR_EMBEDDING_URL, any OpenAI-compatible /v1/embeddings, through the `openai` SDK). Without one nothing is
embedded and search has no related results; with one that fails, a search still answers, without them.

- The worker embeds what the copy holds and has no embedding yet (`embed_pending`, search.tasks.embed every
  minute): in batches, read without a transaction, the endpoint called with none open, and the vectors written
  after, only for items whose text is still the one embedded. What is done is in the table, so a worker killed
  mid-way goes on from there; an item embedded twice (two workers racing) is one row.
- The writer (search/index.py) drops an item's embedding when its text changes, so it is embedded again.
- Ranking, in Python: every embedded item the search's filters allow is compared by its sign bits (one bit a
  dimension) with the query's, and the 200 nearest so are ranked exactly by cosine (vectors are stored at length 1,
  so a dot product: `math.sumprod` over float32 arrays). With 200 candidates or fewer that is exact; with more, an
  item whose bits differ more than 200 others' can be missed. sqlite-vec can't load into this Python's sqlite3
  (built without loadable extensions) and this PostgreSQL has no pgvector; the cost grows with the workspace's
  embedded items (bench/PERFORMANCE.md).
"""

from __future__ import annotations

import hashlib
import heapq
import logging
import math
import time
from array import array
from collections.abc import Callable

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.functions import Substr

from core.network import network_call
from search.models import SearchEmbedding, SearchItem

logger = logging.getLogger(__name__)

BATCH = 64
# What of an item is embedded: its title and the start of its text (about 1,500 tokens, inside every common model's
# input limit); the meaning of a long file is mostly in its start.
TEXT_CHARS = 6000
SWEEP_SECONDS = 40
# How many candidates, nearest by sign bits, are ranked exactly by their full vectors.
SHORTLIST = 200


class Unavailable(Exception):
    """The endpoint didn't answer with embeddings (after the SDK's own tries). `refused`: it answered that the
    request itself is wrong (a 4xx other than a rate limit), so trying the same texts again won't help."""

    def __init__(self, message: str, *, refused: bool = False):
        super().__init__(message)
        self.refused = refused


def configured() -> bool:
    return bool(settings.ROADSTAR_EMBEDDING_URL)


def model_name() -> str:
    return settings.ROADSTAR_EMBEDDING_MODEL


def make_client(http_client=None):
    import openai

    # The SDK's own retries (with backoff) for rate limits, timeouts and 5xx: a batch that still fails is left for
    # the next run.
    return openai.OpenAI(base_url=settings.ROADSTAR_EMBEDDING_URL, api_key=settings.ROADSTAR_EMBEDDING_KEY or
                         "not-needed", max_retries=3, timeout=30.0, http_client=http_client)


def text_of(title: str, head: str) -> str:
    text = f"{title}\n{head}".strip()
    return text[:TEXT_CHARS] or "(empty)"


def digest(text: str) -> str:
    return hashlib.sha256(f"{model_name()}\n{text}".encode()).hexdigest()


def pack(values) -> bytes:
    norm = math.sqrt(math.sumprod(values, values)) or 1.0
    return array("f", (v / norm for v in values)).tobytes()


def signs(values) -> bytes:
    """One bit a dimension, set where the value is above zero: two vectors' bits differ in about as many places as
    the angle between them is wide, so comparing bits (cheap: one XOR and a count) finds the nearest few, whose full
    vectors are then compared exactly."""
    bits = 0
    for n, value in enumerate(values):
        if value > 0:
            bits |= 1 << n
    return bits.to_bytes((len(values) + 7) // 8, "little")


def unpack(blob: bytes) -> array:
    vector = array("f")
    vector.frombytes(blob)
    return vector


def embed(client, texts: list[str]) -> list[list[float]]:
    """One call to the endpoint: each text's vector, in order."""
    import openai

    network_call("an embeddings call")
    request: dict[str, object] = {"model": model_name(), "input": texts, "encoding_format": "float"}
    if settings.ROADSTAR_EMBEDDING_DIMENSIONS:
        request["dimensions"] = settings.ROADSTAR_EMBEDDING_DIMENSIONS
    try:
        answer = client.embeddings.create(**request)
    except openai.APIStatusError as error:
        refused = 400 <= error.status_code < 500 and error.status_code not in (401, 403, 408, 409, 429)
        raise Unavailable(str(error), refused=refused) from error
    except openai.APIError as error:
        raise Unavailable(str(error)) from error
    data = sorted(answer.data or [], key=lambda d: d.index)
    if len(data) != len(texts) or any(not d.embedding for d in data):
        raise Unavailable(f"the endpoint answered {len(data)} embeddings for {len(texts)} texts")
    return [list(d.embedding) for d in data]


# --- the worker -----------------------------------------------------------------------------------------------


def pending():
    """Items with no embedding from the model in use."""
    return SearchItem.objects.filter(Q(embedding__isnull=True) | ~Q(embedding__model=model_name()))


def _read(ids_or_items) -> dict[int, tuple]:
    rows = (ids_or_items.annotate(head=Substr("body", 1, TEXT_CHARS))
            .values_list("id", "organization_id", "title", "head"))
    return {item_id: (org_id, text_of(title, head)) for item_id, org_id, title, head in rows}


def embed_pending(*, batch: int = BATCH, max_seconds: float | None = None, client=None,
                  yield_when: Callable[[], bool] | None = None) -> int:
    """Embed the items that have no embedding, batch by batch, until none is left (or max_seconds, or after a batch
    when `yield_when()` says another task waits). Returns how many it embedded. An endpoint that fails stops the
    run: the next one starts from what is still pending."""
    if not configured():
        return 0
    client = client or make_client()
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    done = 0
    after = 0
    while deadline is None or time.monotonic() < deadline:
        if done and yield_when is not None and yield_when():
            break
        texts = _read(pending().filter(id__gt=after).order_by("id")[:batch])
        if not texts:
            break
        after = max(texts)
        ids = list(texts)
        vectors: dict[int, list[float] | None]
        try:
            vectors = dict(zip(ids, embed(client, [texts[i][1] for i in ids]), strict=True))
        except Unavailable as error:
            if error.refused:
                # Something in this batch is refused (a text too long for the model, say): one at a time finds
                # which, and marks it, so it doesn't stop the rest.
                try:
                    done += _one_by_one(ids, client)
                except Unavailable as again:
                    logger.warning("embeddings endpoint failed; the next run goes on from here: %s", again)
                    return done
                continue
            logger.warning("embeddings endpoint failed; the next run goes on from here: %s", error)
            return done
        done += _write(texts, vectors)
    return done


def _one_by_one(ids: list[int], client) -> int:
    done = 0
    for item_id in ids:
        texts = _read(pending().filter(id=item_id))
        if not texts:
            continue
        vectors: dict[int, list[float] | None]
        try:
            vectors = {item_id: embed(client, [texts[item_id][1]])[0]}
        except Unavailable as error:
            if not error.refused:
                raise
            logger.warning("the embeddings endpoint refused item %s: %s", item_id, error)
            vectors = {item_id: None}
        done += _write(texts, vectors)
    return done


def _write(texts: dict[int, tuple], vectors: dict[int, list[float] | None]) -> int:
    """Write the vectors of the items whose text is still the one embedded (one re-copied meanwhile waits for the
    next run; one deleted meanwhile is skipped)."""
    try:
        with transaction.atomic():
            now = _read(SearchItem.objects.filter(id__in=list(vectors)))
            rows = [
                SearchEmbedding(item_id=item_id, organization_id=org_id, model=model_name(), digest=digest(text),
                                vector=pack(vectors[item_id]) if vectors[item_id] else b"",
                                signs=signs(vectors[item_id]) if vectors[item_id] else b"")
                for item_id, (org_id, text) in texts.items() if now.get(item_id) == (org_id, text)
            ]
            SearchEmbedding.objects.bulk_create(rows, update_conflicts=True, unique_fields=["item"],
                                                update_fields=["model", "digest", "vector", "signs"])
    except IntegrityError:  # an item deleted between the check and the commit: the next run skips it
        logger.info("an item left the copy while it was embedded; the batch is done again next run")
        return 0
    return len(rows)


def forget_changed(items: dict[int, str]) -> None:
    """The writer's part: drop the embeddings of these items (id: their text now) whose text is not the one embedded,
    so the worker embeds them again."""
    if not items:
        return
    stale = [item_id for item_id, old in SearchEmbedding.objects.filter(item_id__in=list(items))
             .values_list("item_id", "digest") if old != digest(items[item_id])]
    if stale:
        SearchEmbedding.objects.filter(item_id__in=stale).delete()


# --- ranking --------------------------------------------------------------------------------------------------


def nearest(query: array, rows, count: int, floor: float) -> list[tuple[float, int]]:
    """The `count` rows (item id, packed vector) most like `query`, at least `floor` alike, best first."""
    best: list[tuple[float, int]] = []
    for item_id, blob in rows:
        if len(blob) != 4 * len(query):
            continue  # refused (empty), or from another number of dimensions
        score = math.sumprod(query, unpack(blob))
        if score < floor:
            continue
        if len(best) < count:
            heapq.heappush(best, (score, item_id))
        elif score > best[0][0]:
            heapq.heapreplace(best, (score, item_id))
    return sorted(best, reverse=True)


def shortlist(query_signs: bytes, rows, size: int) -> list[int]:
    """The ids of the `size` rows (item id, sign bits) whose bits differ least from the query's."""
    query_bits = int.from_bytes(query_signs, "little")
    width = len(query_signs)
    return [item_id for _, item_id in heapq.nsmallest(
        size, (((query_bits ^ int.from_bytes(bits, "little")).bit_count(), item_id)
               for item_id, bits in rows if len(bits) == width))]


def related(*, org, query: str, candidates, count: int, client=None) -> list[int]:
    """The ids of up to `count` of the candidate items most like the query by meaning, best first; none without an
    endpoint, or when it fails (search answers without them). The SHORTLIST nearest by sign bits, then those ranked
    exactly by cosine: every candidate's full vector compared in Python would take about 0.9 s per 10,000
    (bench/PERFORMANCE.md)."""
    if not configured() or count <= 0:
        return []
    try:
        values = embed(client or make_client(), [query[:TEXT_CHARS]])[0]
    except Unavailable as error:
        logger.warning("related results left out: the embeddings endpoint failed: %s", error)
        return []
    mine = SearchEmbedding.objects.filter(organization=org, model=model_name())
    near = shortlist(signs(values), ((i, bytes(b)) for i, b in mine.filter(item__in=candidates)
                                     .values_list("item_id", "signs").iterator(chunk_size=5000)), SHORTLIST)
    rows = mine.filter(item_id__in=near).values_list("item_id", "vector")
    return [item_id for _, item_id in nearest(unpack(pack(values)), ((i, bytes(b)) for i, b in rows), count,
                                              settings.ROADSTAR_EMBEDDING_MIN_SIMILARITY)]
