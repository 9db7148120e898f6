"""entity_flip: a name swapped for another of the same kind and key (ENTAIL <-> CONTRADICT); on
tests/test_hypothesis_probes.py's sentences and on the real alpha1."""

import json

from test_hypothesis_probes import EXAMPLES, TABLES, docs  # noqa: F401  (docs: the fixture)

from tabprobe.data.infobox.table import normalised
from tabprobe.probes.generation import generate
from tabprobe.probes.infotabs.hypothesis.entity_flip import slots
from tabprobe.probes.infotabs.titles import names_subject


def test_entity_substitution_keeps_the_entity_type_and_leaves_the_subject(nlp, docs):  # noqa: F811
    out, coverage = generate("entity_flip", EXAMPLES, TABLES, seed=5, needs={"parse": docs})
    by_orig = {r["orig_uid"]: r for r in out.to_pylist()}
    married = by_orig["dev:8"]  # "Ada Quill married Rui Costa." (E)
    assert married["expected"] == "C"
    change = json.loads(married["provenance"])["changes"][0]
    # a spouse is replaced by a PERSON that another hypothesis names as the spouse of its own
    # subject: the same parser type under the same key (never a director or a producer)
    assert change["old"] == "Rui Costa" and change["new"] == "Maria Holm"
    reparsed = nlp(married["hypothesis"])
    assert [(e.text, e.label_) for e in reparsed.ents if e.text == change["new"]] == [(change["new"], "PERSON")]
    assert married["hypothesis"].startswith("Ada Quill")  # the table's subject is never replaced
    # "... directed by Paul Feig.": no other table has a director a hypothesis names
    assert "dev:3" not in by_orig
    assert coverage["skipped"]["gold label C is not probed"] == 4


def test_entities_are_replaced_by_names_of_the_same_kind_from_the_same_key(alpha1, alpha1_outputs):
    records, coverage = alpha1_outputs["entity_flip"]
    assert records, coverage
    for record in records:
        table = alpha1["tables"][record["table_id"]]
        (edit,) = json.loads(record["provenance"])["changes"]
        # the old name stands as the one value of a row (or a part of it); the new name comes from
        # that key and place in another table, is capitalised, and is not in this table
        assert set(json.loads(record["provenance"])["slots"]) == {f"{k}/{p}" for k, p in slots(table, edit["old"])}
        assert edit["new"][:1].isupper() and normalised(edit["new"]) not in normalised(
            " ".join(v for row in table.rows for v in row.values)
        )
        assert not names_subject(edit["old"], table), record["uid"]
    london = [r for r in records if r["hypothesis"].startswith("The City of London is a major city")]
    assert all("Britvic" not in r["hypothesis"] for r in london)
