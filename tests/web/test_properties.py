"""Arbitrary input to the calculator API, the values API, a card page's query and the event API
(issue 12, item 4): never a 500, a rejection names its field, and no call takes a second.

Hypothesis draws the input; the examples are derandomized, so CI sees the same ones every run.
"""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizapp.calc import FIELD_NAMES, gpu_entries, model_ids

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

def nested(levels: int):
    value = [1]
    for _ in range(levels):
        value = [value]
    return value


# What broke routes in issue 21: lone surrogates (JSON "\ud800", no UTF-8 can hold them), integers
# longer than any figure (Python refuses 4,300 digits), and deep nesting (below the 64-level limit).
hostile = st.sampled_from(["\ud800", "a\udfffz", "\udc00" * 3, 10**200, -(10**150), nested(40),
                           {"deep": nested(30)}])
# JSON as a client may send it: any scalar, and lists and objects of them, a few levels deep.
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=50))
# JSON bodies get the hostile values too (a form cannot carry a lone surrogate: UTF-8 has none).
json_values = st.recursive(st.one_of(scalars, hostile), lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                           max_leaves=12)

# Values that get past the first checks and into the arithmetic: numbers as text, sizes, ids.
number_texts = st.one_of(
    st.integers(-10, 2**60).map(str),
    st.from_regex(r"\s?[0-9][0-9_,]{0,12}(\.[0-9]{0,4})?(e[+-]?[0-9]{1,3})?\s?(b|kb|gib|GiB| GB|mib|x)?\s?",
                  fullmatch=True),
    st.sampled_from(["nan", "inf", "-0", "1e400", "0x10", "١٠", "９", "", " ", "2**53", "10 GiB", "0.5"]),
)
plausible = st.one_of(
    st.integers(-(2**63), 2**63), st.sampled_from([0, 1, 2, 7, 8, 16, 4096, 8192, 2**53, 2**53 + 1, 10**12]),
    number_texts, st.sampled_from(model_ids() + [g["id"] for g in gpu_entries()]),
    st.sampled_from(["auto", "fp8", "bfloat16", "fp8_ds_mla", "0.11", "0.33", "0.99", "true", "false"]),
    st.floats(0, 1.5), json_values,
)
field_names = st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=30))
# A catalog model with any of the other inputs: these reach the arithmetic, not only the parsing.
model_scenarios = st.fixed_dictionaries(
    {"model": st.sampled_from(model_ids())},
    optional={name: plausible for name in FIELD_NAMES if name not in ("model", "config", "kv_bytes_per_token")})
calc_bodies = st.one_of(st.dictionaries(field_names, plausible, max_size=8), model_scenarios)


def timed(call):
    start = time.perf_counter()
    response = call()
    seconds = time.perf_counter() - start
    assert seconds < 1, f"took {seconds:.2f} s"
    assert response.status_code != 500, response.text[:500]
    return response


def assert_named_rejection(response, statuses=(400,)):
    """A rejection is JSON {"error", "field"} and names the field it is about (as the client spelled it)."""
    if response.status_code in statuses:
        data = response.get_json()
        assert data["error"], data
        assert isinstance(data["field"], str), data


@PROPERTY
@given(body=calc_bodies)
def test_calc_api_never_fails_on_an_object(client, body):
    response = timed(lambda: client.post("/api/calc", json=body))
    assert response.status_code in (200, 400), response.text[:300]
    assert_named_rejection(response)


@PROPERTY
@given(body=json_values)
def test_calc_api_never_fails_on_any_json(client, body):
    response = timed(lambda: client.post("/api/calc", json=body))
    assert response.status_code in (200, 400)
    assert "error" in response.get_json() or response.status_code == 200


@PROPERTY
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_calc_api_never_fails_on_any_bytes(client, raw):
    response = timed(lambda: client.post("/api/calc", data=raw, content_type="application/json"))
    assert response.status_code in (200, 400)


query_names = st.one_of(st.sampled_from(FIELD_NAMES + ("variant", "pool_rule")), st.text(max_size=20))
query_values = st.one_of(plausible.map(str), st.text(max_size=60), st.sampled_from(["0", "3", "9", "-1", "²"]))
queries = st.one_of(st.dictionaries(query_names, query_values, max_size=6),
                    st.dictionaries(st.sampled_from(FIELD_NAMES + ("variant", "pool_rule")),
                                    st.one_of(number_texts, st.sampled_from(model_ids())), max_size=4))


@PROPERTY
@given(query=queries)
def test_values_api_never_fails_on_a_query(client, query):
    response = timed(lambda: client.get("/api/cards/kv-pool-users/values", query_string=query))
    assert response.status_code in (200, 400), response.text[:300]
    assert_named_rejection(response)


@PROPERTY
@given(query=queries)
def test_card_page_never_fails_on_a_query(client, query):
    page = timed(lambda: client.get("/cards/kv-pool-users", query_string=query))
    assert page.status_code in (200, 400)
    fragment = timed(lambda: client.get("/cards/kv-pool-users/fragment", query_string=query))
    assert fragment.status_code in (200, 400)
    if fragment.status_code == 400:
        # The fragment carries the scenario's error beside its field; the page shows the same.
        error = fragment.get_json()["error"]
        assert error["error"] and isinstance(error["field"], str), error


event_keys = st.one_of(st.sampled_from(["event_id", "card_id", "kind", "stage", "value", "detail", "scenario"]),
                       st.text(max_size=10))
event_values = st.one_of(
    json_values, st.sampled_from(["kv-pool-users", "kv-bytes-per-token", "nope", "short", "full", "followup-1",
                                  "taught", "reveal", "answer", "grade", "open", "followup", "reset", "good",
                                  "knew", "again"]),
    st.from_regex(r"[A-Za-z0-9_.:-]{6,12}", fullmatch=True),
    st.dictionaries(st.text(max_size=8), scalars, max_size=4),
)
plausible_events = st.fixed_dictionaries(
    {"event_id": st.from_regex(r"evt-[a-z0-9]{8}", fullmatch=True),
     "card_id": st.sampled_from(["kv-pool-users", "kv-bytes-per-token", "nope"]),
     "kind": st.sampled_from(["open", "reveal", "answer", "grade", "followup", "reset", "peek"])},
    optional={"stage": st.sampled_from(["short", "full", "followup-1", "taught", "x" * 50]), "value": event_values,
              "detail": event_values, "scenario": event_values},
)


@PROPERTY
@given(body=st.one_of(st.dictionaries(event_keys, event_values, max_size=8), plausible_events))
def test_event_api_never_fails(client, body):
    response = timed(lambda: client.post("/api/progress/events", json=body))
    assert response.status_code in (200, 201, 400, 409), response.text[:300]
    assert_named_rejection(response, (400, 409))
    assert timed(lambda: client.get("/api/progress")).status_code == 200


# An export as a hostile or broken file may hold it: the right header and any rows, or anything.
export_rows = st.one_of(
    st.dictionaries(st.sampled_from(["event_id", "card_id", "kind", "stage", "value", "detail", "scenario", "at",
                                     "rating", "reviewed_at", "duration_ms"]),
                    st.one_of(event_values, number_texts, st.sampled_from(["2026-01-01T00:00:00+00:00", "yesterday",
                                                                           "2999-01-01T00:00:00+00:00"])),
                    max_size=9),
    json_values,
)
exports = st.fixed_dictionaries(
    {"format": st.sampled_from(["quizapp-progress", "other"]), "version": st.sampled_from([1, 2, "1", None])},
    optional={"learner": st.one_of(st.fixed_dictionaries({}, optional={"display_name": json_values}), json_values),
              "events": st.one_of(st.lists(export_rows, max_size=4), json_values),
              "review_log": st.one_of(st.lists(export_rows, max_size=4), json_values)},
)


@PROPERTY
@given(body=st.one_of(exports, json_values))
def test_an_import_never_fails(client, body):
    """Whatever the file holds, the profile page says what happened to it (a 303 back to /me)."""
    token = client.csrf_token()
    response = timed(lambda: client.post("/me/import", data=json.dumps(body), content_type="application/json",
                                         headers={"X-CSRFToken": token}))
    assert response.status_code == 303, response.text[:300]
