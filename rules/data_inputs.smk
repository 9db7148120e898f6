# The input functions of data.smk: the downloaded InfoTabS where there is no local copy, and what
# a local copy holds (its digest), so that where it lies re-runs nothing.

from tabprobe.data.infotabs.download import INFOTABS_COMMIT, split_digest, tables_digest


def get_downloaded_infotabs(wildcards):
    """The downloaded copy, when there is no local one: then the download is an input."""
    return [] if config["infotabs_dir"] else [layout.downloaded_infotabs()]


_TABLES_DIGEST = {}


def infotabs_digest(wildcards):
    """A local copy enters the workflow by what it holds (download.split_digest), not by how its
    path is spelled: the same data given as a relative path, an absolute one, from a moved
    checkout or a cluster node that mounts it elsewhere is the same data and re-runs nothing,
    while an edited line or table (even one edited in place) re-checks and re-ingests its split."""
    root = config["infotabs_dir"]
    if not root:
        return f"official InfoTabS {INFOTABS_COMMIT}"
    if root not in _TABLES_DIGEST:
        _TABLES_DIGEST[root] = tables_digest(Path(root))
    return split_digest(root, wildcards.split, tables=_TABLES_DIGEST[root])


_TABFACT_DIGEST = {}


def tabfact_digest(wildcards):
    """A TabFact copy enters the workflow by what it holds (reading.copy_digest), as InfoTabS does."""
    from tabprobe.data.tabfact.reading import copy_digest

    root = config["tabfact_dir"]
    if root not in _TABFACT_DIGEST:
        _TABFACT_DIGEST[root] = copy_digest(root)
    return _TABFACT_DIGEST[root]
