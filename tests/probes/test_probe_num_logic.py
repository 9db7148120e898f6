"""num_logic, numerical-qa-robustness's Logic: the comparison's operation changed, the numbers kept;
on tests/test_numeric_perturbations.py's split."""

import json
import re

import pyarrow as pa
from probe_helpers import comparison, gold_value, many
from test_numeric_perturbations import TABLES

from tabprobe import schemas
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.generation import generate
from tabprobe.probes.infotabs.numeric.number_templates import label_for


def test_num_logic_changes_the_operation_and_keeps_table_and_numbers():
    records = many("num_logic")
    assert {r["orig_uid"] for r in records} == {"dev:2", "dev:3", "dev:4", "dev:5"}
    for record in records:
        provenance = json.loads(record["provenance"])
        assert Table.from_arrow(record["table"]) == TABLES[record["table_id"]]
        key, v, relation, n, _ = comparison(record)
        assert v == gold_value(record)
        assert relation != provenance["base"]["relation"] and relation != "exactly"
        assert record["expected"] == label_for(relation, v, n)
        # the base comparison (num_comparative's) was of the same numbers
        assert provenance["base"]["label"] == label_for(provenance["base"]["relation"], v, n)
    assert {comparison(r)[2] for r in records} == {"more than", "less than", "at least", "at most"}
    # "exactly V" turned into another operation: strict ones are false, inclusive ones true
    boundary = [r for r in records if comparison(r)[1] == comparison(r)[3]]
    assert boundary
    for record in boundary:
        assert record["expected"] == ("E" if comparison(record)[2] in ("at least", "at most") else "C")


def test_num_logic_writes_no_plural_for_one():
    table = Table("T50", "Ola Brin", (Row("Children", ("1",)),), "Person")
    examples = pa.table(
        {
            "uid": [f"dev:{i}" for i in range(2, 40)],
            "table_id": ["T50"] * 38,
            "hypothesis": ["x"] * 38,
            "label": ["N"] * 38,
        },
        schema=schemas.EXAMPLES,
    )
    out, coverage = generate("num_logic", examples, {"T50": table}, seed=3)
    assert out.num_rows > 0 and not [h for h in out["hypothesis"].to_pylist() if re.search(r"\b1 children", h)]
    assert coverage["skipped"] == {
        'no comparison with a quantity of the table reads as English ("1 children")': 38 - out.num_rows
    }
