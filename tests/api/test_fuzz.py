"""A bounded fuzz run of the API: schemathesis makes requests from the schema, valid ones and invalid ones, and
sends them to Django in this process (its WSGI support); no answer may be a server error, and every answer must
match what the schema says of it.

Each operation gets API_FUZZ_EXAMPLES examples of each kind (default 10), the same ones every run
(derandomized), so the suite stays fast and steady; raise it to look harder, e.g. API_FUZZ_EXAMPLES=500.
Path ids are mostly real records of the signed-in owner's, so the examples reach past the 404.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from core.inputs import as_uuid
from tests.api.conftest import token_for
from tests.api.schema import load_schema, operations, path_ids, wsgi_app

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "10"))
SCHEMA = schemathesis.openapi.from_dict(load_schema())
SCHEMA.app = wsgi_app
OPERATIONS = {(op.method.upper(), op.path): op for op in (result.ok() for result in SCHEMA.get_all_operations())}
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def _real_ids(world, case, operation_id: str = "") -> None:
    # Three generated ids in four become the owner's real records, so the example reaches the view's own work;
    # the rest stay random, and are not_found. An id made invalid on purpose (not a UUID) stays as it is.
    attrs = path_ids(operation_id)
    for name, value in list((case.path_parameters or {}).items()):
        attr = attrs.get(name)
        if attr is not None and _is_uuid(value) and str(value)[:1] not in "0123":
            case.path_parameters[name] = str(getattr(world, attr).id)


def _is_uuid(value) -> bool:
    return as_uuid(value) is not None


def _runs() -> list:
    """Each operation with valid inputs, and with invalid ones where it takes any (a path id, a query, a body)."""
    raw = load_schema()
    runs = []
    for operation_id, method, path in operations(raw):
        runs.append(pytest.param(operation_id, method, path, GenerationMode.POSITIVE, id=f"{operation_id}-valid"))
        definition = raw["paths"][path][method.lower()]
        if definition.get("parameters") or definition.get("requestBody"):
            runs.append(pytest.param(operation_id, method, path, GenerationMode.NEGATIVE, id=f"{operation_id}-invalid"))
    return runs


@pytest.mark.parametrize("operation_id, method, path, mode", _runs())
def test_no_request_gets_a_server_error(org, mine, operation_id, method, path, mode):
    operation = OPERATIONS[method, path]
    headers = {"Authorization": f"Token {token_for(org)}"}

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        _real_ids(mine, case, operation_id)
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS)

    run()


def test_the_fuzz_walks_every_operation():
    assert set(OPERATIONS) == {(method, path) for _, method, path in operations(load_schema())}


class _Case:
    def __init__(self, contact_id: str):
        self.path_parameters = {"contact_id": contact_id}


# Fixed ids: parameters must be the same in every test process, or pytest-xdist's workers disagree on the tests.
@pytest.mark.parametrize("generated, real", [("8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22", True),
                                             ("0a9f4c1e-6b07-4d38-a15e-93c0b7d2f846", False),
                                             ("not-an-id", False)])
def test_a_generated_id_becomes_a_real_record_three_times_in_four(mine, generated, real):
    case = _Case(generated)
    _real_ids(mine, case)
    assert (case.path_parameters["contact_id"] == str(mine.contact.id)) is real
