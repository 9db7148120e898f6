"""InfoTabS (Gupta et al., 2020): Wikipedia infoboxes as key -> values tables, hypotheses
labelled entail / neutral / contradict; and the paper's human data on it (counterfactual tables,
relevant-row marks)."""
