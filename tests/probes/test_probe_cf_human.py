"""cf_human: the paper's hand-made counterfactual tables (../shared/infotabs-counterfactuals), each
pair with its gold example."""

import json

from test_human_counterfactuals import release  # noqa: F401  (the fixture)

from tabprobe.data.infotabs import counterfactuals as hc
from tabprobe.data.infotabs import ingest
from tabprobe.data.infotabs import reading as infotabs
from tabprobe.probes import generation as perturb


def test_the_probe_pairs_every_release_pair_with_its_gold_example(release, shared_infotabs):  # noqa: F811
    """Every alpha1 pair finds its gold example (same table, hypothesis and label); on train one
    pair's edited table is the original once cleaned, and the probe's promise drops it, counted."""
    for split, perturbed, dropped in (("alpha1", 1127, {}), ("train", 1108, {"edits the table": 1})):
        ingested = ingest.ingest_split(shared_infotabs, split)
        tables = infotabs.load_tables(ingested.tables)
        index = hc.by_example(hc.read_split(release, split, {t: v.category for t, v in tables.items()}))
        out, coverage = perturb.generate(
            "cf_human", ingested.examples, tables, seed=1, split=split, needs={"human_counterfactuals": index}
        )
        assert coverage["perturbed"] == perturbed and coverage["dropped"] == dropped, coverage
        records = out.to_pylist()
        assert all(r["expected"] != r["label"] and r["expected"] in "EC" for r in records)
        provenance = [json.loads(r["provenance"]) for r in records]
        assert {p["made_by"] for p in provenance} == {"human"}
        assert all(p["direction"] == f"{r['label']}->{r['expected']}" for p, r in zip(provenance, records))
        again, _ = perturb.generate(
            "cf_human", ingested.examples, tables, seed=1, split=split, needs={"human_counterfactuals": index}
        )
        assert again.equals(out)
