"""cf_row_swap: the table's rows moved into a partner with all its keys, the subject renamed (paper
section 6)."""

from probe_helpers import _records, docs  # noqa: F401  (docs: the fixture)
from test_evidence import POET

from tabprobe.data.infobox.table import Row, Table


def test_cf_row_swap_moves_every_row_into_a_partner_with_all_the_keys_and_renames_the_subject(docs):  # noqa: F811
    records, coverage = _records("cf_row_swap", docs=docs)
    record = next(r for r in records if r["orig_uid"] == "dev:2")
    table = Table.from_arrow(record["table"])
    # the partner (Cy Moss, the only other table with every key of Ada Quill's) now holds her
    # rows; its own row under a key she lacks stays (a website cannot contradict her table)
    assert table.title == "Cy Moss"
    assert list(table.rows) == [*POET.rows, Row("Website", ("moss.example",))]
    assert record["hypothesis"] == "Cy Moss was born in 1901 and married Rui Vale."
    assert record["expected"] == "E"  # the label is preserved
    assert coverage["skipped"]["no other table has all of this table's keys"] >= 1  # Bo Tarn: Genres is his alone
