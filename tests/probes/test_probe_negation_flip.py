"""negation_flip: the hypothesis negated or its negation removed; on the real alpha1."""

import re


def test_negations_are_english(alpha1_outputs):
    for record in alpha1_outputs["negation_flip"][0]:
        assert not re.search(
            r"\b(?:do|does|did) not be\b|\bgot not\b|\bbeen not\b|\bnot not\b", record["hypothesis"]
        ), record["hypothesis"]
        # "has not been active since his teens" says "inactive since then", not the negation
        assert not re.search(r"\b(?:has|have|had) not\b.*\b(?:since|for)\b", record["hypothesis"]), record["hypothesis"]
    hypotheses = {r["orig_uid"]: r["hypothesis"] for r in alpha1_outputs["negation_flip"][0]}
    assert hypotheses.get("alpha1:233", "There are not more Moravians").startswith("There are not more Moravians")
