"""Extracting WARC files on Spark: the file list is distributed (not the
bytes), each task reads its WARC files with dechrome's reader and extracts
them, and the pages land in Parquet, one row per page.

    from dechrome.spark import extract_warcs
    extract_warcs(spark, ["s3a://bucket/crawl/00000.warc.gz", ...], "s3a://bucket/out/")

Executors need the dechrome wheel installed (a packed venv through
``spark.archives``, or the wheel on the image), and every node must see the
WARC paths and the output folder: see docs/spark.md.
"""

import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, Iterator, List, Optional

#: The columns of the output, in order: where the page came from, the text,
#: the page's metadata, and the error of a page that failed (text null).
COLUMNS = [
    ("path", "string"),
    ("url", "string"),
    ("warc_date", "string"),
    ("warc_record_id", "string"),
    ("text", "string"),
    ("title", "string"),
    ("author", "string"),
    ("date", "string"),
    ("modified", "string"),
    ("language", "string"),
    ("canonical_url", "string"),
    ("site_name", "string"),
    ("description", "string"),
    ("page_type", "string"),
    ("page_type_probability", "double"),
    ("confidence", "double"),
    ("low_confidence", "boolean"),
    ("algorithm", "string"),
    ("error", "string"),
]

#: The optional column of the kept content as Markdown (``markdown=True``),
#: placed after ``text``.
MARKDOWN_COLUMN = ("markdown", "string")


def columns(markdown: bool = False) -> List[tuple]:
    """The columns of the output, with ``markdown`` after ``text`` when asked for."""
    if not markdown:
        return list(COLUMNS)
    at = [name for name, _ in COLUMNS].index("text") + 1
    return COLUMNS[:at] + [MARKDOWN_COLUMN] + COLUMNS[at:]


def schema(markdown: bool = False):
    """The Spark schema of the output (every column nullable; strings but for
    ``page_type_probability`` and ``confidence``, doubles, and
    ``low_confidence``, a boolean)."""
    from pyspark.sql.types import BooleanType, DoubleType, StringType, StructField, StructType

    kinds = {"string": StringType(), "double": DoubleType(), "boolean": BooleanType()}
    return StructType([StructField(name, kinds[kind], True) for name, kind in columns(markdown)])


def _local_copy(uri: str, scratch: str) -> str:
    """A local path for `uri`: local paths and file: URIs as they are, other
    schemes (s3a:, gs:, hdfs: ...) copied through fsspec when it is installed
    (not through Spark's Hadoop file system, which Python tasks cannot reach)."""
    if "://" not in uri:
        return uri
    if uri.startswith("file://"):
        return uri[len("file://"):]
    try:
        import fsspec
    except ImportError as e:  # pragma: no cover - depends on the image
        raise RuntimeError(
            f"{uri}: reading this scheme needs fsspec (and its filesystem, e.g. s3fs) on the executors"
        ) from e
    local = os.path.join(scratch, os.path.basename(uri.rstrip("/")) or "input.warc")
    with fsspec.open(uri, "rb") as src, open(local, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return local


def extract_partition(
    uris: Iterable[str],
    model: Optional[str] = None,
    threads: int = 1,
    markdown: bool = False,
    **config: Any,
) -> Iterator[tuple]:
    """The rows of the WARC files in `uris` (one partition's share). One
    Extractor per partition; `threads` workers per task (1 when each Spark
    task has one core); with `markdown` a ``markdown`` column too. A file
    that cannot be opened gives one row with its error; a record or page
    that fails gives a row with its error."""
    import dechrome

    extractor = dechrome.Extractor(model, **config)
    names = [name for name, _ in columns(markdown)]
    output = "markdown" if markdown else "text"
    for uri in uris:
        scratch = tempfile.mkdtemp(prefix="dechrome-")
        try:
            local = _local_copy(uri, scratch)
            records = extractor.extract_warc(local, threads=threads, output=output)
            for record in records:
                if local != uri and "path" in record:
                    record["path"] = uri + record["path"][len(local):]
                yield tuple(record.get(name) for name in names)
        except (OSError, RuntimeError, dechrome.DechromeError) as e:
            yield tuple(uri if n == "path" else (str(e) if n == "error" else None) for n in names)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def extract_warcs(
    spark,
    uris: List[str],
    out: str,
    *,
    partitions: Optional[int] = None,
    model: Optional[str] = None,
    threads: int = 1,
    mode: str = "error",
    config: Optional[Dict[str, Any]] = None,
    markdown: bool = False,
):
    """Extracts the WARC files `uris` on `spark` and writes Parquet to `out`.

    The list of names is parallelized (one partition per file unless
    `partitions` says otherwise): the bytes never go through the driver or
    Python pickling. Every executor opens its files itself, so `uris` must
    be paths every node sees (a shared mount) or URIs fsspec reads; `out`
    is written by Spark (any file system Spark's Hadoop layer has, hdfs://
    and s3a:// included; a local path must be shared by every node).
    `model` is a model path readable on every executor (default: the
    embedded model). `markdown` adds the kept content as Markdown in a
    ``markdown`` column after ``text``. Returns the DataFrame that was
    written.
    """
    config = dict(config or {})
    n = partitions or max(1, len(uris))
    rdd = spark.sparkContext.parallelize(list(uris), n)
    rows = rdd.mapPartitions(
        lambda part: extract_partition(part, model, threads, markdown, **config)
    )
    frame = spark.createDataFrame(rows, schema(markdown))
    frame.write.mode(mode).parquet(out)
    return spark.read.parquet(out)
