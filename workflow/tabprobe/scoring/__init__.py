"""Stage `scoring` (rules/scoring.smk): each probe's scores by 100 samplings of 80% subsets
(probe_scores.py), the results table and run record (results.py), the paper's numbers (paper.py)."""
