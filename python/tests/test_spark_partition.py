"""The Spark job's task body without Spark: a URI of a scheme other than
file: is copied through fsspec (here its in-process memory file system)
and gives the rows the local file gives, named by the URI."""

import pytest

from conftest import cli_jsonl, write_warc
from dechrome.spark import columns, extract_partition

fsspec = pytest.importorskip("fsspec")


def test_a_uri_is_read_through_fsspec_and_keeps_its_name(tmp_path):
    local = write_warc(tmp_path / "crawl.warc.gz", pages=5)
    uri = "memory://crawl/crawl.warc.gz"
    with fsspec.open(uri, "wb") as f:
        f.write(local.read_bytes())
    names = [name for name, _ in columns(markdown=True)]
    rows = [dict(zip(names, row)) for row in extract_partition([uri], markdown=True)]
    want = cli_jsonl("--with-markdown", str(local))
    assert len(rows) == len(want) == 5
    for row, record in zip(rows, want):
        assert row["path"] == uri + record["path"][len(str(local)) :]
        assert row["text"] == record["text"] and row["markdown"] == record["markdown"]
    # A URI that cannot be read is one row with its error.
    [failed] = extract_partition(["memory://crawl/absent.warc.gz"])
    failed = dict(zip([name for name, _ in columns()], failed))
    assert failed["path"] == "memory://crawl/absent.warc.gz" and failed["error"]
