"""Numeric probes (numerical-qa-robustness section 4.2; diversify-your-datasets section 3) on
hand-written tables and hypotheses: the number helpers and what holds of every numeric probe. Each
probe's own tests are in tests/probes/test_probe_<name>.py, on this split."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tabprobe import schemas
from tabprobe.data.infotabs.table import Row, Table
from tabprobe.probes import number_edits as ne
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


def test_only_whole_integers_count_as_numbers():
    text = "1,234 and 3.5 and 46:06 and 2007-2008 and 4x4 and 12, then 7."
    assert [m.group(0) for m in ne.integers(text)] == ["1,234", "12", "7"]


def test_numeric_probes_are_deterministic():
    for name in ("num_words", "num_decimal", "num_verbosity", "num_distractor_rows", "num_comparative"):
        first, _ = generate(name, EXAMPLES, TABLES, seed=9)
        second, _ = generate(name, EXAMPLES, TABLES, seed=9)
        assert first.equals(second)


def test_quantity_cells_skip_years_dates_list_items_identifiers_and_names():
    table = Table(
        "T",
        "x",
        (
            Row("Founded", ("1979",)),
            Row("Area", ("12 km2",)),
            Row("Span", ("2007 - 2008",)),
            Row("Establishment", ("4 February 266",)),
            Row("Labels", ("19", "RCA")),
            Row("Number", ("23",)),
            Row("Sire", ("240 Sky King",)),
            Row("Metro", ("4,597,134",)),
            Row("No. of episodes", ("120",)),
            Row("First unification", ("221 BCE",)),
            Row("Running time", ("125 minutes",)),
        ),
    )
    assert ne.quantity_cells(table) == [(1, 0, 12, "km2"), (8, 0, 120, ""), (10, 0, 125, "minutes")]


@pytest.mark.parametrize(
    "text, numbers",
    [
        ("Atari 2600 sold 30 million units.", ["30"]),  # a number in a name is no quantity
        ("Despicable Me 3 made $1,034 million.", []),  # nor one glued to a currency sign
        ("It was released on June 21, 1999.", ["1999"]),  # the day of a date is not a number
        ("It was born on 21 June 1999.", ["1999"]),
        ("They were big in the 1970's and 1980s.", []),  # decades
        ("In 1990 it had 50% of the market.", ["1990"]),  # a sentence's first word is no name
    ],
)
def test_quantities_are_numbers_that_stand_as_numbers(text, numbers):
    assert [m.group(0) for m in ne.quantities(text)] == numbers
