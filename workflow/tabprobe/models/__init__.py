"""Stage `models` (rules/models.smk): checkpoints initialised and trained, and predictions from
sequence classifiers (classifiers.py), prompted causal LMs (causal.py) and the model server
(serving.py + model_server.py)."""
