import pytest

from tabprobe.data.infobox.render import hypothesis_only, para, render, struct
from tabprobe.data.infobox.table import Row, Table

PERSON = Table(
    "T1",
    "Ada Quill",
    (
        Row("Born", ("3 March 1901", "Lisbon, Portugal")),
        Row("Died", ("9 May 1980",)),
        Row("Occupation", ("Poet", "translator", "editor")),
        Row("Spouse(s)", ("Rui Quill",)),
    ),
    "Person",
)


def test_para_uses_the_row_template_and_lowercases_the_key():
    text = para(PERSON)
    assert "The occupation of Ada Quill are Poet, translator, editor." in text
    assert "The spouse(s) of Ada Quill are Rui Quill." in text


def test_para_born_and_died_use_the_event_template():
    text = para(PERSON)
    assert text.startswith("Ada Quill was born on 3 March 1901, Lisbon, Portugal. Ada Quill was died on 9 May 1980. ")
    assert "The born of" not in text and "The died of" not in text


def test_para_joins_sentences_with_spaces_in_row_order():
    assert para(PERSON) == (
        "Ada Quill was born on 3 March 1901, Lisbon, Portugal. "
        "Ada Quill was died on 9 May 1980. "
        "The occupation of Ada Quill are Poet, translator, editor. "
        "The spouse(s) of Ada Quill are Rui Quill."
    )


def test_struct_is_tabfact_style_with_title_first():
    assert struct(PERSON) == (
        "title : Ada Quill ; Born : 3 March 1901 , Lisbon, Portugal ; Died : 9 May 1980 ; "
        "Occupation : Poet , translator , editor ; Spouse(s) : Rui Quill"
    )


def test_hypothesis_only_is_empty_and_render_dispatches():
    assert hypothesis_only(PERSON) == ""
    assert render(PERSON, "para") == para(PERSON)
    assert render(PERSON, "struct") == struct(PERSON)
    with pytest.raises(ValueError, match="unknown premise rendering 'tabular'"):
        render(PERSON, "tabular")


def test_empty_table_renders_empty_paragraph():
    empty = PERSON.with_rows([])
    assert para(empty) == ""
    assert struct(empty) == "title : Ada Quill"
