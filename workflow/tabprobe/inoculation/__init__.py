"""Stage `inoculation` (rules/inoculation.smk): fine-tuning on a few challenge examples
(inoculate.py), what the fine-tuned models' scores show (outcomes.py), and the controlled-variance
experiment (variance.py)."""
