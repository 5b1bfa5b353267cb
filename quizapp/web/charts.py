"""Server-rendered SVG charts for the progress dashboard: readable without JavaScript, accessible.

Each chart is one inline <svg> string. Screen readers get a <title> and a <desc> that reads every
point in words; pointer users get a <title> tooltip per bar. Labels come from user data (card
titles, tags), so every piece of text goes through _text() before it reaches the markup.
Colours are presentation attributes using currentColor, so the chart follows the page's text
colour without CSS, and any stylesheet rule on .chart/.bar/.axis/.label overrides them.
"""

from __future__ import annotations

import hashlib
import html
import math
import re

NO_DATA = "No data yet"
MAX_X_LABELS = 10
CHAR_WIDTH = 6      # rough px per character at font-size 10, to keep labels from overlapping
ROW_HEIGHT = 24     # hbar_chart: one row per label, so the chart grows with the rows

# XML 1.0 forbids these even when escaped; one stray byte in a card title would break the page.
_FORBIDDEN_IN_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def bar_chart(points: list[tuple[str, float]], title: str, *, width: int = 640, height: int = 200,
              unit: str = "", description: str | None = None, font_size: int = 10) -> str:
    """A vertical bar chart, one bar per (label, value), the tallest bar filling the plot."""
    chart_id = _chart_id("bar", title, points, unit)
    scale = max((_size(value) for _, value in points), default=0.0)
    if scale <= 0:
        return _no_data(chart_id, title, description, width, height, font_size)
    char_width = CHAR_WIDTH * font_size / 10
    left, right, top, bottom = round(4.4 * font_size), 8, 10, round(2.2 * font_size)
    plot_width, plot_height = width - left - right, height - top - bottom
    baseline = top + plot_height
    slot = plot_width / len(points)
    # At most ~10 x labels, fewer when the chart is too narrow for ten, evenly spaced from the first.
    label_count = max(1, min(MAX_X_LABELS, int(plot_width // (char_width * 10))))
    step = math.ceil(len(points) / label_count)
    label_chars = max(3, int(slot * step / char_width) - 1)
    parts = [
        _line(left, top, left, baseline),
        _line(left, baseline, left + plot_width, baseline),
        _label(left - 4, baseline, "0", anchor="end"),
        _label(left - 4, top + font_size * 0.8, _number(scale), anchor="end"),
    ]
    for index, (label, value) in enumerate(points):
        bar_height = _size(value) / scale * plot_height
        x = left + index * slot
        parts.append(_bar(x + slot * 0.1, baseline - bar_height, slot * 0.8, bar_height,
                          _say(label, value, unit)))
        if index % step == 0:
            parts.append(_label(x + slot / 2, height - 6, _shorten(label, label_chars), anchor="middle"))
    return _svg(chart_id, title, _describe(points, unit, description), width, height, parts, font_size)


def hbar_chart(points: list[tuple[str, float]], title: str, *, width: int = 640, unit: str = "%",
               max_value: float | None = None, description: str | None = None, value_width: int = 56,
               font_size: int = 10, label_share: float = 0.3) -> str:
    """Horizontal bars, one row per label, the value printed at the end of each bar.

    max_value fixes the scale (100 for percentages); without it the largest value fills the row.
    value_width is the room kept right of the longest bar for its printed value; label_share the
    part of the width the labels take.
    """
    chart_id = _chart_id("hbar", title, points, unit)
    scale = max_value if max_value is not None else max((_size(v) for _, v in points), default=0.0)
    row_height = round(ROW_HEIGHT * max(1.0, font_size / 10))
    if not points or not scale > 0:  # written so a NaN max_value also lands here
        return _no_data(chart_id, title, description, width, row_height * 2, font_size)
    label_width, top = round(width * label_share), 4
    plot_width = width - label_width - value_width
    height = top * 2 + len(points) * row_height
    parts = [_line(label_width, top, label_width, height - top)]
    for index, (label, value) in enumerate(points):
        y = top + index * row_height
        bar_width = min(_size(value) / scale, 1.0) * plot_width  # a value over max_value stays in its row
        text_y = y + row_height * 0.65
        parts.append(_label(label_width - 6, text_y, _shorten(label, int(label_width // (CHAR_WIDTH * font_size / 10))
                                                               - 1), anchor="end"))
        parts.append(_bar(label_width, y + 4, bar_width, row_height - 8, _say(label, value, unit)))
        parts.append(_label(label_width + bar_width + 4, text_y, _with_unit(value, unit), anchor="start"))
    return _svg(chart_id, title, _describe(points, unit, description), width, height, parts, font_size)


# Fill opacities of a stacked bar's segments, in order; a legend repeats them beside each label.
SEGMENT_OPACITY = (0.9, 0.6, 0.35, 0.12)
MARKER_DASHES = ("4 2", "1 2")  # a stacked bar's marker lines, in order


def stacked_bar(segments: list[tuple[str, float]], title: str, *, total: float, unit: str = "",
                markers: list[tuple[str, float]] = (), width: int = 640, description: str | None = None) -> str:
    """One horizontal bar of ``total`` split into segments, left to right, with marker lines across it.

    A segment's shade is SEGMENT_OPACITY[i] (cycled); each has a tooltip, and <desc> reads every
    segment and marker (a marker's label states its own value). Values past ``total`` are clipped to the bar.
    """
    chart_id = _chart_id("stacked", title, list(segments) + list(markers), unit)
    height, top, bar_height, pad = 56, 14, 28, 2
    if not total > 0:
        return _no_data(chart_id, title, description, width, height)
    plot = width - 2 * pad
    parts, x = [], float(pad)
    for index, (label, value) in enumerate(segments):
        share = min(_size(value) / total, max(0.0, (pad + plot - x) / plot))
        parts.append(_segment(x, top, share * plot, bar_height, SEGMENT_OPACITY[index % len(SEGMENT_OPACITY)],
                              _say(label, value, unit), index))
        x += share * plot
    parts.append(f'<rect class="frame" x="{pad}" y="{top}" width="{plot}" height="{bar_height}" fill="none" '
                 'stroke="currentColor" stroke-opacity="0.6"/>')
    for index, (label, value) in enumerate(markers):  # lines only: they may sit close, so a legend names them
        mx = pad + min(_size(value) / total, 1.0) * plot
        dash = MARKER_DASHES[index % len(MARKER_DASHES)]
        parts.append(f'<line class="marker" x1="{_number(mx)}" y1="{top - 12}" x2="{_number(mx)}" '
                     f'y2="{top + bar_height + 4}" stroke="currentColor" stroke-width="2" stroke-dasharray="{dash}">'
                     f'<title>{_text(label)}</title></line>')
    parts.append(_label(pad, height - 2, "0", anchor="start"))
    parts.append(_label(width - pad, height - 2, _with_unit(total, unit), anchor="end"))
    listing = "; ".join([_say(label, value, unit) for label, value in segments] + [label for label, _ in markers])
    desc = f"{description} {listing}." if description else f"{listing}."
    return _svg(chart_id, title, desc, width, height, parts)


def _segment(x: float, y: float, width: float, height: float, opacity: float, tooltip: str, index: int) -> str:
    return (f'<rect class="bar segment segment-{index}" x="{_number(x)}" y="{_number(y)}" width="{_number(width)}" '
            f'height="{_number(height)}" fill="currentColor" fill-opacity="{opacity}">'
            f'<title>{_text(tooltip)}</title></rect>')


def _chart_id(kind: str, title: str, points, unit: str) -> str:
    """A readable slug plus a hash of the content: same-titled charts of different data do not clash,
    and the same chart renders identically every time (cache- and test-friendly)."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(title).lower()).strip("-")[:32].rstrip("-") or "chart"
    digest = hashlib.sha1(repr((kind, title, list(points), unit)).encode()).hexdigest()[:8]
    return f"chart-{slug}-{digest}"


def _svg(chart_id: str, title: str, desc: str, width: int, height: int, parts: list[str],
         font_size: int = 10) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="{chart_id}" class="chart" role="img" '
            f'aria-labelledby="{chart_id}-title {chart_id}-desc" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" font-family="sans-serif" font-size="{font_size}" '
            f'fill="currentColor">'
            f'<title id="{chart_id}-title">{_text(title)}</title>'
            f'<desc id="{chart_id}-desc">{_text(desc)}</desc>{"".join(parts)}</svg>')


def _no_data(chart_id: str, title: str, description: str | None, width: int, height: int,
             font_size: int = 10) -> str:
    desc = f"{description} {NO_DATA}." if description else f"{NO_DATA}."
    message = _label(width / 2, height / 2, NO_DATA, anchor="middle")
    return _svg(chart_id, title, desc, width, height, [message], font_size)


def _describe(points, unit: str, description: str | None) -> str:
    """Every point in words, so a screen reader gets the whole chart, not just its title."""
    listing = "; ".join(_say(label, value, unit) for label, value in points) + "."
    return f"{description} {listing}" if description else listing


def _bar(x: float, y: float, width: float, height: float, tooltip: str) -> str:
    return (f'<rect class="bar" x="{_number(x)}" y="{_number(y)}" width="{_number(width)}" '
            f'height="{_number(height)}" fill="currentColor" fill-opacity="0.75">'
            f'<title>{_text(tooltip)}</title></rect>')


def _line(x1: float, y1: float, x2: float, y2: float) -> str:
    return (f'<line class="axis" x1="{_number(x1)}" y1="{_number(y1)}" x2="{_number(x2)}" '
            f'y2="{_number(y2)}" stroke="currentColor" stroke-opacity="0.5"/>')


def _label(x: float, y: float, text: str, *, anchor: str) -> str:
    return f'<text class="label" x="{_number(x)}" y="{_number(y)}" text-anchor="{anchor}">{_text(text)}</text>'


def _say(label: str, value: float, unit: str) -> str:
    return f"{label}: {_with_unit(value, unit)}"


def _with_unit(value: float, unit: str) -> str:
    # "3 reviews" but "80%": a word unit takes a space, a symbol does not.
    if not unit:
        return _number(value)
    return f"{_number(value)} {unit}" if unit[0].isalnum() else f"{_number(value)}{unit}"


def _number(value: float) -> str:
    """3.0 -> "3", 2.456 -> "2.46": short enough for labels and coordinates."""
    if not math.isfinite(value):
        return str(value)
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _size(value: float) -> float:
    # A bar cannot be negative or NaN tall; such a point still shows its real value in words.
    return value if math.isfinite(value) and value > 0 else 0.0


def _shorten(label: str, limit: int) -> str:
    label = str(label)
    return label if len(label) <= limit else label[:max(1, limit - 1)] + "\u2026"


def _text(value: str) -> str:
    return html.escape(_FORBIDDEN_IN_XML.sub("", str(value)), quote=True)
