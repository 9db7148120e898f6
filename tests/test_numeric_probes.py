"""Numeric probes (numerical-qa-robustness section 4.2; diversify-your-datasets section 3) on
hand-written tables and hypotheses: what holds of several numeric probes at once. Each probe's own
tests are in tests/probes/test_probe_<name>.py, on this split; the number helpers' in
tests/probes/test_number_edits.py."""

from __future__ import annotations

import pyarrow as pa

from tabprobe import schemas
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.generation import generate

TABLES = {
    "T20": Table(
        "T20",
        "Río Verde",
        (
            Row("Length", ("42 km",)),
            Row("Tributaries", ("3",)),
            Row("Source", ("Sierra Alta",)),
            Row("Discovered", ("1979",)),
        ),
        "River",
    ),
    "T21": Table(
        "T21",
        "Río Azul",
        (
            Row("Length", ("1,234 km",)),
            Row("Basin size", ("5,000 km2",)),
            Row("Dams", ("7",)),
            Row("Mouth", ("Lago Sur",)),
        ),
        "River",
    ),
    "T22": Table("T22", "Ada Quill", (Row("Born", ("March 3, 1950",)), Row("Children", ("2",))), "Person"),
    # two rivers of Río Verde's template (mostly its keys), both with dams: its twins
    "T23": Table(
        "T23",
        "Río Seco",
        (Row("Length", ("9 km",)), Row("Tributaries", ("1",)), Row("Source", ("Monte Gris",)), Row("Dams", ("1",))),
        "River",
    ),
    "T24": Table(
        "T24",
        "Río Claro",
        (Row("Length", ("70 km",)), Row("Tributaries", ("5",)), Row("Source", ("Lago Alto",)), Row("Dams", ("2",))),
        "River",
    ),
}
HYPOTHESES = [
    ("T20", "The Río Verde is 42 km long and has 3 tributaries.", "E"),
    ("T20", "The Río Verde was discovered in 1979.", "E"),
    ("T21", "The Río Azul is 1,234 km long.", "E"),
    ("T21", "The Río Azul has 12 dams.", "C"),
    ("T22", "Ada Quill has 2 children.", "E"),
    ("T22", "Ada Quill was a poet.", "N"),
]
EXAMPLES = pa.table(
    {
        "uid": [f"dev:{i + 2}" for i in range(len(HYPOTHESES))],
        "table_id": [t for t, _, _ in HYPOTHESES],
        "hypothesis": [h for _, h, _ in HYPOTHESES],
        "label": [lab for _, _, lab in HYPOTHESES],
    },
    schema=schemas.EXAMPLES,
)


def test_numeric_probes_are_deterministic():
    for name in ("num_words", "num_decimal", "num_verbosity", "num_distractor_rows", "num_comparative"):
        first, _ = generate(name, EXAMPLES, TABLES, seed=9)
        second, _ = generate(name, EXAMPLES, TABLES, seed=9)
        assert first.equals(second)
