#!/usr/bin/env python3
"""dechrome beside its peers as whole processes, as users run them.

Every contender is one process over the same list of pages, read from disk,
pinned to one processor, writing one JSON line per page (the parse floor
writes nothing):

- ``html5ever parse only``: ``peer_bench --process parse`` (the floor: reading,
  gunzip, charset decoding and html5ever parsing into our arena DOM);
- ``dom_smoothie``: ``peer_bench --process dom_smoothie``;
- ``resiliparse``: this script as a Python process, ``extract_plain_text(tree,
  main_content=True)`` after resiliparse's own charset detection (skipped
  when ``resiliparse`` is not installed: ``pip install resiliparse``);
- ``dechrome``: ``dechrome extract --threads 1 --format jsonl --files-from
  LIST``, and ``dechrome --fast`` the same with ``--fast``.

Rounds alternate between the contenders so that a drifting machine weighs on
all alike; the best and the median round are reported, with pages/s and MB/s
of decoded HTML, the CPU time and the peak resident memory from the kernel's
own accounting (``wait4``); each ratio against a peer is given for the best
rounds and as the median of the rounds' own ratios (steadier on a shared
machine, whose speed drifts between rounds). ``--threads`` adds dechrome
with 2 threads on two processors against 1 thread.

Usage (after ``cargo build --release --examples``)::

    python3 benches/whole_process.py [--rounds 3] [--limit N] [--threads] DIR...
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def page_paths(dirs, limit):
    """The HTML pages under `dirs`, sorted, as `dechrome extract` walks them."""
    out = []
    for d in dirs:
        if os.path.isfile(d):
            out.append(d)
            continue
        for base, subdirs, names in os.walk(d):
            subdirs.sort()
            for n in sorted(names):
                if n.endswith((".html", ".htm", ".html.gz")):
                    out.append(os.path.join(base, n))
    return out[:limit] if limit else out


def decoded_size(path):
    """Bytes of HTML after gunzip: the size every contender parses."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            return len(gzip.decompress(raw))
        except (OSError, EOFError):
            return len(raw)
    return len(raw)


def resiliparse_worker(list_path):
    """Runs as its own process: resiliparse's main-content text, JSON lines out."""
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    out = sys.stdout
    with open(list_path, encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    for path in paths:
        try:
            with open(path, "rb") as f:
                raw = f.read()
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            tree = HTMLTree.parse_from_bytes(raw, detect_encoding(raw))
            title = tree.title or ""
            text = extract_plain_text(tree, main_content=True)
            out.write(json.dumps({"path": path, "title": title, "text": text}) + "\n")
        except Exception as e:  # a batch reports the bad page and carries on
            out.write(json.dumps({"path": path, "error": str(e)}) + "\n")
    out.flush()


def run_once(argv, cpus, out_path):
    """One run: wall seconds, CPU seconds, peak RSS in MB, exit status."""
    def pin():
        os.sched_setaffinity(0, cpus)

    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, preexec_fn=pin)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", help="folders or files of pages")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (best and median reported)")
    ap.add_argument("--limit", type=int, default=0, help="first N pages only")
    ap.add_argument("--cpu", type=int, default=0, help="the processor one-thread runs are pinned to")
    ap.add_argument("--threads", action="store_true", help="also dechrome with 2 threads on 2 processors")
    ap.add_argument("--target", default=os.path.join(ROOT, "target", "release"), help="cargo's release folder")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    ap.add_argument("--resiliparse-worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.resiliparse_worker:
        resiliparse_worker(args.resiliparse_worker)
        return
    dirs = args.dirs or [os.path.join(ROOT, "..", "shared", "corpora", "readability-pages")]
    paths = page_paths(dirs, args.limit)
    if not paths:
        sys.exit("no pages found")
    mb = sum(decoded_size(p) for p in paths) / 1e6
    dechrome = os.path.join(args.target, "dechrome")
    peer = os.path.join(args.target, "examples", "peer_bench")
    for binary in (dechrome, peer):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary} is missing: run `cargo build --release --examples` first")

    work = tempfile.mkdtemp(prefix="dechrome-bench-")
    list_path = os.path.join(work, "pages.txt")
    with open(list_path, "w", encoding="utf-8") as f:
        f.write("".join(os.path.abspath(p) + "\n" for p in paths))
    one = {args.cpu}
    extract = [dechrome, "extract", "--format", "jsonl", "--files-from", list_path]
    contenders = [
        ("html5ever parse only", [peer, "--process", "parse", "--files-from", list_path], one, 0),
        ("dom_smoothie", [peer, "--process", "dom_smoothie", "--files-from", list_path], one, len(paths)),
    ]
    try:
        import resiliparse  # noqa: F401

        contenders.append(
            ("resiliparse", [sys.executable, os.path.abspath(__file__), "--resiliparse-worker", list_path], one, len(paths))
        )
    except ImportError:
        print("resiliparse is not installed (pip install resiliparse): left out", file=sys.stderr)
    contenders.append(("dechrome", extract + ["--threads", "1"], one, len(paths)))
    help_text = subprocess.run([dechrome, "extract", "--help"], capture_output=True, text=True).stdout
    if "--fast" in help_text:
        contenders.append(("dechrome --fast", extract + ["--threads", "1", "--fast"], one, len(paths)))
    if args.threads:
        both = set(list(os.sched_getaffinity(0))[:2])
        if len(both) < 2:
            print("one processor only: --threads left out", file=sys.stderr)
        else:
            contenders.append(("dechrome, 2 threads", extract + ["--threads", "2"], both, len(paths)))

    runs = {name: [] for name, *_ in contenders}
    for _ in range(max(1, args.rounds)):
        for name, argv, cpus, lines in contenders:
            out_path = os.path.join(work, "out.jsonl")
            wall, cpu, rss, status = run_once(argv, cpus, out_path)
            if status != 0:
                sys.exit(f"{name} failed (status {status}): {' '.join(argv)}")
            with open(out_path, "rb") as f:
                got = sum(1 for _ in f)
            if got != lines:
                sys.exit(f"{name} wrote {got} lines for {len(paths)} pages")
            runs[name].append((wall, cpu, rss))

    print(f"{len(paths)} pages, {mb:.1f} MB of HTML (decoded), whole processes, "
          f"best of {max(1, args.rounds)} alternating rounds, pinned to processor {args.cpu}")
    print(f"{'contender':<22} {'best s':>7} {'median s':>8} {'pages/s':>8} {'MB/s':>6} {'CPU s':>6} {'peak RSS MB':>11}")
    figures = {"pages": len(paths), "mb": mb, "contenders": {}}
    for name, *_ in contenders:
        walls = [r[0] for r in runs[name]]
        best = min(walls)
        cpu = min(r[1] for r in runs[name])
        rss = max(r[2] for r in runs[name])
        figures["contenders"][name] = {
            "best_s": best, "median_s": statistics.median(walls), "cpu_s": cpu, "peak_rss_mb": rss,
            "pages_per_s": len(paths) / best, "mb_per_s": mb / best,
        }
        print(f"{name:<22} {best:>7.3f} {statistics.median(walls):>8.3f} {len(paths) / best:>8.1f} "
              f"{mb / best:>6.1f} {cpu:>6.2f} {rss:>11.1f}")
    best = {name: f["best_s"] for name, f in figures["contenders"].items()}
    figures["ratios"] = {}
    for name in [n for n in best if n.startswith("dechrome") and "threads" not in n]:
        for other in ("html5ever parse only", "dom_smoothie", "resiliparse"):
            if other in best:
                # The two ran one after the other in every round: the
                # median of the rounds' own ratios holds when the machine's
                # speed drifts between rounds, which the best rounds do not.
                paired = sorted(a[0] / b[0] for a, b in zip(runs[name], runs[other]))
                figures["ratios"][f"{name} / {other}"] = {
                    "best": best[name] / best[other],
                    "median_of_rounds": statistics.median(paired),
                }
                print(f"{name} / {other}: {best[name] / best[other]:.2f} (best rounds); "
                      f"{statistics.median(paired):.2f} median of the rounds' ratios "
                      f"({paired[0]:.2f}-{paired[-1]:.2f})")
    if "dechrome, 2 threads" in best:
        c = figures["contenders"]
        extra = c["dechrome, 2 threads"]["peak_rss_mb"] - c["dechrome"]["peak_rss_mb"]
        paired = statistics.median(a[0] / b[0] for a, b in zip(runs["dechrome"], runs["dechrome, 2 threads"]))
        print(f"2 threads against 1: {best['dechrome'] / best['dechrome, 2 threads']:.2f}x "
              f"(best rounds), {paired:.2f}x (median of the rounds' ratios); "
              f"peak RSS {c['dechrome']['peak_rss_mb']:.1f} MB with one thread, "
              f"{extra:+.1f} MB for the second")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
