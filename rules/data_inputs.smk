# The inputs of data.smk. A dataset's check and ingest rules (made in a loop, one pair per
# dataset) take theirs from tabprobe.config.derived, given the dataset's name (functools.partial):
# what its check reads that another rule makes, the check's settings, what a copy holds and the
# code of its jobs.

from functools import partial

# The paper's data, downloaded where config names no local copy: InfoTabS's own rules (data.smk),
# whose decisions (which copy, which digest) are its package's.
from tabprobe.data.infotabs.counterfactuals import DOWNLOADED as COUNTERFACTUALS_DOWNLOAD
from tabprobe.data.infotabs.download import DOWNLOADED as INFOTABS_DOWNLOAD
