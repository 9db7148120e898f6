"""temporal_preserve: a false date given another year the table does not name (CONTRADICT kept); on
tests/test_more_hypothesis_probes.py's sentences and on the real alpha1."""

import json
import re

import numpy as np
import pytest
from test_more_hypothesis_probes import TABLES, docs, edited, outputs, uid  # noqa: F401  (the fixtures)

from tabprobe.probes import Example, ProbeContext, get_probe


def test_a_false_date_gets_another_year_the_table_does_not_name(outputs):  # noqa: F811
    record = edited(outputs, "temporal_preserve", "Breakfast in America was released in the summer of 1979.")
    provenance = json.loads(record["provenance"])
    assert record["expected"] == "C" and provenance["rule"] == "year_changed_kept_false"
    year = int(provenance["changes"][0]["new"])
    # not 1978-1980 (the table's years, and one beside them under a season), never before the
    # recording (1978): released in the summer of 1981-1989
    assert 1981 <= year <= 1989
    assert provenance["event_year"] == [1979]  # "released" names the Released row


def test_a_false_date_stays_on_its_side_of_every_year_of_the_table(docs):  # noqa: F811
    # "Bo Lind died in 1970" of a man born in 1975: any year before 1975, never one after
    years = {
        int(e.provenance["changes"][0]["new"])
        for seed in range(20)
        for e in get_probe("temporal_preserve").apply(
            Example(uid("Bo Lind died in 1970."), "T2", "Bo Lind died in 1970.", "C"),
            TABLES["T2"],
            docs[uid("Bo Lind died in 1970.")],
            ProbeContext(rng=np.random.default_rng(seed), tables=TABLES, needs={"parse": docs}),
        )
    }
    assert years and all(1960 <= y < 1975 and y != 1970 for y in years), years


@pytest.mark.parametrize(
    "text",
    [
        "Breakfast in America was mixed in June 1978.",  # a year of the table, no row dating a mixing
        "Bo Lind was still married in 1990.",  # a lasting state: another year may be true
    ],
)
def test_a_false_date_keeps_its_year_where_another_might_make_it_true(outputs, text):  # noqa: F811
    assert edited(outputs, "temporal_preserve", text) is None


def test_a_false_date_gets_a_year_that_crosses_no_year_of_its_table(alpha1, alpha1_outputs):
    from tabprobe.probes.infotabs.hypothesis.edits.dates import RELATIVE_TIME, table_years

    changed = [r for r in alpha1_outputs["temporal_preserve"][0] if "year_changed_kept_false" in r["provenance"]]
    assert changed
    for record in changed:
        gold = alpha1["by_uid"][record["orig_uid"]]
        (edit,) = json.loads(record["provenance"])["changes"]
        old, new = int(edit["old"]), int(edit["new"])
        marks, spans = table_years(alpha1["tables"][record["table_id"]])
        assert gold["label"] == "C" == record["expected"]
        assert new not in marks and not any(first <= new <= last for first, last in spans), record["uid"]
        assert all((new > mark) == (old > mark) for mark in marks if mark != old), record["uid"]
        assert not {w.lower() for w in re.findall(r"\w+", gold["hypothesis"])} & RELATIVE_TIME
    # the review of issue 32: a quantified claim ("any album released in January 2017") and a
    # future one ("will be released in June 2019") keep their years
    assert not [r for r in changed if r["orig_uid"] in ("alpha1:796", "alpha1:673")]
