"""entity_preserve: a name in a false hypothesis swapped for one of the same slot the table does not
support (CONTRADICT kept); on tests/test_more_hypothesis_probes.py's sentences and on the real alpha1."""

import json

import numpy as np
import pytest
from test_more_hypothesis_probes import EXAMPLES, TABLES, docs, edited, outputs  # noqa: F401  (the fixtures)

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.probes.infotabs.hypothesis import entity_preserve as ep
from tabprobe.probes.infotabs.titles import names_subject


def all_edits(docs, probe: str, text: str) -> list:  # noqa: F811
    """Every perturbation the probe offers for one fixture sentence (not only the sampled one)."""
    record = [r for r in EXAMPLES.to_pylist() if r["hypothesis"] == text][0]
    example = Example(record["uid"], record["table_id"], text, record["label"])
    ctx = ProbeContext(rng=np.random.default_rng(0), tables=TABLES, needs={"parse": docs})
    try:
        return get_probe(probe).apply(example, TABLES[record["table_id"]], docs[record["uid"]], ctx)
    except NotApplicable:
        return []


def test_a_name_the_table_contradicts_is_swapped_for_another_it_does_not_support(outputs, docs):  # noqa: F811
    record = edited(outputs, "entity_preserve", "Ada Quill lives in Bergen.")
    provenance = json.loads(record["provenance"])
    (change,) = provenance["changes"]
    assert record["expected"] == "C" and change["old"] == "Bergen"
    # another city standing in the Residence of a Person table: from a hypothesis (Madrid) or a
    # table (Vienna); never Oslo, which her table holds
    assert change["new"] in ("Madrid", "Vienna")
    assert provenance["old_in_table"] is False and provenance["table_holds"] == ["Oslo"]
    options = {
        e.provenance["changes"][0]["new"] for e in all_edits(docs, "entity_preserve", "Ada Quill lives in Bergen.")
    }
    assert options <= {"Madrid", "Vienna"} and "Oslo" not in options


def test_a_name_the_table_holds_is_swapped_where_the_sentence_names_its_row(outputs):  # noqa: F811
    record = edited(outputs, "entity_preserve", "Ada Quill married Rui Costa in Paris.")
    changes = json.loads(record["provenance"])["changes"]
    assert [(c["old"], c["new"]) for c in changes] in ([("Rui Costa", "Maria Holm")], [("Rui Costa", "Tom Hale")])
    assert json.loads(record["provenance"])["old_in_table"] is True


@pytest.mark.parametrize(
    "text",
    [
        "Rui Costa is the manager of Ada Quill.",  # a relation her table lacks: another name is NEUTRAL
        "Ada Quill lives in Bergen or Madrid.",  # a disjunction
        "Ada Quill does not live in Bergen.",  # negated
    ],
)
def test_entity_preserve_leaves_alone_what_another_name_might_make_true(outputs, docs, text):  # noqa: F811
    assert edited(outputs, "entity_preserve", text) is None
    assert all_edits(docs, "entity_preserve", text) == []


def test_entity_preserve_takes_contradict_only(outputs):  # noqa: F811
    assert get_probe("entity_preserve").labels == frozenset({"C"})
    assert edited(outputs, "entity_preserve", "Bo Lind lives in Bergen.") is None  # ENTAIL: entity_flip's


def test_the_table_supports_a_name_it_holds_contains_or_names_otherwise():
    table = Table("T9", "Zed", (Row("Born", ("New York, United Kingdom",)), Row("Spouse", ("Ann Roe",))), "Person")
    assert ep.unsupported("France", table) is None
    assert ep.unsupported("New York City", table)  # holds "New York"
    assert ep.unsupported("UK", table) and ep.unsupported("Great Britain", table)  # another name of one
    assert ep.unsupported("Ann Roe", table) and ep.unsupported("Zed", table)


def test_a_name_swapped_in_a_false_hypothesis_is_one_the_table_does_not_support(alpha1, alpha1_outputs):
    from tabprobe.probes.infotabs.hypothesis.entity_preserve import unsupported
    from tabprobe.probes.infotabs.hypothesis.entity_slots import filled_slots

    records, coverage = alpha1_outputs["entity_preserve"]
    assert records, coverage
    for record in records:
        table = alpha1["tables"][record["table_id"]]
        provenance = json.loads(record["provenance"])
        assert alpha1["by_uid"][record["orig_uid"]]["label"] == "C" == record["expected"]
        (edit,) = provenance["changes"]
        assert unsupported(edit["new"].rstrip("."), table) is None, (record["uid"], edit)
        assert not names_subject(edit["old"], table)
        filled = filled_slots(table)
        assert all((slot["key"], slot["place"]) in filled for slot in provenance["slots"]), record["uid"]
