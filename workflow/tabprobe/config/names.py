"""The names a config gives probes and models.

Probe and model names become folder names under results/ and resources/models/, and the
workflow's wildcards: no path characters, no leading dot. The schema's propertyNames and the
rules' wildcard constraints use these same patterns (tests/test_bad_input.py checks both).
"""

from __future__ import annotations

PROBE_NAME = r"[A-Za-z0-9][A-Za-z0-9_]*"
MODEL_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
# What a check says of a name the patterns refuse, by the config key the name is under.
NAME_RULES = {
    "probes": "a probe name may hold only letters, digits and _, starting with a letter or digit",
    "models": "a model name may hold only letters, digits, _, . and -, starting with a letter or digit",
}
