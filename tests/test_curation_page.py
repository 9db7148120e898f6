"""The curation page of `tabprobe curate` in real headless Chromium: every key does what the page
says, the decisions survive a reload, and the TSV it saves is the one the workflow reads."""

from __future__ import annotations

import json
import time

import pyarrow as pa
import pytest
from browser import artifact_path, open_page

from tabprobe import schemas
from tabprobe.data import parsing
from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import curation
from tabprobe.probes.generation import generate

TABLES = {
    "T1": Table(
        "T1",
        "Ada Quill",
        (Row("Born", ("3 May 1901",)), Row("Occupation", ("Poet",)), Row("Spouse", ("Rui Vale",))),
        "Person",
    )
}
# Four CONTRADICT hypotheses negation_flip turns into ENTAIL candidates, one ENTAIL it flips
# automatically (no review needed).
HYPOTHESES = [
    "Ada Quill was a singer.",
    "Ada Quill is a painter.",
    "Ada Quill was born in Oslo.",
    "Ada Quill was married to Bo Tarn.",
    "Ada Quill was a poet.",
]
EXAMPLES = pa.table(
    {
        "uid": [f"dev:{i + 2}" for i in range(5)],
        "table_id": ["T1"] * 5,
        "hypothesis": HYPOTHESES,
        "label": ["C", "C", "C", "C", "E"],
    },
    schema=schemas.EXAMPLES,
)


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    nlp = parsing.load_pipeline("auto")
    parsed = parsing.parse(nlp, HYPOTHESES, EXAMPLES["uid"].to_pylist(), EXAMPLES["table_id"].to_pylist())
    docs = {doc.user_data["uid"]: doc for doc in parsed.get_docs(nlp.vocab)}
    out, _ = generate("negation_flip", EXAMPLES, TABLES, seed=1, split="dev", needs={"parse": docs})
    items, _ = curation.review_items(out, "flipped")
    assert [i.record["orig_uid"] for i in items] == ["dev:2", "dev:3", "dev:4", "dev:5"]  # the C -> E flips only
    rows = curation.tsv_rows(items, {r["uid"]: r for r in EXAMPLES.to_pylist()})
    folder = tmp_path_factory.mktemp("curation")
    path = folder / "negation_flip.dev.curation.html"
    path.write_text(
        curation.review_page(items, rows, TABLES, "negation_flip", "dev", "negation_flip.dev.curation.tsv"),
        encoding="utf-8",
    )
    return path


def test_keys_accept_reject_relabel_and_the_saved_tsv_is_what_the_workflow_reads(page_file, tmp_path):
    with open_page(page_file) as page:
        downloads = page.downloads_to(tmp_path / "downloads")
        assert page.errors == [] and page.external_requests == []
        assert page.js("return document.querySelector('#progress').textContent") == "0 of 4 decided"
        # the first card: its table, its hypothesis before and after, the edit marked
        assert page.js("return document.querySelector('.card').dataset.uid") == "dev:2/negation_flip"
        assert page.js("return document.querySelector('.card ins').textContent").strip() == "not"
        assert page.js("return document.querySelectorAll('.card tr').length") == 3
        page.press("a")  # accept, then on to the next undecided
        page.press("r")  # reject
        page.press("n")  # relabel NEUTRAL
        page.press("k")  # back to the third: relabel it CONTRADICT instead
        page.press("c")
        decisions = page.js("return window.tabprobeCuration.items.map(x => [x.uid, x.decision, x.label])")
        assert decisions == [
            ["dev:2/negation_flip", "accept", ""],
            ["dev:3/negation_flip", "reject", ""],
            ["dev:4/negation_flip", "relabel", "C"],
            ["dev:5/negation_flip", "", ""],
        ]
        page.press("e")  # the proposed label itself is an accept
        assert page.js("return window.tabprobeCuration.items[3].decision") == "accept"
        page.press("u")  # ... and u undoes the decision on the current card
        assert page.js("return window.tabprobeCuration.items[3].decision") == ""
        page.js("document.querySelector('#note').focus()")
        page.press("r", "e", "j")  # typed into the note, not taken as keys
        assert page.js("return window.tabprobeCuration.items[3].decision") == ""
        page.js("document.activeElement.blur()")
        page.screenshot(artifact_path("curation-page.png"), full_page=False)
        # a reload keeps the decisions (browser storage), then "s" saves the TSV
        # Chromium commits localStorage to its store asynchronously: a reload within milliseconds of
        # the last key can miss it (seen once under load); a person reloads seconds later.
        time.sleep(2)
        page.driver.refresh()
        # polled: on a loaded machine the reloaded page's script may run after refresh() returns
        assert page.wait_for(
            "const p = document.querySelector('#progress'); "
            "return p && p.textContent === '3 of 4 decided' && p.textContent",
            timeout=15,
        )
        page.press("s")
        saved = page.wait_for_download(downloads, "negation_flip.dev.curation.tsv")
        assert page.errors == []
    decisions = curation.read_decisions([saved])
    assert {uid: (d.decision, d.label) for uid, d in decisions.items()} == {
        "dev:2/negation_flip": ("accept", None),
        "dev:3/negation_flip": ("reject", None),
        "dev:4/negation_flip": ("relabel", "C"),
    }
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(curation.COLUMNS) and len(lines) == 5
    assert lines[4].split("\t")[-1] == "rej"  # the note typed on the fourth card is saved too
    assert (
        json.loads(
            page_file.read_text()
            .split('id="curation-data" type="application/json">')[1]
            .split("</script>")[0]
            .replace("<\\/", "</")
        )["probe"]
        == "negation_flip"
    )


def test_a_tabfact_items_table_shows_its_records_under_its_header(tmp_path):
    """`tabprobe curate tf_negation` on TabFact (issue 42 item 10): each card shows the relational
    table as TabFact has it, a header row and one row per record, and saves uids the config reads."""
    from tabprobe.data.relational.table import RelationalTable

    tables = {
        "1-1.html.csv": RelationalTable(
            "1-1.html.csv", "club points", ("player", "points", "team"), (("ann", "3", "reds"), ("bo", "5", "blues"))
        )
    }
    examples = pa.table(
        {
            "uid": ["simple_test:1-1.html.csv:0", "simple_test:1-1.html.csv:1"],
            "table_id": ["1-1.html.csv"] * 2,
            "hypothesis": ["the team for ann be blue", "the team for bo be blue"],
            "label": ["C", "E"],
        },
        schema=schemas.EXAMPLES,
    )
    out, _ = generate("tf_negation", examples, tables, seed=1, split="simple_test")
    items, _ = curation.review_items(out, "flipped")
    assert [i.record["uid"] for i in items] == [
        "simple_test:1-1.html.csv:0/tf_negation"
    ]  # the REFUTED -> ENTAILED flip
    rows = curation.tsv_rows(items, {r["uid"]: r for r in examples.to_pylist()})
    path = tmp_path / "tf_negation.simple_test.curation.html"
    path.write_text(
        curation.review_page(items, rows, tables, "tf_negation", "simple_test", "tf_negation.simple_test.curation.tsv"),
        encoding="utf-8",
    )
    with open_page(path) as page:
        assert page.errors == [] and page.external_requests == []
        header = page.js("return [...document.querySelectorAll('.card th[scope=col]')].map(th => th.textContent)")
        assert header == ["player", "points", "team"]
        cells = page.js("return [...document.querySelectorAll('.card tr')].slice(1).map(tr => tr.textContent)")
        assert cells == ["ann3reds", "bo5blues"]
        assert page.js("return document.querySelector('.card ins').textContent").strip() == "not"
