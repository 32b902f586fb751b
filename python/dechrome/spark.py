"""Extracting WARC files on Spark: the file list is distributed (not the
bytes), each task reads its WARC files with dechrome's reader and extracts
them, and the pages land in Parquet, one row per page.

    from dechrome.spark import extract_warcs
    extract_warcs(spark, ["s3a://bucket/crawl/00000.warc.gz", ...], "s3a://bucket/out/")

Executors need the dechrome wheel installed (a packed venv through
``spark.archives``, or the wheel on the image): see python/README.md.
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
    ("algorithm", "string"),
    ("error", "string"),
]


def schema():
    """The Spark schema of the output (every column a nullable string)."""
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([StructField(name, StringType(), True) for name, _ in COLUMNS])


def _local_copy(uri: str, scratch: str) -> str:
    """A local path for `uri`: local paths and file: URIs as they are, other
    schemes (s3a:, gs:, hdfs: ...) copied through fsspec when it is installed."""
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
    uris: Iterable[str], model: Optional[str] = None, threads: int = 1, **config: Any
) -> Iterator[tuple]:
    """The rows of the WARC files in `uris` (one partition's share). One
    Extractor per partition; `threads` workers per task (1 when each Spark
    task has one core). A file that cannot be opened gives one row with its
    error; a record or page that fails gives a row with its error."""
    import dechrome

    extractor = dechrome.Extractor(model, **config)
    names = [name for name, _ in COLUMNS]
    for uri in uris:
        scratch = tempfile.mkdtemp(prefix="dechrome-")
        try:
            local = _local_copy(uri, scratch)
            records = extractor.extract_warc(local, threads=threads)
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
):
    """Extracts the WARC files `uris` on `spark` and writes Parquet to `out`.

    The list of names is parallelized (one partition per file unless
    `partitions` says otherwise): the bytes never go through the driver or
    Python pickling. `model` is a model path readable on every executor
    (default: the embedded model). Returns the DataFrame that was written.
    """
    config = dict(config or {})
    n = partitions or max(1, len(uris))
    rdd = spark.sparkContext.parallelize(list(uris), n)
    rows = rdd.mapPartitions(lambda part: extract_partition(part, model, threads, **config))
    frame = spark.createDataFrame(rows, schema())
    frame.write.mode(mode).parquet(out)
    return spark.read.parquet(out)
