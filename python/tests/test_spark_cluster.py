"""The Spark job on a standalone cluster: a master and two workers, each its
own JVM process, on 127.0.0.1, started with `spark-class` as docs/spark.md
shows (pip's pyspark has no start-master.sh). Its rows equal the CLI's JSON
Lines.

Opt-in (DECHROME_SPARK_CLUSTER=1): it costs about two minutes on a 2-core
machine (three JVMs, then the driver's), over CI's budget for it;
python/ci.sh runs the same job in local mode (test_spark.py)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import REPO, cli_jsonl, write_warc

if os.environ.get("DECHROME_SPARK_CLUSTER") != "1":
    pytest.skip("opt-in: DECHROME_SPARK_CLUSTER=1 (about two minutes)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class() -> str:
    found = shutil.which("spark-class", path=os.path.dirname(sys.executable)) or shutil.which("spark-class")
    assert found, "spark-class not found (pip install pyspark puts it beside python)"
    return found


@pytest.fixture
def cluster(tmp_path):
    """A standalone master and two one-core workers; yields the master URL."""
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    port, ui = free_port(), free_port()
    master = f"spark://127.0.0.1:{port}"
    log = open(tmp_path / "cluster.log", "wb")
    procs = [
        subprocess.Popen(
            [spark_class(), "org.apache.spark.deploy.master.Master",
             "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    ]
    for k in range(2):
        procs.append(
            subprocess.Popen(
                [spark_class(), "org.apache.spark.deploy.worker.Worker", master,
                 "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                 "--webui-port", str(free_port()), "--work-dir", str(tmp_path / f"worker-{k}")],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )
        )
    try:
        deadline = time.time() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=2) as r:
                    if json.load(r).get("aliveworkers", 0) >= 2:
                        break
            except OSError:
                pass
            assert time.time() < deadline, (tmp_path / "cluster.log").read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        yield master
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=60)
        log.close()


def test_the_example_job_on_two_workers_gives_the_cli_rows(cluster, tmp_path):
    warcs = [write_warc(tmp_path / f"crawl-{k}.warc.gz", pages=6 + k) for k in range(2)]
    out = tmp_path / "pages.parquet"
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    submit = shutil.which("spark-submit", path=os.path.dirname(sys.executable)) or "spark-submit"
    done = subprocess.run(
        [submit, "--master", cluster, "--conf", "spark.ui.enabled=false",
         str(REPO / "examples" / "spark" / "extract_warc.py"), "--out", str(out), "--markdown",
         *map(str, warcs)],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "13 pages from 2 WARC files" in done.stdout
    import pyarrow.parquet as pq

    rows = [{k: v for k, v in r.items() if v is not None} for r in pq.read_table(str(out)).to_pylist()]
    want = cli_jsonl("--with-markdown", *map(str, warcs))
    assert sorted(rows, key=lambda r: r["path"]) == sorted(want, key=lambda r: r["path"])
