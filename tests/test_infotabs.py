"""InfoTabS ingestion: every kind of bad input stops with its file, line and reason, and writes nothing;
clean input keeps every table row and value exactly as in the JSON."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tabprobe import schemas
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infotabs import download, ingest
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.data.infotabs.ingest import ingest_infotabs
from tabprobe.errors import DownloadError, InputDataError
from tabprobe.io import read_parquet

HEADER = "annotater_id\ttable_id\thypothesis\tlabel"


# ---------------------------------------------------------------------------------------------- helpers


def train_tsv(root: Path) -> Path:
    return infotabs.split_tsv(root, "train")


def table_json(root: Path, table_id: str) -> Path:
    return infotabs.tables_dir(root) / f"{table_id}.json"


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def set_line(path: Path, lineno: int, text: str) -> None:
    """Replace line `lineno` (1-based, as an editor shows it) of a text file."""
    lines = read_lines(path)
    lines[lineno - 1] = text
    path.write_text("\n".join(lines), encoding="utf-8")


def set_line_bytes(path: Path, lineno: int, raw: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[lineno - 1] = raw
    path.write_bytes(b"\n".join(lines))


def cells(path: Path, lineno: int) -> list[str]:
    return read_lines(path)[lineno - 1].split("\t")


def ingest_error(root: Path, split: str = "train", **kwargs) -> InputDataError:
    with pytest.raises(InputDataError) as excinfo:
        ingest.ingest_split(root, split, **kwargs)
    return excinfo.value


def tsv_rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER
    return [line.split("\t") for line in lines[1:]]


def json_pairs(path: Path) -> list[tuple[str, list[str]]]:
    """The table JSON as (key, values) pairs in file order, repeated keys included."""
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=list)


# Line map of the fixture's train split (header = line 1):
#   2-4 T1 (E, N, C), 5-7 T2, 8-10 T3, 11-13 T4.


def test_fixture_is_clean_and_shaped_as_documented(mini_infotabs):
    for split in infotabs.SPLITS:
        rows = tsv_rows(infotabs.split_tsv(mini_infotabs, split))
        assert len(rows) >= 6, split
        assert {r[3] for r in rows} == {"E", "N", "C"}, split
        assert len({(r[1], r[2]) for r in rows}) == len(rows), f"{split} must have no duplicates"
    assert [r[1] for r in tsv_rows(train_tsv(mini_infotabs))] == ["T1"] * 3 + ["T2"] * 3 + ["T3"] * 3 + ["T4"] * 3


# ------------------------------------------------------------------------------------ single problems


def test_malformed_json_names_the_table_file_and_line(bad_copy):
    root = bad_copy()
    path = table_json(root, "T2")
    assert read_lines(path)[5] == '    "3 March 2011"'
    set_line(path, 6, '    "3 March 2011" "4 March 2011"')  # two values without a comma, on line 6

    err = ingest_error(root)

    assert len(err.problems) == 1
    problem = err.problems[0]
    assert (problem.path, problem.line) == (str(path), 6)
    assert "malformed JSON" in problem.reason and "Expecting ',' delimiter" in problem.reason
    assert f"{path}:6: malformed JSON" in str(err)


@pytest.mark.parametrize(
    "line, n_columns",
    [("A1\tT1\tToo few columns here", 3), ("A1\tT1\tOne tab\ttoo many\tE", 5), ("A1 T1 spaces not tabs E", 1)],
)
def test_wrong_number_of_columns_names_the_tsv_and_line(bad_copy, line, n_columns):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line(tsv, 3, line)

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 3)]
    assert f"{tsv}:3: has {n_columns} tab-separated columns, the header has 4" in str(err)


@pytest.mark.parametrize("label", ["X", "entailment", "e", ""])
def test_label_not_e_n_c_names_line_and_label(bad_copy, label):
    root = bad_copy()
    tsv = train_tsv(root)
    row = cells(tsv, 4)
    set_line(tsv, 4, "\t".join(row[:3] + [label]))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 4)]
    assert f"{tsv}:4: label {label!r} is not one of E, N, C" in str(err)


def test_missing_table_names_line_and_table_id(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    row = cells(tsv, 5)
    set_line(tsv, 5, "\t".join([row[0], "T99", row[2], row[3]]))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 5)]
    message = str(err)
    assert f"{tsv}:5: table T99 is missing" in message
    assert str(table_json(root, "T99")) in message


def test_missing_table_file_deleted(bad_copy):
    root = bad_copy()
    table_json(root, "T3").unlink()

    err = ingest_error(root)

    assert f"{train_tsv(root)}:8: table T3 is missing" in str(err)  # line 8 is T3's first use


@pytest.mark.parametrize("hypothesis", ["", "   "])
def test_empty_hypothesis_names_line(bad_copy, hypothesis):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line(tsv, 6, f"A2\tT2\t{hypothesis}\tN")

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 6)]
    assert f"{tsv}:6: hypothesis is empty" in str(err)


@pytest.mark.parametrize(
    "table_id", ["../../etc/passwd", "../json/T1", "/etc/passwd", "..", ".hidden", "T1/../T2", "T1\\..\\T2", "T 1"]
)
def test_table_id_that_could_leave_the_tables_folder_is_rejected(bad_copy, table_id):
    root = bad_copy()
    tsv = train_tsv(root)
    row = cells(tsv, 2)
    set_line(tsv, 2, "\t".join([row[0], table_id, row[2], row[3]]))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 2)]
    assert f"{tsv}:2: table_id {table_id!r} is not a valid table id" in str(err)


def test_path_traversal_to_a_real_valid_table_is_not_read(bad_copy):
    """A valid table file outside data/tables/json/ must not be reachable through the table id."""
    root = bad_copy()
    outside = root / "data" / "tables" / "outside.json"
    outside.write_text(table_json(root, "T4").read_text(encoding="utf-8"), encoding="utf-8")
    tsv = train_tsv(root)
    row = cells(tsv, 11)
    set_line(tsv, 11, "\t".join([row[0], "../outside", row[2], row[3]]))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 11)]
    assert f"{tsv}:11: table_id '../outside' is not a valid table id" in str(err)


def test_invalid_utf8_in_tsv_names_the_line(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line_bytes(tsv, 4, b"A1\tT1\tMarguerite \xff\xfe was born late\tC")

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 4)]
    assert f"{tsv}:4: not valid UTF-8" in str(err)


def test_invalid_utf8_in_table_json_names_the_file_and_line(bad_copy):
    root = bad_copy()
    path = table_json(root, "T3")
    # line 12 holds the Mayor's name; cut its two-byte "ë" in half
    assert "Zoë" in read_lines(path)[11]
    raw = path.read_bytes().split(b"\n")
    raw[11] = raw[11].replace("ë".encode(), "ë".encode()[:1])
    path.write_bytes(b"\n".join(raw))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(path), 12)]
    assert f"{path}:12: not valid UTF-8" in str(err)


@pytest.mark.parametrize(
    "content, reason",
    [
        ('{"Born": ["1 May 1900"]}', 'needs one "title"'),
        ('{"title": ["A"], "title": ["B"], "Born": ["x"]}', 'needs one "title"'),
        ('{"title": []}', 'needs one "title"'),
        ('["title", ["A"]]', "expected a JSON object"),
        ('{"title": ["A"], "Born": 1900}', "must map to a string or a list of strings"),
        ('{"title": ["A"], "Born": [1900]}', "must map to a string or a list of strings"),
        ('{"title": ["A"], "Born": [["1 May", "1900"]]}', "must map to a string or a list of strings"),
    ],
)
def test_table_json_of_the_wrong_shape_names_the_file(bad_copy, content, reason):
    root = bad_copy()
    path = table_json(root, "T4")
    path.write_text(content, encoding="utf-8")

    err = ingest_error(root)

    assert [p.path for p in err.problems] == [str(path)]
    assert reason in err.problems[0].reason
    assert str(path) in str(err)


# ------------------------------------------------------------------------------------------ duplicates


def make_duplicates(root: Path) -> Path:
    """Line 7 repeats line 2 exactly; line 9 repeats the table and hypothesis of line 3 (other label)."""
    tsv = train_tsv(root)
    lines = read_lines(tsv)
    lines[6] = lines[1]
    annotator, table_id, hypothesis, _ = lines[2].split("\t")
    lines[8] = "\t".join(["Z9", table_id, hypothesis, "E"])
    tsv.write_text("\n".join(lines), encoding="utf-8")
    return tsv


def test_duplicates_with_on_duplicate_error_name_both_lines(bad_copy):
    root = bad_copy()
    tsv = make_duplicates(root)

    err = ingest_error(root, on_duplicate="error")

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 7), (str(tsv), 9)]
    message = str(err)
    assert f"{tsv}:7: duplicate: repeats the whole row of line 2" in message
    assert f"{tsv}:9: duplicate: repeats the table_id and hypothesis of line 3" in message


def test_duplicates_by_default_are_kept_with_a_warning(bad_copy, caplog):
    root = bad_copy()
    tsv = make_duplicates(root)

    with caplog.at_level(logging.WARNING, logger="tabprobe.data.infotabs.ingest"):
        result = ingest.ingest_split(root, "train")  # default: on_duplicate="warn"

    assert result.examples.num_rows == 12  # every row kept
    assert result.examples["uid"].to_pylist() == [f"train:{n}" for n in range(2, 14)]
    assert result.duplicate_lines == [(7, 2, "exact"), (9, 3, "pair")]
    assert result.summary["duplicates"] == [
        {"line": 7, "first_line": 2, "kind": "exact"},
        {"line": 9, "first_line": 3, "kind": "pair"},
    ]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "tabprobe.data.infotabs.ingest"]
    assert len(warnings) == 1
    text = warnings[0].getMessage()
    assert str(tsv) in text and "2 duplicate" in text
    assert "line 7 repeats line 2 (exact)" in text and "line 9 repeats line 3 (pair)" in text


def test_clean_split_logs_no_duplicate_warning(mini_infotabs, caplog):
    with caplog.at_level(logging.WARNING, logger="tabprobe.data.infotabs.ingest"):
        result = ingest.ingest_split(mini_infotabs, "train", on_duplicate="error")
    assert result.duplicate_lines == []
    assert not [r for r in caplog.records if r.name == "tabprobe.data.infotabs.ingest"]


# ------------------------------------------------------------------------------------ several problems


def test_several_problems_are_all_listed(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line(tsv, 3, "A1\tT1\tno label column")
    set_line(tsv, 4, "A1\tT1\tA hypothesis\tmaybe")
    set_line(tsv, 6, "A2\tT98\tNo such table\tN")
    set_line(tsv, 7, "A2\tT2\t\tC")
    set_line(tsv, 12, "A1\t../T4\tEscaping\tN")
    t3 = table_json(root, "T3")
    set_line(t3, 1, "{{")
    categories = infotabs.categories_tsv(root)
    set_line(categories, 3, "T2")  # one column where the header has two

    err = ingest_error(root)

    found = {(p.path, p.line) for p in err.problems}
    assert found == {
        (str(tsv), 3),
        (str(tsv), 4),
        (str(tsv), 6),
        (str(tsv), 7),
        (str(tsv), 12),
        (str(t3), 1),
        (str(categories), 3),
    }
    message = str(err)
    for expected in (
        f"{tsv}:3: has 3 tab-separated columns",
        f"{tsv}:4: label 'maybe'",
        f"{tsv}:6: table T98 is missing",
        f"{tsv}:7: hypothesis is empty",
        f"{tsv}:12: table_id '../T4'",
        f"{t3}:1: malformed JSON",
        f"{categories}:3: has 1 columns",
        "How to fix:",
    ):
        assert expected in message


def test_a_long_list_of_problems_is_cut_and_counted(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    bad = [f"A1\tT1\tHypothesis number {n}\tQ" for n in range(25)]
    tsv.write_text("\n".join([HEADER, *bad]) + "\n", encoding="utf-8")

    err = ingest_error(root)

    assert len(err.problems) == infotabs.MAX_PROBLEMS_SHOWN == 20
    assert [p.line for p in err.problems] == list(range(2, 22))
    assert "... and 5 more problems" in str(err)


# ------------------------------------------------------------------- the stage writes nothing on error


def _malformed_json(root):
    set_line(table_json(root, "T2"), 6, '    "3 March 2011" "4 March 2011"')


def _wrong_columns(root):
    set_line(train_tsv(root), 3, "A1\tT1\tToo few columns")


def _bad_label(root):
    set_line(train_tsv(root), 4, "A1\tT1\tA hypothesis\tX")


def _missing_table(root):
    set_line(train_tsv(root), 5, "A2\tT99\tNo such table\tE")


def _empty_hypothesis(root):
    set_line(train_tsv(root), 6, "A2\tT2\t\tN")


def _path_traversal(root):
    set_line(train_tsv(root), 2, "A1\t../../etc/passwd\tEscape\tE")


def _invalid_utf8(root):
    set_line_bytes(train_tsv(root), 4, b"A1\tT1\t\xc3\x28 broken\tC")


def _duplicates(root):
    make_duplicates(root)


def _missing_tsv(root):
    train_tsv(root).unlink()


def _empty_tsv(root):
    train_tsv(root).write_bytes(b"")


def _header_without_label(root):
    set_line(train_tsv(root), 1, "annotater_id\ttable_id\thypothesis\tgold")


CORRUPTIONS = [
    _malformed_json,
    _wrong_columns,
    _bad_label,
    _missing_table,
    _empty_hypothesis,
    _path_traversal,
    _invalid_utf8,
    _duplicates,
    _missing_tsv,
    _empty_tsv,
    _header_without_label,
]


def stage_outputs(out: Path) -> dict[str, str]:
    return {
        "examples_out": str(out / "train.parquet"),
        "tables_out": str(out / "train.tables.parquet"),
        "summary_out": str(out / "train.summary.json"),
    }


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_stage_writes_nothing_on_bad_input(bad_copy, tmp_path, corrupt):
    root = bad_copy()
    corrupt(root)
    out = tmp_path / "out"
    out.mkdir()

    with pytest.raises(InputDataError) as excinfo:
        ingest_infotabs(str(root), "train", **stage_outputs(out), on_duplicate="error", verify=False)

    assert str(train_tsv(root)) in str(excinfo.value) or str(infotabs.tables_dir(root)) in str(excinfo.value)
    assert sorted(p.name for p in out.rglob("*")) == []  # no parquet, no json, no leftover temp file


def test_stage_with_verify_refuses_a_copy_that_is_not_the_official_one(mini_infotabs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(DownloadError, match="sha256 differs"):
        ingest_infotabs(str(mini_infotabs), "train", **stage_outputs(out))
    assert list(out.rglob("*")) == []


def test_stage_writes_exactly_its_three_outputs_on_clean_input(mini_infotabs, tmp_path):
    """The control for the test above: the same call on the clean fixture does write."""
    out = tmp_path / "out"
    out.mkdir()
    outputs = stage_outputs(out)

    ingest_infotabs(str(mini_infotabs), "train", **outputs, on_duplicate="error", verify=False)

    assert sorted(p.name for p in out.iterdir()) == sorted(Path(p).name for p in outputs.values())
    examples = read_parquet(outputs["examples_out"], schemas.EXAMPLES)
    tables = read_parquet(outputs["tables_out"], infobox.TABLES)
    assert examples.num_rows == 12 and tables.num_rows == 4
    summary = json.loads(Path(outputs["summary_out"]).read_text())
    assert summary["split"] == "train"
    assert summary["examples"] == 12 and summary["tables"] == 4
    assert summary["labels"] == {"E": 4, "N": 4, "C": 4}
    assert summary["duplicates"] == []


# ------------------------------------------------------------------------------- clean data kept exactly


@pytest.mark.parametrize("split", infotabs.SPLITS)
def test_examples_keep_every_tsv_row_with_line_uids(mini_infotabs, split):
    rows = tsv_rows(infotabs.split_tsv(mini_infotabs, split))

    examples = ingest.ingest_split(mini_infotabs, split).examples

    assert examples.schema.equals(schemas.EXAMPLES)
    assert examples.to_pylist() == [
        {"uid": f"{split}:{n}", "table_id": table_id, "hypothesis": hypothesis, "label": label}
        for n, (_, table_id, hypothesis, label) in enumerate(rows, start=2)  # header = line 1
    ]


@pytest.mark.parametrize("split", infotabs.SPLITS)
def test_tables_keep_row_order_and_every_value_as_in_the_json(mini_infotabs, split):
    rows = tsv_rows(infotabs.split_tsv(mini_infotabs, split))
    categories = dict(line.split("\t") for line in infotabs.categories_tsv(mini_infotabs).read_text().splitlines()[1:])

    tables = infotabs.load_tables(ingest.ingest_split(mini_infotabs, split).tables)

    assert set(tables) == {r[1] for r in rows}
    for table_id, table in tables.items():
        pairs = json_pairs(table_json(mini_infotabs, table_id))
        assert pairs[0][0] == "title"
        assert table.table_id == table_id
        assert table.title == pairs[0][1][0]
        assert [(row.key, list(row.values)) for row in table.rows] == pairs[1:]
        assert table.category == categories[table_id]


def test_person_table_multi_values_unicode_and_one_row_table(mini_infotabs):
    train = infotabs.load_tables(ingest.ingest_split(mini_infotabs, "train").tables)

    person = train["T1"]
    assert person.keys[:3] == ("Born", "Died", "Occupation")
    assert person.rows[0].values == ("Marguerite Anna Lind", "4 May 1902", "Tallow Creek, Ostrava County")
    assert person.rows[1].values == ("17 November 1988 (aged 86)", "Port Alder")
    city = train["T3"]
    assert dict((r.key, r.values) for r in city.rows)["Mayor"] == ("Zoë Brünnhilde Østergaard",)
    assert dict((r.key, r.values) for r in city.rows)["Motto"] == ("Ça ira — ensemble",)
    assert len(train["T4"].rows) == 1 and train["T4"].rows[0].values == ("Oatmeal stout",)


def test_tables_come_in_natural_id_order(mini_infotabs):
    # alpha1 uses T7 and T10: T7 sorts before T10 though "T10" < "T7" as strings
    assert ingest.ingest_split(mini_infotabs, "alpha1").tables["table_id"].to_pylist() == ["T7", "T10"]


def test_repeated_keys_in_a_table_are_all_kept_in_order(bad_copy):
    root = bad_copy()
    path = table_json(root, "T1")
    path.write_text(
        "{\n"
        '  "title": ["Marguerite Okonkwo-Lind"],\n'
        '  "Born": ["4 May 1902"],\n'
        '  "Years active": ["1924-1940"],\n'
        '  "Occupation": ["Cartographer", "illustrator"],\n'
        '  "Years active": ["1951-1979"],\n'
        '  "": ["a row with an empty key"]\n'
        "}\n",
        encoding="utf-8",
    )

    table = infotabs.load_tables(ingest.ingest_split(root, "train").tables)["T1"]

    assert [(r.key, r.values) for r in table.rows] == [
        ("Born", ("4 May 1902",)),
        ("Years active", ("1924-1940",)),
        ("Occupation", ("Cartographer", "illustrator")),
        ("Years active", ("1951-1979",)),
        ("", ("a row with an empty key",)),
    ]


def test_crlf_line_endings_are_read_like_lf(bad_copy, mini_infotabs):
    root = bad_copy()
    tsv = train_tsv(root)
    tsv.write_bytes(tsv.read_bytes().replace(b"\n", b"\r\n"))

    assert ingest.ingest_split(root, "train").examples.equals(ingest.ingest_split(mini_infotabs, "train").examples)


def test_row_value_errors_name_the_line_of_their_key(bad_copy):
    root = bad_copy()
    path = table_json(root, "T4")
    path.write_text(
        '{\n  "title": ["Lumen Stout"],\n  "Style": ["Oatmeal stout"],\n  "ABV": 6.5\n}\n', encoding="utf-8"
    )

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(path), 4)]
    assert "row 'ABV' must map to a string or a list of strings, found 6.5" in str(err)


def test_a_row_value_given_as_a_string_is_one_value_and_counted(bad_copy, mini_infotabs):
    root = bad_copy()
    path = table_json(root, "T4")
    path.write_text('{"title": "Lumen Stout", "Style": "Oatmeal stout"}', encoding="utf-8")

    ingested = ingest.ingest_split(root, "train")

    assert ingested.tables.equals(ingest.ingest_split(mini_infotabs, "train").tables)
    assert ingested.summary["cleaned_cells"]["string_values"] == 1


def _variants_read_like_the_fixture(bad_copy, mini_infotabs, transform_tsv=None, transform_json=None):
    root = bad_copy()
    if transform_tsv:
        for split in infotabs.SPLITS:
            tsv = infotabs.split_tsv(root, split)
            tsv.write_bytes(transform_tsv(tsv.read_bytes()))
    if transform_json:
        for path in infotabs.tables_dir(root).glob("*.json"):
            path.write_bytes(transform_json(path.read_bytes()))
    for split in infotabs.SPLITS:
        got, want = ingest.ingest_split(root, split), ingest.ingest_split(mini_infotabs, split)
        assert got.examples.equals(want.examples), split
        assert got.tables.equals(want.tables), split


@pytest.mark.parametrize("ending", [b"\r\n", b"\r\r\n", b"\r"], ids=["CRLF", "CRCRLF", "CR"])
def test_line_endings_of_every_kind_are_read_like_lf(bad_copy, mini_infotabs, ending):
    _variants_read_like_the_fixture(
        bad_copy,
        mini_infotabs,
        transform_tsv=lambda raw: raw.replace(b"\n", ending),
        transform_json=lambda raw: raw.replace(b"\n", ending),
    )


def test_a_utf8_byte_order_mark_is_accepted_in_tsv_and_json(bad_copy, mini_infotabs):
    # A TSV whose first column is table_id: the mark would otherwise be part of that name.
    def bom_and_table_id_first(raw: bytes) -> bytes:
        lines = raw.decode("utf-8").split("\n")
        moved = ["\t".join(c[1:2] + c[:1] + c[2:]) if c != [""] else "" for c in (line.split("\t") for line in lines)]
        return "\ufeff".encode() + "\n".join(moved).encode()

    _variants_read_like_the_fixture(
        bad_copy,
        mini_infotabs,
        transform_tsv=bom_and_table_id_first,
        transform_json=lambda raw: "\ufeff".encode() + raw,
    )


def test_blank_lines_at_the_end_are_ignored(bad_copy, mini_infotabs):
    _variants_read_like_the_fixture(bad_copy, mini_infotabs, transform_tsv=lambda raw: raw + b"\n\n  \n\t\n")


def test_csv_quoted_hypotheses_are_unquoted_and_may_run_over_lines(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line(tsv, 3, 'A1\tT1\t"Marguerite Okonkwo-Lind wrote ""Salt\tand Iron"" in\ntwo parts."\tN')

    ingested = ingest.ingest_split(root, "train")

    rows = ingested.examples.to_pylist()
    assert rows[1]["uid"] == "train:3"
    assert rows[1]["hypothesis"] == 'Marguerite Okonkwo-Lind wrote "Salt and Iron" in two parts.'
    # the record took two lines: the next one is numbered as an editor shows it
    assert rows[2]["uid"] == "train:5" and rows[2]["hypothesis"].endswith("born after 1950.")


@pytest.mark.parametrize("field", ['"Marguerite" was born late', '"Marguerite was born late'])
def test_malformed_quoting_names_the_line_and_says_how_to_fix_it(bad_copy, field):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line(tsv, 4, f"A1\tT1\t{field}\tC")

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 4)]
    assert "malformed quoting" in str(err) and 'written twice ("")' in str(err)


def test_an_encoding_error_says_how_to_convert_the_file(bad_copy):
    root = bad_copy()
    tsv = train_tsv(root)
    set_line_bytes(tsv, 3, "A1\tT1\tMarguerite Okonkwo-Lind was married to Zoë.\tN".encode("cp1252"))

    err = ingest_error(root)

    assert [(p.path, p.line) for p in err.problems] == [(str(tsv), 3)]
    assert "iconv -f cp1252 -t utf-8 infotabs_train.tsv" in str(err)


def test_a_table_that_is_a_link_to_itself_is_named_a_loop(bad_copy):
    root = bad_copy()
    path = table_json(root, "T2")
    path.unlink()
    path.symlink_to(path.name)

    err = ingest_error(root)

    assert [p.path for p in err.problems] == [str(path)]
    assert "symbolic link that loops" in str(err)


def test_a_symlinked_tables_folder_is_followed(bad_copy, mini_infotabs):
    root = bad_copy()
    tables = infotabs.tables_dir(root)
    moved = root / "elsewhere"
    tables.rename(moved)
    tables.symlink_to(moved.resolve(), target_is_directory=True)

    assert ingest.ingest_split(root, "train").tables.equals(ingest.ingest_split(mini_infotabs, "train").tables)


def test_unknown_split_is_a_value_error(mini_infotabs):
    with pytest.raises(ValueError, match="unknown split 'test'"):
        ingest.ingest_split(mini_infotabs, "test")


# ------------------------------------------------------------------------------------------ real data

REAL_COUNTS = {"train": 16538, "dev": 1800, "alpha1": 1800, "alpha2": 1800, "alpha3": 1800}
# (all duplicates, exact duplicates) per split in the official data
REAL_DUPLICATES = {"train": (22, 1), "dev": (0, 0), "alpha1": (2, 0), "alpha2": (1, 0), "alpha3": (1, 0)}


@pytest.fixture(scope="module")
def real_splits(shared_infotabs):
    return {split: ingest.ingest_split(shared_infotabs, split) for split in infotabs.SPLITS}


def test_real_data_totals(real_splits):
    assert sum(s.examples.num_rows for s in real_splits.values()) == 23_738
    table_ids = set()
    for s in real_splits.values():
        table_ids |= set(s.examples["table_id"].to_pylist())
        assert set(s.tables["table_id"].to_pylist()) == set(s.examples["table_id"].to_pylist())
    assert len(table_ids) == 2_540


@pytest.mark.parametrize("split", infotabs.SPLITS)
def test_real_data_per_split(real_splits, split):
    ingested = real_splits[split]
    assert ingested.examples.num_rows == REAL_COUNTS[split]
    dups = ingested.duplicate_lines
    assert (len(dups), sum(kind == "exact" for _, _, kind in dups)) == REAL_DUPLICATES[split]
    assert all(first < line for line, first, _ in dups)
    uids = ingested.examples["uid"].to_pylist()
    assert len(set(uids)) == len(uids)  # duplicates kept, but every line has its own uid


# Lines of the official files that start a CSV-quoted hypothesis (a quote inside written twice).
REAL_QUOTED = {"train": 85, "dev": 5, "alpha1": 6, "alpha2": 1, "alpha3": 2}


@pytest.mark.parametrize("split", infotabs.SPLITS)
def test_real_data_quoted_hypotheses_read_as_the_dataset_means_them(real_splits, shared_infotabs, split):
    raw = infotabs.split_tsv(shared_infotabs, split).read_text(encoding="utf-8").split("\n")
    quoted = [n for n, line in enumerate(raw, start=1) if '\t"' in line]
    assert len(quoted) == REAL_QUOTED[split]
    by_uid = {e["uid"]: e["hypothesis"] for e in real_splits[split].examples.to_pylist()}
    for n in quoted:
        hypothesis = by_uid[f"{split}:{n}"]
        assert not hypothesis.startswith('"') and '""' not in hypothesis, (n, hypothesis)
    if split == "alpha1":
        assert by_uid["alpha1:249"] == 'Bryan Adams wrote and performed "Everything I Do."'
        assert by_uid["alpha1:1401"] == 'Jim Mattis was best known as "Mad Dog."'


def test_real_data_duplicates_stop_with_on_duplicate_error(shared_infotabs):
    err = ingest_error(shared_infotabs, "alpha2", on_duplicate="error")
    assert "repeats the table_id and hypothesis of line" in str(err)
    assert len(err.problems) == 1


def test_real_data_matches_the_pinned_checksums(shared_infotabs):
    assert download.verify(shared_infotabs) is None
