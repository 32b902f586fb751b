"""Shared fixtures: the repository, the CLI binary to compare with, and a
small WARC file written with warcio (the writer most crawls use)."""

import gzip
import io
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def cli_binary() -> pathlib.Path:
    """The `dechrome` binary: $DECHROME_BIN, else a debug or release build."""
    env = os.environ.get("DECHROME_BIN")
    if env:
        return pathlib.Path(env)
    for profile in ("debug", "release"):
        candidate = REPO / "target" / profile / "dechrome"
        if candidate.exists():
            return candidate
    pytest.fail("no dechrome binary: run `cargo build --bin dechrome` or set DECHROME_BIN")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the CLI; returns the finished process (stdout as bytes)."""
    return subprocess.run([str(cli_binary()), *args], capture_output=True, check=False)


def cli_jsonl(*args: str) -> list:
    """The records `dechrome extract --format jsonl ARGS` writes."""
    done = run_cli("extract", "--format", "jsonl", *args)
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


@pytest.fixture(scope="session")
def fixture_pages() -> list:
    pages = sorted(FIXTURES.glob("*.html"))
    assert len(pages) >= 5, "the Rust tests' fixture pages are missing"
    return pages


def news_page(n: int, published: str = None) -> str:
    """A small news page with menus, a footer and an article."""
    meta = (
        f'<meta property="article:published_time" content="{published}T08:30:00Z">'
        if published
        else ""
    )
    paragraphs = "".join(
        f"<p>Paragraph {k} of story {n}: the council met on Tuesday evening and agreed, "
        f"after a long debate about the harbour, the ferries and the new cycle lanes, "
        f"to put the plan to the town in a vote next spring.</p>"
        for k in range(4)
    )
    return (
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>Story {n} | Daily Example</title>{meta}</head><body>"
        f"<nav><a href=/>Home</a> <a href=/world>World</a> <a href=/sport>Sport</a></nav>"
        f"<article><h1>Story {n}</h1>{paragraphs}</article>"
        f"<footer>© Daily Example · <a href=/privacy>Privacy</a> · <a href=/terms>Terms</a></footer>"
        f"</body></html>"
    )


def commented_story(n: int) -> str:
    """A news page of eight paragraphs under a thread of five short reader
    comments (a `comments` section): an article with a thread under it,
    long enough that the thread is not the page's content. (With four
    short paragraphs the shipped model types the page a forum, 0.42, and
    keeps the thread as its content.)"""
    more = "".join(
        f"<p>More of story {n}, part {k}: the harbour master said the ferries would need "
        f"new berths before any timetable could change, and the cycle lanes would follow "
        f"the shore road.</p>"
        for k in range(4)
    )
    comments = "".join(
        f"<div class=comment><span class=author>reader{k}</span><p>I think the ferries "
        f"should run later in the evening, reader {k} wrote at length.</p></div>"
        for k in range(5)
    )
    return news_page(n).replace(
        "</article>",
        f"{more}</article><section id=comments class=comments><h3>Comments</h3>"
        f"{comments}</section>",
    )


def write_warc_of(path: pathlib.Path, bodies) -> pathlib.Path:
    """A gzipped WARC of one HTML response per body in `bodies` (bytes),
    written with warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for n, body in enumerate(bodies):
            http = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            rec = writer.create_warc_record(
                f"https://news.example.org/page/{n}",
                "response",
                payload=io.BytesIO(body),
                http_headers=http,
            )
            writer.write_record(rec)
    return path


def write_warc(path: pathlib.Path, pages: int = 12) -> pathlib.Path:
    """A gzipped WARC of `pages` HTML responses (every third one
    gzip-encoded, one in latin-1), a request, a metadata and a non-HTML
    response, written with warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for n in range(pages):
            uri = f"https://news.example.org/story/{n}"
            req = writer.create_warc_record(
                uri, "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\nHost: news.example.org\r\n\r\n")
            )
            writer.write_record(req)
            html = news_page(n, f"2023-0{1 + n % 9}-1{n % 10}" if n % 2 == 0 else None)
            headers = [("Content-Type", "text/html; charset=utf-8")]
            body = html.encode("utf-8")
            if n % 3 == 1:
                body = gzip.compress(body)
                headers.append(("Content-Encoding", "gzip"))
            if n == 5:
                body = html.replace("utf-8", "iso-8859-1").replace("©", "é").encode("latin-1")
                headers = [("Content-Type", "text/html; charset=iso-8859-1")]
            http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
            rec = writer.create_warc_record(
                uri, "response", payload=io.BytesIO(body), http_headers=http
            )
            writer.write_record(rec)
        meta = writer.create_warc_record(
            "https://news.example.org/", "metadata", payload=io.BytesIO(b"fetchTimeMs: 12\r\n")
        )
        writer.write_record(meta)
        http = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        png = writer.create_warc_record(
            "https://news.example.org/logo.png",
            "response",
            payload=io.BytesIO(b"\x89PNG\r\n\x1a\n" + bytes(64)),
            http_headers=http,
        )
        writer.write_record(png)
    return path


@pytest.fixture
def warc_file(tmp_path) -> pathlib.Path:
    return write_warc(tmp_path / "crawl.warc.gz")
