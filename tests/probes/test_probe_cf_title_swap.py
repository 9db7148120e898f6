"""cf_title_swap: the table's title swapped for a partner's, in the hypothesis too (paper section 6)."""

import json

from probe_helpers import TABLES, _records, docs  # noqa: F401  (docs: the fixture)


def test_cf_title_swap_gives_all_hypotheses_of_a_table_the_same_partner(docs):  # noqa: F811
    records, coverage = _records("cf_title_swap", docs=docs)
    partners = {r["table_id"]: json.loads(r["provenance"])["partner_table"] for r in records}
    assert {t: TABLES[p].category for t, p in partners.items()} == {t: "Person" for t in partners}  # the album has none
    titles = {r["orig_uid"]: r["table"]["title"] for r in records}
    assert titles["dev:2"] == TABLES[partners["T1"]].title
    assert all(r["expected"] == r["label"] for r in records)
    quill = next(r for r in records if r["orig_uid"] == "dev:3")
    surname = TABLES[partners["T1"]].title.split()[-1]
    assert quill["hypothesis"] == f"{surname} won no prizes."  # surname for surname
