"""record probes of TabFact (registered in ../registry.py)."""
