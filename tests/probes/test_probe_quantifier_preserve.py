"""quantifier_preserve: a quantifier weakened in a true hypothesis, strengthened in a false one; on
the real alpha1."""

import json
import re


def test_quantifiers_are_weakened_when_true_and_strengthened_when_false_on_real_data(alpha1, alpha1_outputs):
    weaker = {"most", "some", "multiple"}
    records, coverage = alpha1_outputs["quantifier_preserve"]
    assert records, coverage
    for record in records:
        provenance = json.loads(record["provenance"])
        gold = alpha1["by_uid"][record["orig_uid"]]
        if provenance["rule"] == "quantifier_weakened":
            assert gold["label"] == "E" and provenance["replacement"].split()[0] in weaker
        elif provenance["rule"] == "quantifier_strengthened":
            assert gold["label"] == "C" and provenance["replacement"] == "all"
        else:
            assert {provenance["quantifier"], provenance["replacement"]} == {"every", "each"}
        assert not re.search(r"\bthe (?:most|many|all)\b", gold["hypothesis"], re.IGNORECASE)
