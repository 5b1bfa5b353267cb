"""Hostile or broken input gets a clear 4xx naming what is wrong, never a 500."""

import pytest

from quizapp import create_app


@pytest.mark.parametrize("query", [
    "?variant=%C2%B2", "?variant=" + "9" * 5000, "?variant=-1", "?kv_cache_memory_bytes=1e400gb",
    "?max_model_len=nan", "?pool_tokens=inf", "?model=" + "x" * 5000, "?gpu_memory_utilization=2",
    "?block_size=7", "?tensor_parallel_size=0x10",
])
@pytest.mark.parametrize("path", ["/cards/kv-pool-users", "/cards/kv-pool-users/fragment",
                                  "/api/cards/kv-pool-users/values"])
def test_bad_scenarios_are_400(client, path, query):
    response = client.get(path + query)
    assert response.status_code == 400, response.text[:300]


def test_bad_reveal_scenario_is_not_a_500(client):
    assert client.post("/cards/kv-pool-users/reveal/short?variant=%C2%B2").status_code in (303, 400)


@pytest.mark.parametrize("config", [
    {"num_hidden_layers": 1e10, "num_attention_heads": 8, "hidden_size": 512},
    {"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "layer_types": [[1], "full_attention"]},
    {"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "max_window_layers": "x",
     "use_sliding_window": True, "sliding_window": 4},
    {"num_hidden_layers": 2, "num_attention_heads": float("inf"), "hidden_size": 512},
])
def test_hostile_configs_are_400(client, config):
    response = client.post("/api/calc", json={"config": config})
    assert response.status_code == 400 and response.get_json()["field"].startswith("config")


@pytest.mark.parametrize("config", [
    {"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "vocab_size": "x"},
    {"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 512, "vocab_size": 100,
     "intermediate_size": 10, "n_routed_experts": 4, "moe_layer_freq": 0, "mlp_only_layers": 5},
])
def test_configs_the_weights_count_cannot_read_still_size_the_kv_cache(client, config):
    response = client.post("/api/calc", json={"config": config})
    assert response.status_code == 200
    assert response.get_json()["kv_bytes_per_token"] == 2 * 8 * 64 * 2 * 2
    assert any("parameters not counted" in note for note in response.get_json()["notes"])


def test_free_memory_above_total_is_refused(client):
    response = client.post("/api/calc", json={"model": "Qwen/Qwen3-8B", "gpu": "L4", "free_memory_bytes": 1e15})
    assert response.status_code == 400 and response.get_json()["field"] == "free_memory_bytes"


def test_search_never_matches_unrevealed_text(client):
    assert "How many users fit" not in client.get("/?q=waits+in+the+queue").text
    assert "How many users fit" in client.get("/?q=manager").text


def test_reusing_an_event_id_for_another_event_is_409(client):
    body = {"event_id": "evt-conflict-1", "card_id": "kv-pool-users", "kind": "reveal", "stage": "short"}
    assert client.post("/api/progress/events", json=body).status_code == 201
    response = client.post("/api/progress/events", json={**body, "kind": "grade", "value": "good", "stage": None})
    assert response.status_code == 409 and response.get_json()["field"] == "event_id"
    assert client.get("/api/progress").get_json()["reviews"] == 0


def test_a_grade_form_reusing_an_id_is_a_409_page(client, reader):
    client.post("/cards/kv-pool-users/reveal/short", data={"event_id": "evt-form-0001"})
    response = reader.grade("good", event_id="evt-form-0001")
    assert response.status_code == 409 and "already stored" in response.text


def test_poisoned_verdict_cannot_break_the_dashboard(client):
    body = {"event_id": "evt-poison-1", "card_id": "kv-pool-users", "kind": "answer", "value": "x",
            "detail": {"verdict": ["x"]}}
    assert client.post("/api/progress/events", json=body).status_code == 400
    assert client.get("/progress").status_code == 200


def test_author_tools_can_be_turned_off(database, tmp_path, questions_dir):
    client = create_app({"TESTING": True, "DATABASE": database, "AUTHOR_TOOLS": False,
                         "QUESTIONS_DIR": str(questions_dir)}).test_client()
    assert client.get("/author/cards/kv-pool-users").status_code == 404
    assert client.get("/api/cards/kv-pool-users/values").status_code == 404
    assert client.get("/cards/kv-pool-users").status_code == 200


def test_author_preview_records_nothing(client):
    page = client.get("/author/cards/kv-pool-users").text
    assert "nothing is recorded" in page and 'class="grade"' not in page and 'class="reveal"' not in page
    assert client.get("/api/progress").get_json()["cards_seen"] == 0


def test_huge_body_is_413(client):
    response = client.post("/api/progress/events", data=b"x" * (22 * 1024 * 1024), content_type="application/json")
    assert response.status_code == 413


# The six inputs that answered 500 in issue 21's probe: each is a 400 naming its field.
BIG = "1" * 5000


def test_a_config_with_a_5000_digit_integer_is_400_naming_it(client):
    config = '{"num_hidden_layers": %s, "num_attention_heads": 8, "hidden_size": 512}' % BIG
    page = client.post("/calc", data={"config": config})
    assert page.status_code == 400 and "5,000 digits" in page.text
    api = client.post("/api/calc", data='{"config": %s}' % config, content_type="application/json")
    assert api.status_code == 400 and api.get_json()["field"] == "config.num_hidden_layers"


@pytest.mark.parametrize("path, body, field", [
    ("", {"text": "\ud800"}, "text"),
    ("/note", {"text": "\ud800"}, "text"),
    ("/recommendation", {"recommendation": "yes", "reason": "\ud800"}, "reason"),
    ("/scratch", {"text": "\udc00 and more"}, "text"),
])
def test_a_lone_surrogate_in_an_interview_s_text_is_400_naming_it(client, interviewer, path, body, field):
    if not path:
        response = interviewer.post("/api/interviews", {"candidate": "\ud800", "role": "x", "cards": ["kv-pool-users"]})
        field = "candidate"
    else:
        made = interviewer.create()
        interviewer.post(made["interviewer_url"] + "/show", {"card": "kv-pool-users"})
        base = made["candidate_url"] if path == "/scratch" else made["interviewer_url"]
        response = interviewer.post(base + path, body)
    assert response.status_code == 400 and response.get_json()["field"] == field, response.get_json()
    assert "lone surrogate" in response.get_json()["error"]


def test_a_recommendation_that_is_not_text_is_400_naming_it(interviewer):
    # Found by the Hypothesis tests' deep nesting (issue 21): a list as the recommendation was a 500.
    made = interviewer.create()
    response = interviewer.post(made["interviewer_url"] + "/recommendation", {"recommendation": [[1]], "reason": ""})
    assert response.status_code == 400 and response.get_json()["field"] == "recommendation"
