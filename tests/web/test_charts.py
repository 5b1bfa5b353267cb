import xml.etree.ElementTree as ET

import pytest

from quizapp.web.charts import bar_chart, hbar_chart

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def bars(root):
    return [r for r in root.iterfind(".//svg:rect", NS) if r.get("class") == "bar"]


def labels(root):
    return [t for t in root.iterfind(".//svg:text", NS) if t.get("class") == "label"]


DAYS = [("2026-11-28", 3), ("2026-11-29", 0), ("2026-11-30", 6), ("2026-12-01", 1.5)]


def test_bar_chart_is_accessible_svg_with_title_and_desc_listing_every_point():
    root = parse(bar_chart(DAYS, "Reviews per day", unit="reviews"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img"
    title, desc = root.find("svg:title", NS), root.find("svg:desc", NS)
    assert title.text == "Reviews per day"
    assert desc.text == ("2026-11-28: 3 reviews; 2026-11-29: 0 reviews; "
                         "2026-11-30: 6 reviews; 2026-12-01: 1.5 reviews.")
    assert root.get("aria-labelledby").split() == [title.get("id"), desc.get("id")]
    assert "chart" in root.get("class").split()


def test_description_is_kept_in_front_of_the_listing():
    root = parse(bar_chart([("a", 1)], "T", description="Last week."))
    assert root.find("svg:desc", NS).text == "Last week. a: 1."


def test_one_bar_per_point_each_with_its_own_tooltip():
    root = parse(bar_chart(DAYS, "Reviews per day", unit="reviews"))
    found = bars(root)
    assert len(found) == len(DAYS)
    assert [b.find("svg:title", NS).text for b in found] == [
        "2026-11-28: 3 reviews", "2026-11-29: 0 reviews", "2026-11-30: 6 reviews", "2026-12-01: 1.5 reviews"]


def test_bar_heights_are_proportional_and_the_max_fills_the_plot():
    root = parse(bar_chart(DAYS, "Reviews per day"))
    y_axis = next(l for l in root.iterfind("svg:line", NS) if l.get("x1") == l.get("x2"))
    plot_top, baseline = float(y_axis.get("y1")), float(y_axis.get("y2"))
    plot_height = baseline - plot_top
    heights = [float(b.get("height")) for b in bars(root)]
    assert heights[2] == pytest.approx(plot_height, abs=0.01)        # 6 is the max
    assert heights[0] == pytest.approx(plot_height / 2, abs=0.01)    # 3 is half of it
    assert heights[3] == pytest.approx(plot_height / 4, abs=0.01)
    assert heights[1] == 0
    for bar in bars(root):  # every bar stands on the baseline
        assert float(bar.get("y")) + float(bar.get("height")) == pytest.approx(baseline, abs=0.02)


def test_y_axis_shows_zero_and_the_max():
    texts = [t.text for t in labels(parse(bar_chart(DAYS, "R")))]
    assert "0" in texts and "6" in texts


def test_hostile_labels_are_escaped_and_the_xml_still_parses():
    hostile = [("<script>alert(1)</script>", 2), ("Q&A \"quotes\" 'x'", 1), ("bad\x00\x1bbyte", 1)]
    svg = bar_chart(hostile, "Tags <b>&</b>", unit="<u>")
    assert "<script>" not in svg and "<b>" not in svg and "\x00" not in svg
    assert "&lt;script&gt;" in svg and "&amp;" in svg
    root = parse(svg)
    assert root.find("svg:title", NS).text == "Tags <b>&</b>"
    assert "<script>alert(1)</script>: 2<u>" in root.find("svg:desc", NS).text
    assert bars(root)[1].find("svg:title", NS).text == "Q&A \"quotes\" 'x': 1<u>"
    assert parse(hbar_chart(hostile, "<x>&"))  # the horizontal chart too


def test_x_labels_are_thinned_to_at_most_ten_evenly_spaced():
    points = [(f"day {i}", i % 7) for i in range(90)]
    root = parse(bar_chart(points, "Ninety days"))
    assert len(bars(root)) == 90
    x_labels = [t for t in labels(root) if t.get("text-anchor") == "middle"]
    assert 2 <= len(x_labels) <= 10
    xs = [float(t.get("x")) for t in x_labels]
    gaps = {round(b - a, 1) for a, b in zip(xs, xs[1:])}
    assert len(gaps) == 1  # evenly spaced


def test_few_points_get_every_x_label():
    root = parse(bar_chart(DAYS, "R"))
    assert [t.text for t in labels(root) if t.get("text-anchor") == "middle"] == [d for d, _ in DAYS]


@pytest.mark.parametrize("points", [[], [("a", 0), ("b", 0)]])
def test_empty_or_all_zero_says_no_data_yet(points):
    root = parse(bar_chart(points, "Reviews"))
    assert bars(root) == []
    assert [t.text for t in labels(root)] == ["No data yet"]
    assert root.find("svg:title", NS).text == "Reviews"
    assert "No data yet" in root.find("svg:desc", NS).text


def test_two_charts_get_different_ids_and_ids_are_stable():
    first, second = bar_chart(DAYS, "Reviews"), bar_chart(DAYS, "Accuracy")
    same_title_other_data = bar_chart(DAYS[:2], "Reviews")
    ids = [parse(svg).get("id") for svg in (first, second, same_title_other_data)]
    assert len(set(ids)) == 3
    assert ids[0].startswith("chart-reviews-")
    assert parse(bar_chart(DAYS, "Reviews")).get("id") == ids[0]
    all_ids = [el.get("id") for svg in (first, second) for el in parse(svg).iter() if el.get("id")]
    assert len(all_ids) == len(set(all_ids))  # title/desc ids do not clash across charts either


def test_hbar_rows_grow_the_height_and_print_values():
    tags = [("attention", 80), ("kv-cache", 40), ("batching", 100)]
    root = parse(hbar_chart(tags, "Accuracy by tag", max_value=100))
    assert float(root.get("height")) > float(parse(hbar_chart(tags[:1], "A", max_value=100)).get("height"))
    found = bars(root)
    assert len(found) == 3
    widths = [float(b.get("width")) for b in found]
    assert widths[0] == pytest.approx(widths[2] * 0.8, abs=0.01)
    assert widths[1] == pytest.approx(widths[2] * 0.4, abs=0.01)
    texts = [t.text for t in labels(root)]
    assert {"attention", "80%", "40%", "100%"} <= set(texts)
    assert root.find("svg:desc", NS).text == "attention: 80%; kv-cache: 40%; batching: 100%."


def test_hbar_without_max_value_scales_to_the_largest_and_zero_is_zero():
    root = parse(hbar_chart([("a", 50), ("b", 0)], "A"))
    full, zero = (float(b.get("width")) for b in bars(root))
    assert full > 0 and zero == 0
    assert [t.text for t in labels(parse(hbar_chart([], "A")))] == ["No data yet"]
