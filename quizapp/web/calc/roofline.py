"""The time section's charts, SVG drawn on the server: decode tokens/s against the batch with the
bandwidth and compute roofs and the knee at critical_batch, and prefill time against the prompt.

Both axes are logarithmic (a batch of 1 to thousands, a prompt of 32 to a million tokens). Lines
differ by dash as well as by shade, and the legend beside the chart repeats the dashes, so the
chart reads in one colour and without colour; <desc> reads every point.
"""

from __future__ import annotations

import math

from ...calc import fmt
from ...calc.time.curve import decode_curve, prefill_curve
from ..charts import _chart_id, _number, _svg, _text

# Each line's look: (stroke-dasharray, stroke-width, opacity), repeated by the legend's swatches.
STYLES = {"bound": ("", 2.5, 1.0), "per_sequence": ("6 3", 2, 0.9), "bandwidth": ("2 3", 1.5, 0.6),
          "compute": ("8 3 2 3", 1.5, 0.6), "knee": ("3 3", 1, 0.7)}
WIDTH, HEIGHT = 400, 250
LEFT, RIGHT, TOP, BOTTOM = 54, 10, 12, 36


def _count(n: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{_number(n / size)}{suffix}"
    return _number(n)


def _seconds(value: float) -> str:
    """A decade of seconds as a tick reads it: 1 µs, 10 ms, 1 s."""
    for size, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= size * 0.999:
            return f"{_number(value / size)} {unit}"
    return f"{_number(value * 1e9)} ns"


class _Axes:
    """Log scales from decade to decade around the data."""

    def __init__(self, xs: list[float], ys: list[float]):
        self.x0, self.x1 = math.log10(min(xs)), math.log10(max(xs))
        self.y0, self.y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        if self.x1 == self.x0:
            self.x1 += 1
        if self.y1 == self.y0:
            self.y1 += 1

    def x(self, value: float) -> float:
        return LEFT + (math.log10(value) - self.x0) / (self.x1 - self.x0) * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        return HEIGHT - BOTTOM - (math.log10(value) - self.y0) / (self.y1 - self.y0) * (HEIGHT - TOP - BOTTOM)


def _path(axes: _Axes, points: list[tuple[float, float]], style: str, label: str) -> str:
    dash, width, opacity = STYLES[style]
    d = " ".join(f"{'M' if i == 0 else 'L'}{_number(axes.x(x))} {_number(axes.y(y))}" for i, (x, y) in enumerate(points))
    return (f'<path class="line line-{style}" d="{d}" fill="none" stroke="currentColor" stroke-width="{width}" '
            f'stroke-opacity="{opacity}"' + (f' stroke-dasharray="{dash}"' if dash else "")
            + f'><title>{_text(label)}</title></path>')


def _frame(axes: _Axes, x_ticks: list[float], y_format, x_format, x_label: str, y_label: str) -> list[str]:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    parts = [f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="currentColor" '
             'stroke-opacity="0.5"/>',
             f'<line class="axis" x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="currentColor" '
             'stroke-opacity="0.5"/>']
    for exponent in range(axes.y0, axes.y1 + 1):
        y = axes.y(10.0 ** exponent)
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{_number(y)}" x2="{right}" y2="{_number(y)}" '
                     'stroke="currentColor" stroke-opacity="0.12"/>')
        parts.append(f'<text class="label" x="{LEFT - 4}" y="{_number(y + 3)}" text-anchor="end">'
                     f'{_text(y_format(10.0 ** exponent))}</text>')
    for tick in x_ticks:
        x = axes.x(tick)
        parts.append(f'<text class="label" x="{_number(x)}" y="{bottom + 13}" text-anchor="middle">'
                     f'{_text(x_format(tick))}</text>')
    parts.append(f'<text class="label axis-label" x="{(LEFT + right) / 2}" y="{HEIGHT - 4}" '
                 f'text-anchor="middle">{_text(x_label)}</text>')
    parts.append(f'<text class="label axis-label" x="12" y="{(TOP + bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(TOP + bottom) / 2})">{_text(y_label)}</text>')
    return parts


def _ticks(xs: list[float], most: int = 6) -> list[float]:
    """Powers of ten within the data, or every other point when the data spans less than two decades."""
    decades = [10.0 ** e for e in range(math.ceil(math.log10(min(xs))), math.floor(math.log10(max(xs))) + 1)]
    if len(decades) >= 2:
        return decades
    step = max(1, math.ceil(len(xs) / most))
    return xs[::step]


def _decode_lines(points) -> dict[str, list[tuple[float, float]]]:
    return {"bound": [(p.batch, p.batch_speed) for p in points],
            "per_sequence": [(p.batch, p.per_sequence) for p in points],
            "bandwidth": [(p.batch, p.bandwidth_roof) for p in points],
            "compute": [(p.batch, p.compute_roof) for p in points]}


def _prefill_lines(points) -> dict[str, list[tuple[float, float]]]:
    return {"bound": [(p.tokens, p.seconds) for p in points],
            "compute": [(p.tokens, p.compute_seconds) for p in points],
            "bandwidth": [(p.tokens, p.memory_seconds) for p in points]}


def shared_scales(results) -> tuple[tuple[list, list], tuple[list, list]]:
    """The points of every result's two charts, so charts set side by side share their axes."""
    decode = [xy for r in results for line in _decode_lines(decode_curve(r)).values() for xy in line]
    prefill = [xy for r in results for line in _prefill_lines(prefill_curve(r)).values() for xy in line]
    return ([x for x, _ in decode], [y for _, y in decode]), ([x for x, _ in prefill], [y for _, y in prefill])


def decode_chart(result, scale: tuple[list, list] | None = None) -> dict:
    """The decode roofline chart and its legend; ``scale`` holds other charts' points to share axes with."""
    points = decode_curve(result)
    knee = result["critical_batch"]
    lines = _decode_lines(points)
    xs = [p.batch for p in points]
    ys = [y for line in lines.values() for _, y in line]
    axes = _Axes(xs + (scale[0] if scale else []), ys + (scale[1] if scale else []))
    labels = {"bound": "the batch's tokens/s (the bound)", "per_sequence": "one sequence's tokens/s",
              "bandwidth": "bandwidth roof: memory time only", "compute": "compute roof: FLOPs only"}
    parts = _frame(axes, _ticks(xs + (scale[0] if scale else [])), _count, _count,
                   "batch (sequences decoded together)", "tokens/s")
    for style in ("bandwidth", "compute", "per_sequence", "bound"):
        parts.append(_path(axes, lines[style], style, labels[style]))
    legend = [{"label": labels[style], "style": style} for style in ("bound", "per_sequence", "bandwidth", "compute")]
    if xs[0] <= knee <= xs[-1]:
        x = axes.x(knee)
        dash, width, opacity = STYLES["knee"]
        parts.append(f'<line class="knee" x1="{_number(x)}" y1="{TOP}" x2="{_number(x)}" y2="{HEIGHT - BOTTOM}" '
                     f'stroke="currentColor" stroke-width="{width}" stroke-opacity="{opacity}" '
                     f'stroke-dasharray="{dash}"><title>critical_batch {knee:,.0f}</title></line>')
        legend.append({"label": f"the knee: critical_batch {knee:,.0f}", "style": "knee"})
    own = next(p for p in points if p.batch == result["decode_batch"])
    parts.append(f'<circle class="own" cx="{_number(axes.x(own.batch))}" cy="{_number(axes.y(own.batch_speed))}" '
                 f'r="4" fill="currentColor"><title>this scenario: {own.batch:,} sequences, '
                 f'{own.batch_speed:,.1f} tokens/s</title></circle>')
    words = "; ".join(f"batch {p.batch:,}: {p.batch_speed:,.1f} tokens/s for the batch, {p.per_sequence:,.1f} per "
                      f"sequence" for p in points)
    title = "Decode tokens/s against the batch (upper bounds)"
    chart_id = _chart_id("roofline", title, [(p.batch, p.batch_speed) for p in points], "tokens/s")
    description = (f"At {result['decode_context_tokens']:,} tokens of context, log scales. {words}. The knee at "
                   f"{knee:,.0f} sequences.")
    return {"svg": _svg(chart_id, title, description, WIDTH, HEIGHT, parts), "legend": legend, "title": title}


def prefill_chart(result, scale: tuple[list, list] | None = None) -> dict:
    """Prefill time against the prompt's length, with its compute and memory sides."""
    points = prefill_curve(result)
    lines = _prefill_lines(points)
    xs = [p.tokens for p in points]
    ys = [y for line in lines.values() for _, y in line]
    axes = _Axes(xs + (scale[0] if scale else []), ys + (scale[1] if scale else []))
    labels = {"bound": "prefill time (the bound)", "compute": "compute: FLOPs over the peak",
              "bandwidth": "memory: weights read once, KV written"}
    parts = _frame(axes, _ticks(xs + (scale[0] if scale else [])), _seconds, _count, "prompt tokens", "seconds")
    for style in ("bandwidth", "compute", "bound"):
        parts.append(_path(axes, lines[style], style, labels[style]))
    own = next(p for p in points if p.tokens == result.time_model[1].prompt)
    parts.append(f'<circle class="own" cx="{_number(axes.x(own.tokens))}" cy="{_number(axes.y(own.seconds))}" r="4" '
                 f'fill="currentColor"><title>this scenario: {own.tokens:,} tokens, '
                 f'{fmt.duration(own.seconds)}</title></circle>')
    title = "Prefill time against the prompt's length (lower bounds)"
    words = "; ".join(f"{p.tokens:,} tokens: {fmt.duration(p.seconds)}" for p in points)
    chart_id = _chart_id("prefill", title, lines["bound"], "s")
    return {"svg": _svg(chart_id, title, f"Log scales. {words}.", WIDTH, HEIGHT, parts),
            "legend": [{"label": labels[s], "style": s} for s in ("bound", "compute", "bandwidth")], "title": title}
