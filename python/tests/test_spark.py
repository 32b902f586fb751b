"""The Spark job in local mode: its Parquet rows equal the CLI's JSON Lines
on the same WARC files, record for record."""

import os
import pathlib
import shutil
import sys

import pytest

from conftest import REPO, cli_jsonl, news_page, write_warc, write_warc_of

if os.environ.get("DECHROME_REQUIRE_SPARK") != "1":
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs java", allow_module_level=True)

from dechrome.spark import COLUMNS, columns, extract_warcs  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("dechrome-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_parquet_rows_equal_the_cli_jsonl(spark, tmp_path):
    warcs = [write_warc(tmp_path / f"crawl-{k}.warc.gz", pages=10 + 5 * k) for k in range(3)]
    missing = str(tmp_path / "absent.warc.gz")
    out = str(tmp_path / "pages.parquet")
    frame = extract_warcs(spark, [str(w) for w in warcs] + [missing], out)
    assert frame.columns == [name for name, _ in COLUMNS]
    rows = [{k: v for k, v in row.asDict().items() if v is not None} for row in frame.collect()]
    failed = [r for r in rows if r["path"] == missing]
    assert len(failed) == 1 and "No such file" in failed[0]["error"]
    got = sorted((r for r in rows if r["path"] != missing), key=lambda r: r["path"])
    want = sorted(cli_jsonl(*map(str, warcs)), key=lambda r: r["path"])
    assert len(got) == 10 + 15 + 20
    assert got == want


def test_the_markdown_column_equals_the_cli_jsonl_with_markdown(spark, tmp_path):
    warc = write_warc(tmp_path / "crawl.warc.gz", pages=8)
    frame = extract_warcs(spark, [str(warc)], str(tmp_path / "pages.parquet"), markdown=True)
    names = [name for name, _ in COLUMNS]
    assert frame.columns == [name for name, _ in columns(markdown=True)]
    assert frame.columns == names[: names.index("text") + 1] + ["markdown"] + names[names.index("text") + 1 :]
    rows = [{k: v for k, v in row.asDict().items() if v is not None} for row in frame.collect()]
    want = cli_jsonl("--with-markdown", str(warc))
    assert sorted(rows, key=lambda r: r["path"]) == sorted(want, key=lambda r: r["path"])
    assert len(rows) == 8 and all(r["markdown"].startswith("# Story") for r in rows)


# Before the example script's test, which stops the session.
def test_one_page_over_the_node_budget_costs_only_its_row(spark, tmp_path):
    good = news_page(1).encode()
    warc = write_warc_of(tmp_path / "dense.warc.gz", [good, b"<p>x</p>" * 2_700_000, good])
    frame = extract_warcs(spark, [str(warc)], str(tmp_path / "pages.parquet"))
    rows = [row.asDict() for row in frame.collect()]
    assert len(rows) == 3
    errors = [r["error"] for r in rows if r["error"]]
    assert len(errors) == 1 and "DOM nodes" in errors[0]


def test_the_example_script_runs(spark, tmp_path):
    sys.path.insert(0, str(REPO / "examples" / "spark"))
    try:
        import extract_warc
    finally:
        sys.path.pop(0)
    warc = write_warc(tmp_path / "one.warc.gz", pages=6)
    listing = tmp_path / "warc.paths"
    listing.write_text(f"{warc}\n\n")
    out = tmp_path / "out"
    assert extract_warc.main(["--list", str(listing), "--out", str(out), "--markdown"]) == 0
    assert list(pathlib.Path(out).glob("*.parquet"))
    import pyarrow.parquet as pq

    table = pq.read_table(str(out))
    assert table.num_rows == 6
    assert "markdown" in table.column_names
    assert all(md.startswith("# Story") for md in table.column("markdown").to_pylist())

