"""evidence probes of InfoTabS (registered in ../registry.py)."""
