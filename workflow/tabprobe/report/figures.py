"""Figures as standalone SVG text; the same scores always give the same bytes.

`transition_graph` draws the paper's label-transition graphs (Figures 3, 7, 8, 9, 11) by hand:
three label nodes, one directed edge per (before, after) pair including the self-loops, each
edge labelled with its percentage for every split, invalid edges red and dashed (so they stay
apart in a greyscale print). `dot_chart` draws the summary's means with interval bars with
matplotlib, and `learning_curve` the controlled-variance experiment's accuracy against training
size.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tabprobe import LABEL_NAMES
from tabprobe.probes.transitions import TransitionRule

Point = tuple[float, float]

INVALID_COLOUR = "#c62828"
VALID_COLOUR = "#37474f"
NODE_RADIUS = 28.0
# The paper's layout: CONTRADICT on top, ENTAIL bottom left, NEUTRAL bottom right.
NODES: dict[str, Point] = {"C": (350.0, 140.0), "E": (170.0, 440.0), "N": (530.0, 440.0)}
# Self-loops leave C upwards and E, N downwards, clear of the edges between the nodes.
LOOP_DIRECTIONS: dict[str, Point] = {"C": (0.0, -1.0), "E": (0.0, 1.0), "N": (0.0, 1.0)}
WIDTH, HEIGHT = 700, 620


def _add(a: Point, b: Point, scale: float = 1.0) -> Point:
    return a[0] + scale * b[0], a[1] + scale * b[1]


def _unit(a: Point, b: Point) -> Point:
    """Unit vector from a to b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return dx / length, dy / length


def _rotate(v: Point, angle: float) -> Point:
    c, s = math.cos(angle), math.sin(angle)
    return v[0] * c - v[1] * s, v[0] * s + v[1] * c


def _p(point: Point) -> str:
    return f"{point[0]:.1f},{point[1]:.1f}"


def _arrowhead(tip: Point, towards_tip: Point, colour: str) -> str:
    """A filled triangle at `tip` pointing along `towards_tip` (drawn, not a <marker>, so several
    figures on one page never share element ids)."""
    back = _add(tip, towards_tip, -10.0)
    side = (-towards_tip[1], towards_tip[0])
    return f'<polygon points="{_p(tip)} {_p(_add(back, side, 4.5))} {_p(_add(back, side, -4.5))}" fill="{colour}"/>'


def _label(at: Point, text: str, colour: str, along: Point | None = None) -> str:
    """Edge text centred at `at`; with `along`, turned to run along that direction (kept upright),
    so the labels of the two edges between a pair of nodes sit on either side of them."""
    rotate = ""
    if along is not None:
        angle = math.degrees(math.atan2(along[1], along[0]))
        if angle > 90:
            angle -= 180
        elif angle < -90:
            angle += 180
        rotate = f' transform="rotate({angle:.1f} {at[0]:.1f} {at[1]:.1f})"'
    # A white halo under the text keeps it readable where it crosses an edge, on screen and in print.
    return (
        f'<text x="{at[0]:.1f}" y="{at[1]:.1f}" fill="{colour}" font-size="13" text-anchor="middle" '
        f'dominant-baseline="middle" stroke="#fff" stroke-width="4" paint-order="stroke"{rotate}>'
        f"{html.escape(text)}</text>"
    )


def _edge(before: str, after: str, text: str, colour: str) -> list[str]:
    u, v = NODES[before], NODES[after]
    if before == after:
        out = LOOP_DIRECTIONS[before]
        start = _add(u, _rotate(out, 0.5), NODE_RADIUS)
        end = _add(u, _rotate(out, -0.5), NODE_RADIUS)
        c1 = _add(u, _rotate(out, 0.65), NODE_RADIUS + 62)
        c2 = _add(u, _rotate(out, -0.65), NODE_RADIUS + 62)
        path = f"M{_p(start)} C{_p(c1)} {_p(c2)} {_p(end)}"
        tangent = _unit(c2, end)
        label = _label(_add(u, out, NODE_RADIUS + 56), text, colour)
    else:
        d = _unit(u, v)
        normal = (-d[1], d[0])  # the reverse edge bends the other way
        middle = ((u[0] + v[0]) / 2, (u[1] + v[1]) / 2)
        control = _add(middle, normal, 42)
        start = _add(u, _unit(u, control), NODE_RADIUS)
        end = _add(v, _unit(v, control), NODE_RADIUS + 1)
        path = f"M{_p(start)} Q{_p(control)} {_p(end)}"
        tangent = _unit(control, end)
        on_curve = (
            0.25 * start[0] + 0.5 * control[0] + 0.25 * end[0],
            0.25 * start[1] + 0.5 * control[1] + 0.25 * end[1],
        )
        label = _label(_add(on_curve, normal, 17), text, colour, along=d)
    return [
        f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"'
        + (' stroke-dasharray="7 4"' if colour == INVALID_COLOUR else "")
        + "/>",
        _arrowhead(end, tangent, colour),
        label,
    ]


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def transition_graph(
    percent: Mapping[tuple[str, str], Sequence[float | None]],
    rule: TransitionRule,
    splits: Sequence[str],
    title: str,
    names: Mapping[str, str] = LABEL_NAMES,
) -> str:
    """SVG of a transition graph. `percent[(before, after)]` holds one value per split (in the
    order of `splits`): the % of examples predicted `before` that are predicted `after` once
    perturbed; None where there is no value (no example had that prediction). `names`: the
    dataset's names of the labels, in the legend."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{html.escape(title)}" font-family="Helvetica, Arial, sans-serif">',
        f"<title>{html.escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="12" y="22" font-size="14" font-weight="bold">{html.escape(title)}</text>',
    ]
    labels = rule.labels  # E, N, C; E and C for a two-label dataset's rule
    for before in labels:
        for after in labels:
            valid = rule.is_valid(before, after)
            text = ", ".join(_percent(v) for v in percent.get((before, after), [None] * len(splits)))
            # One group per edge, with a tooltip naming it (and something tests can read).
            parts.append(
                f'<g class="edge {"valid" if valid else "invalid"}"><title>{before} → {after}: {text} '
                f"({'valid' if valid else 'invalid'})</title>"
            )
            parts += _edge(before, after, text, VALID_COLOUR if valid else INVALID_COLOUR)
            parts.append("</g>")
    # Drawn in NODES' order (the order the figures have always been drawn in), the rule's labels only.
    for lab, (x, y) in ((lab, place) for lab, place in NODES.items() if lab in labels):
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{NODE_RADIUS:.0f}" fill="#eceff1" stroke="#263238" stroke-width="1.5"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="18" font-weight="bold" text-anchor="middle" '
            f'dominant-baseline="central">{lab}</text>'
        )
    legend = [
        "Edge labels: % of the examples predicted with the source label that are predicted with the target label",
        f"after the change, for {', '.join(splits)}. Red, dashed: invalid transition. "
        + ", ".join(f"{lab} = {names[lab]}" for lab in labels)
        + ".",
    ]
    for i, line in enumerate(legend):
        parts.append(
            f'<text x="12" y="{HEIGHT - 30 + 16 * i}" font-size="11.5" fill="#37474f">{html.escape(line)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


@dataclass(frozen=True)
class ChartPoint:
    group: str  # rows are grouped under these headings, in order of first appearance
    label: str
    mean: float | None
    low: float | None
    high: float | None
    n: int
    paper: float | None = None  # the paper's value, drawn as a red tick


@dataclass(frozen=True)
class ChartPanel:
    title: str  # also the x axis label
    points: Sequence[ChartPoint]
    zero_line: bool = False


def _style(salt: str) -> dict:
    """matplotlib settings of every chart. `salt` must differ between the figures of one page:
    matplotlib derives the ids inside an SVG from it, and two inline SVGs must not share an id."""
    return {
        "svg.hashsalt": salt,
        "svg.fonttype": "none",
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    return plt


def _svg_text(figure, title: str, salt: str) -> str:
    """The figure as SVG text to inline in a page: no date (same data, same bytes), no prolog, no
    page-wide <style>, ids prefixed by `salt`."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML prolog and doctype: the SVG is inlined in HTML too
    # matplotlib's <style>*{...}</style> would style every element of the page that inlines it.
    svg = re.sub(r"<style[^>]*>.*?</style>", "", svg, flags=re.S)
    svg = _prefix_ids(svg, re.sub(r"[^A-Za-z0-9_-]+", "-", salt))
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(title)}" ', 1)


def dot_chart(panels: Sequence[ChartPanel], title: str, salt: str) -> str:
    """SVG of one or more panels of horizontal dot-and-interval rows (a forest plot), grouped.

    `salt` must differ between the figures of one page (see `_style`).
    """
    plt = _pyplot()
    heights = [len(p.points) + len({pt.group for pt in p.points}) + 1.5 for p in panels]
    with plt.rc_context(_style(salt)):
        figure, axes = plt.subplots(
            len(panels),
            1,
            figsize=(8.0, 0.9 + 0.24 * sum(heights)),
            gridspec_kw={"height_ratios": heights},
            squeeze=False,
        )
        for ax, panel in zip(axes[:, 0], panels):
            _draw_panel(ax, panel)
        figure.suptitle(title, x=0.01, ha="left", fontsize=11, fontweight="bold")
        figure.tight_layout()
        svg = _svg_text(figure, title, salt)
        plt.close(figure)
    return svg


@dataclass(frozen=True)
class CurvePoint:
    size: int  # training examples; 0 is the model before fine-tuning
    mean: float | None
    low: float | None  # the bar: here the lowest and highest repeat
    high: float | None


@dataclass(frozen=True)
class CurveSeries:
    label: str  # in the legend
    points: Sequence[CurvePoint]
    emphasised: bool = False  # drawn solid and thicker (the range trained on); the others dashed


# Colour-blind-safe (Okabe-Ito), distinct in greyscale through the markers and dashes too.
CURVE_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
CURVE_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def learning_curve(series: Sequence[CurveSeries], title: str, y_label: str, salt: str) -> str:
    """SVG of a learning curve: one line per series over the training sizes, a point at each size
    with a bar from `low` to `high`. The sizes sit at even steps, labelled with their values (they
    double, and 0 has no place on a log axis); `salt` as for `dot_chart`."""
    plt = _pyplot()
    sizes = sorted({p.size for s in series for p in s.points})
    step = {size: i for i, size in enumerate(sizes)}
    offset = 0.06  # series side by side at a size, so their bars do not hide each other
    with plt.rc_context(_style(salt)):
        figure, ax = plt.subplots(figsize=(7.0, 4.2))
        for k, one in enumerate(series):
            colour, marker = CURVE_COLOURS[k % len(CURVE_COLOURS)], CURVE_MARKERS[k % len(CURVE_MARKERS)]
            shift = (k - (len(series) - 1) / 2) * offset
            drawn = [p for p in one.points if p.mean is not None]
            xs = [step[p.size] + shift for p in drawn]
            ax.plot(
                xs,
                [p.mean for p in drawn],
                color=colour,
                marker=marker,
                markersize=5,
                linewidth=2.0 if one.emphasised else 1.3,
                linestyle="-" if one.emphasised else (0, (5, 3)),
                label=one.label,
            )
            for x, p in zip(xs, drawn):
                if p.low is not None and p.high is not None:
                    ax.plot([x, x], [p.low, p.high], color=colour, linewidth=1.0, alpha=0.8)
        ax.set_xticks(range(len(sizes)), [f"{size:,}" + (" (before)" if size == 0 else "") for size in sizes])
        ax.set_xlim(-0.4, len(sizes) - 0.6)
        ax.set_xlabel("training examples")
        ax.set_ylabel(y_label)
        ax.grid(axis="y", color="#e0e0e0", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="best", frameon=False, title="test range")
        figure.suptitle(title, x=0.01, ha="left", fontsize=11, fontweight="bold")
        figure.tight_layout()
        svg = _svg_text(figure, title, salt)
        plt.close(figure)
    return svg


def _prefix_ids(svg: str, prefix: str) -> str:
    """Every id in the SVG (and every reference to one) prefixed: matplotlib names its elements
    figure_1, axes_1, ... in every figure, and ids must be unique on the page that inlines them."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    return re.sub(
        r'(url\(#|href="#)([^)"]+)',
        lambda m: m.group(1) + (f"{prefix}-{m.group(2)}" if m.group(2) in ids else m.group(2)),
        svg,
    )


def _draw_panel(ax, panel: ChartPanel) -> None:
    y, ticks, labels, headings, group = 0.0, [], [], set(), None
    for point in panel.points:
        if point.group != group:
            group = point.group
            y -= 0.4 if ticks else 0.0
            headings.add(len(ticks))
            ticks.append(y)
            labels.append(group)
            y -= 1.0
        ticks.append(y)
        labels.append(f"{point.label}  (n={point.n})")
        if point.mean is not None:
            if point.low is not None and point.high is not None:
                ax.plot([point.low, point.high], [y, y], color="#455a64", linewidth=1.6, solid_capstyle="butt")
                ax.plot([point.low, point.low], [y - 0.22, y + 0.22], color="#455a64", linewidth=1.2)
                ax.plot([point.high, point.high], [y - 0.22, y + 0.22], color="#455a64", linewidth=1.2)
            ax.plot([point.mean], [y], marker="o", markersize=5, color="#1a237e", linestyle="none")
        if point.paper is not None:
            ax.plot(
                [point.paper], [y], marker="|", markersize=11, markeredgewidth=2, color=INVALID_COLOUR, linestyle="none"
            )
        y -= 1.0
    ax.set_yticks(ticks, labels)
    for index, tick in enumerate(ax.get_yticklabels()):
        if index in headings:
            tick.set_fontweight("bold")
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(y + 0.3, 0.8)
    if panel.zero_line:
        ax.axvline(0.0, color="#9e9e9e", linewidth=0.8, linestyle=(0, (4, 3)))
    ax.grid(axis="x", color="#e0e0e0", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel(panel.title)
