"""The word lists kept as data files (tabprobe.wordlists): each says where it came from, reads back
as the literal it replaced, and ships with the package."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from tabprobe import wordlists

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = wordlists.PACKAGE_DIR
WORD_FILES = sorted(
    p.relative_to(PACKAGE_DIR).as_posix()
    for folder in ("words", "probes/words")
    for p in (PACKAGE_DIR / folder).iterdir()
)


@pytest.mark.parametrize("path", WORD_FILES)
def test_every_word_list_is_utf8_text_that_first_says_where_it_came_from(path):
    assert path.endswith(".txt")
    lines = (PACKAGE_DIR / path).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and len(lines[0]) > 20, f"{path}: the first line says where the list came from"
    entries = [line for line in lines if line.strip() and not line.startswith("#")]
    assert entries and all(line == line.strip() for line in entries), path
    assert len(set(entries)) == len(entries), f"{path}: an entry written twice"


def test_the_loaders_read_entries_groups_and_maps_in_file_order(tmp_path, monkeypatch):
    monkeypatch.setattr(wordlists, "PACKAGE_DIR", tmp_path)
    wordlists._entries.cache_clear()
    (tmp_path / "a.txt").write_text("# where it came from\nmore than\n\n# a comment\n–\nover\n", encoding="utf-8")
    (tmp_path / "g.txt").write_text("# x\nunited states, usa, u.s.\nuk, britain\n", encoding="utf-8")
    (tmp_path / "m.txt").write_text("# x\nover: down\nat least: no, fewer than\n", encoding="utf-8")
    (tmp_path / "twice.txt").write_text("# x\nover: down\nover: up\n", encoding="utf-8")
    try:
        assert wordlists.word_list("a.txt") == ("more than", "–", "over")
        assert wordlists.word_set("a.txt") == frozenset({"more than", "–", "over"})
        assert wordlists.word_groups("g.txt") == (
            frozenset({"united states", "usa", "u.s."}),
            frozenset({"uk", "britain"}),
        )
        assert list(wordlists.word_map("m.txt").items()) == [("over", "down"), ("at least", "no, fewer than")]
        assert wordlists.word_set_map("m.txt") == {"over": {"down"}, "at least": {"no", "fewer than"}}
        with pytest.raises(ValueError, match="each key once"):
            wordlists.word_map("twice.txt")
    finally:
        wordlists._entries.cache_clear()


def test_the_lists_read_as_the_literals_they_replaced():
    """Spot checks of types, order and content (the full check compared every list with the code
    before the move, and every probe's output on alpha1)."""
    from tabprobe.data.infobox import aligner
    from tabprobe.probes.infotabs import table_edits
    from tabprobe.probes.infotabs.hypothesis import entity_slots
    from tabprobe.probes.infotabs.hypothesis.edits import dates, durations, numbers, quantifiers, reading

    assert dates.MONTHS[:2] == ("January", "February") and len(dates.MONTHS) == 12
    assert aligner._MONTHS["january"] == 1 and aligner._MONTHS["december"] == 12
    assert list(numbers.MONOTONE_WORDS)[:6] == ["over", "more than", "after", "under", "less than", "before"]
    assert set(list(numbers.MONOTONE_WORDS)[:6]) == numbers.PAPER_TABLE2
    assert quantifiers.QUANTIFIER_COMPLEMENTS["more than"] == "no more than"
    assert reading.APPROXIMATORS <= durations._NOT_BARE
    assert isinstance(table_edits.IDENTITY_KEYS, frozenset) and len(table_edits.IDENTITY_KEYS) == 229
    assert table_edits.KEY_SYNONYMS[0] == frozenset({"nationality", "citizenship", "citizen", "ancestry", "ethnicity"})
    assert "ofemployment" in table_edits.KEY_SYNONYMS[-1]
    assert frozenset({"soviet union", "ussr", "u.s.s.r."}) in entity_slots.ALIASES
    assert aligner._CUES["label"] == {"=records", "label", "signed"} and isinstance(aligner._CUES["label"], set)
    assert "came out" in aligner._CUES["released"]


def test_the_package_data_ships_every_file_the_code_reads():
    """`pip install .` (a wheel) carries only the package data pyproject.toml names."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tabprobe"]
    data = [
        p.relative_to(PACKAGE_DIR).as_posix()
        for p in PACKAGE_DIR.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert set(WORD_FILES) <= set(data)
    assert [f for f in data if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)] == []
