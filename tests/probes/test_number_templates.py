"""The label rule of the templated comparisons (probes/infotabs/numeric/number_templates.py) that num_comparative,
num_noise, num_distribution and num_logic share: every operation, at and around its boundary."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tabprobe.probes.infotabs.numeric.number_templates import label_for


@pytest.mark.parametrize(
    "relation,value,n,label",
    [
        ("at least", 42, 42, "E"),  # the boundary: inclusive holds, strict does not
        ("more than", 42, 42, "C"),
        ("at most", 42, 42, "E"),
        ("less than", 42, 42, "C"),
        ("at least", 42, 41, "E"),
        ("at least", 42, 43, "C"),
        ("at most", 42, 43, "E"),
        ("at most", 42, 41, "C"),
        ("more than", Decimal("42.3"), Decimal("41.9"), "E"),
        ("exactly", Decimal("42.3"), Decimal("42.3"), "E"),
        ("exactly", Decimal("42.3"), Decimal("42.4"), "C"),
    ],
)
def test_the_rule_labels_every_operation(relation, value, n, label):
    assert label_for(relation, value, n) == label
