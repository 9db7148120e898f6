"""Figures as standalone SVG text, drawn here so the report needs no plotting stack and the
same scores always give the same bytes.

`transition_graph` draws the paper's label-transition graphs (Figures 3, 7, 8, 9, 11): three
label nodes, one directed edge per (before, after) pair including the self-loops, each edge
labelled with its percentage for every split, invalid edges in red.
"""

from __future__ import annotations

import html
import math
from typing import Mapping, Sequence

from . import LABEL_NAMES, LABELS
from .transitions import TransitionRule

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
    return (f'<polygon points="{_p(tip)} {_p(_add(back, side, 4.5))} {_p(_add(back, side, -4.5))}" '
            f'fill="{colour}"/>')


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
    return (f'<text x="{at[0]:.1f}" y="{at[1]:.1f}" fill="{colour}" font-size="13" text-anchor="middle" '
            f'dominant-baseline="middle" stroke="#fff" stroke-width="4" paint-order="stroke"{rotate}>'
            f"{html.escape(text)}</text>")


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
        on_curve = (0.25 * start[0] + 0.5 * control[0] + 0.25 * end[0], 0.25 * start[1] + 0.5 * control[1] + 0.25 * end[1])
        label = _label(_add(on_curve, normal, 17), text, colour, along=d)
    return [
        f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.6"/>',
        _arrowhead(end, tangent, colour),
        label,
    ]


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def transition_graph(percent: Mapping[tuple[str, str], Sequence[float | None]], rule: TransitionRule,
                     splits: Sequence[str], title: str) -> str:
    """SVG of a transition graph. `percent[(before, after)]` holds one value per split (in the
    order of `splits`): the % of examples predicted `before` that are predicted `after` once
    perturbed; None where there is no value (no example had that prediction)."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{html.escape(title)}" font-family="Helvetica, Arial, sans-serif">',
        f"<title>{html.escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="12" y="22" font-size="14" font-weight="bold">{html.escape(title)}</text>',
    ]
    for before in LABELS:
        for after in LABELS:
            valid = rule.is_valid(before, after)
            text = ", ".join(_percent(v) for v in percent.get((before, after), [None] * len(splits)))
            # One group per edge, with a tooltip naming it (and something tests can read).
            parts.append(f'<g class="edge {"valid" if valid else "invalid"}"><title>{before} → {after}: {text} '
                         f'({"valid" if valid else "invalid"})</title>')
            parts += _edge(before, after, text, VALID_COLOUR if valid else INVALID_COLOUR)
            parts.append("</g>")
    for lab, (x, y) in NODES.items():
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{NODE_RADIUS:.0f}" fill="#eceff1" stroke="#263238" stroke-width="1.5"/>')
        parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="18" font-weight="bold" text-anchor="middle" '
                     f'dominant-baseline="central">{lab}</text>')
    legend = [
        "Edge labels: % of the examples predicted with the source label that are predicted with the target label",
        f"after the change, for {', '.join(splits)}. Red: invalid transition. "
        + ", ".join(f"{lab} = {LABEL_NAMES[lab]}" for lab in LABELS) + ".",
    ]
    for i, line in enumerate(legend):
        parts.append(f'<text x="12" y="{HEIGHT - 30 + 16 * i}" font-size="11.5" fill="#37474f">{html.escape(line)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
