"""The values API's answer is written once per card version and scenario (web/caches.values), and
is byte for byte what jsonify writes of the values."""

from quizapp.web import api, caches


def test_the_values_are_written_once_per_scenario_and_as_jsonify_writes_them(app, client, monkeypatch):
    caches.clear()
    written = []
    original = api._values_text
    monkeypatch.setattr(api, "_values_text", lambda card, scenario: written.append(1) or original(card, scenario))
    first = client.get("/api/cards/kv-pool-users/values")
    again = client.get("/api/cards/kv-pool-users/values")
    other = client.get("/api/cards/kv-pool-users/values?kv_cache_dtype=fp8")
    assert first.status_code == again.status_code == other.status_code == 200
    assert first.data == again.data and len(written) == 2
    assert first.mimetype == "application/json"
    data = first.get_json()
    assert data["card"] == "kv-pool-users"
    with app.app_context():
        assert first.data.decode() == app.json.dumps(data) + "\n"
    assert other.data != first.data
