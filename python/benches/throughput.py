"""Throughput of the Python package against the CLI, and of the Spark job.

    python python/benches/throughput.py PAGES_DIR --cli target/release/dechrome [--repeat 4] [--rounds 3] [--spark]

Prints pages/s (best of the rounds) for: the CLI on one thread, extract_many
on one and two threads (paths read by the workers, as the CLI does),
read_warc alone and extract_warc on one thread over one gzipped WARC of the
same pages and,
with --spark, the Spark job in local[2] over WARC files made from the pages.
Speed figures depend on the machine and its load: run it on a quiet one.
"""

import argparse
import io
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import dechrome


def best(rounds, fn):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), times


def make_warcs(pages, folder, files):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    paths = []
    for k in range(files):
        path = pathlib.Path(folder) / f"bench-{k}.warc.gz"
        with open(path, "wb") as out:
            writer = WARCWriter(out, gzip=True)
            for n, page in enumerate(pages):
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                rec = writer.create_warc_record(
                    f"https://example.org/{k}/{n}", "response",
                    payload=io.BytesIO(page.read_bytes()), http_headers=http,
                )
                writer.write_record(rec)
        paths.append(str(path))
    return paths


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pages")
    p.add_argument("--cli", required=True)
    p.add_argument("--repeat", type=int, default=4, help="each page this many times")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--spark", action="store_true")
    args = p.parse_args()
    pages = sorted(x for x in pathlib.Path(args.pages).iterdir() if x.suffix in (".html", ".htm"))
    n = len(pages) * args.repeat
    print(f"{len(pages)} pages x {args.repeat} = {n} per round, best of {args.rounds}")
    cmd = [args.cli, "extract", "--threads", "1", "--format", "jsonl", *([args.pages] * args.repeat)]
    t, all_t = best(args.rounds, lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True))
    print(f"CLI --threads 1          {n / t:7.1f} pages/s  rounds {[round(x, 2) for x in all_t]}")
    ex = dechrome.Extractor()
    items = pages * args.repeat
    rates = {}
    for threads in (1, 2):
        t, all_t = best(args.rounds, lambda: sum(1 for _ in ex.extract_many(items, threads=threads)))
        rates[threads] = n / t
        print(f"extract_many threads={threads}  {n / t:7.1f} pages/s  rounds {[round(x, 2) for x in all_t]}")
    print(f"2 threads / 1 thread: {rates[2] / rates[1]:.2f}x")
    with tempfile.TemporaryDirectory() as tmp:
        (warc,) = make_warcs(pages * args.repeat, tmp, 1)
        size = os.path.getsize(warc)
        t, all_t = best(args.rounds, lambda: sum(1 for _ in dechrome.read_warc(warc)))
        print(f"read_warc alone           {n / t:7.1f} pages/s  {size / t / 1e6:.1f} MB/s of WARC.gz  "
              f"rounds {[round(x, 2) for x in all_t]}")
        t, all_t = best(args.rounds, lambda: sum(1 for _ in ex.extract_warc(warc, threads=1)))
        print(f"extract_warc threads=1    {n / t:7.1f} pages/s  rounds {[round(x, 2) for x in all_t]}")
    if args.spark:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        os.environ["PYSPARK_PYTHON"] = sys.executable
        from pyspark.sql import SparkSession
        from dechrome.spark import extract_warcs

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        with tempfile.TemporaryDirectory() as tmp:
            warcs = make_warcs(pages, tmp, 2 * args.repeat)
            total = len(pages) * len(warcs)
            times = []
            for r in range(args.rounds):
                start = time.perf_counter()
                frame = extract_warcs(spark, warcs, os.path.join(tmp, f"out{r}"))
                assert frame.count() == total
                times.append(time.perf_counter() - start)
            t = min(times)
            print(f"Spark local[2] ({len(warcs)} WARC files, {total} pages): {total / t:7.1f} pages/s "
                  f"({total / t / 2:.1f} per core)  rounds {[round(x, 2) for x in times]}")
        spark.stop()


if __name__ == "__main__":
    main()
