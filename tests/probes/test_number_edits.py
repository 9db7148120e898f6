"""The number helpers the numeric probes share (probes/infotabs/number_edits.py): which integers count as
numbers, which cells hold one quantity, which numbers of a hypothesis stand as quantities."""

from __future__ import annotations

import pytest

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.infotabs import number_edits as ne


def test_only_whole_integers_count_as_numbers():
    text = "1,234 and 3.5 and 46:06 and 2007-2008 and 4x4 and 12, then 7."
    assert [m.group(0) for m in ne.integers(text)] == ["1,234", "12", "7"]


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
