"""Extract the HTML pages of WARC files to Parquet with Spark.

    spark-submit examples/spark/extract_warc.py --out pages.parquet crawl/*.warc.gz
    spark-submit examples/spark/extract_warc.py --out s3a://bucket/pages/ --list warc.paths

Inputs are paths every node sees or URIs (read on the executors; non-local
schemes through fsspec); --out is written by Spark and must be shared too.
The executors need the dechrome wheel: docs/spark.md says how to ship it
and how to start a test cluster. Columns: path, url, warc_date,
warc_record_id, text (then markdown, with --markdown), title, author,
date, modified, language, canonical_url, site_name, description,
algorithm, error.
"""

import argparse
import sys
import time

from pyspark.sql import SparkSession

from dechrome.spark import extract_warcs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("warcs", nargs="*", help="WARC files (.warc, .warc.gz) or URIs")
    p.add_argument("--list", help="a file with one WARC path or URI per line")
    p.add_argument("--out", required=True, help="output folder (Parquet)")
    p.add_argument("--partitions", type=int, help="partitions (default: one per file)")
    p.add_argument("--model", help="model file readable on every executor (default: embedded)")
    p.add_argument("--mode", default="error", help="Spark save mode: error, overwrite, append")
    p.add_argument("--markdown", action="store_true", help="add a markdown column (the kept content as Markdown)")
    args = p.parse_args(argv)
    uris = list(args.warcs)
    if args.list:
        with open(args.list) as f:
            uris += [line.strip() for line in f if line.strip()]
    if not uris:
        p.error("no WARC files given")
    spark = SparkSession.builder.appName("dechrome-extract-warc").getOrCreate()
    start = time.time()
    frame = extract_warcs(
        spark,
        uris,
        args.out,
        partitions=args.partitions,
        model=args.model,
        mode=args.mode,
        markdown=args.markdown,
    )
    pages = frame.count()
    seconds = time.time() - start
    print(f"{pages} pages from {len(uris)} WARC files in {seconds:.1f} s ({pages / seconds:.1f} pages/s)")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
