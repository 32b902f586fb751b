"""WARC files through the binding: the library's reader, the CLI's records."""

import gzip

import pytest

import dechrome
from conftest import cli_jsonl, write_warc


def test_extract_warc_equals_the_cli_jsonl_record_for_record(warc_file):
    want = cli_jsonl(str(warc_file))
    assert len(want) == 12
    for threads, ordered in ((1, True), (2, True), (2, False)):
        got = list(dechrome.Extractor().extract_warc(warc_file, threads=threads, ordered=ordered))
        if not ordered:
            got.sort(key=lambda r: int(r["path"].rsplit("#", 1)[1]))
        assert got == want


def test_warc_records_keep_capture_and_publish_dates_apart(warc_file):
    records = list(dechrome.Extractor().extract_warc(str(warc_file)))
    first = records[0]
    assert first["url"] == "https://news.example.org/story/0"
    assert first["warc_date"].startswith("20")
    assert first["warc_record_id"].startswith("<urn:uuid:")
    assert first["date"] == "2023-01-10"
    assert "date" not in records[1]
    assert "Paragraph 2 of story 5" in records[5]["text"]
    assert "Paragraph 3 of story 4" in records[4]["text"]


def test_read_warc_gives_the_html_responses(warc_file):
    pages = list(dechrome.read_warc(warc_file))
    assert len(pages) == 12
    assert [p["url"] for p in pages] == [f"https://news.example.org/story/{n}" for n in range(12)]
    assert pages[0]["path"] == f"{warc_file}#{pages[0]['record']}"
    assert pages[1]["html"].startswith(b"<!DOCTYPE html>")  # gzip content coding undone
    assert pages[5]["charset"] == "iso-8859-1"
    assert all(p["status"] == 200 and not p["truncated"] for p in pages)
    cut = list(dechrome.read_warc(warc_file, max_bytes=100))
    assert all(len(p["html"]) == 100 and p["truncated"] for p in cut)


def test_a_damaged_warc_gives_error_entries_not_exceptions(tmp_path, warc_file):
    raw = gzip.decompress(warc_file.read_bytes())
    damaged = tmp_path / "damaged.warc"
    cut = raw.index(b"WARC/1.", len(raw) // 2)
    damaged.write_bytes(raw[:cut] + b"WARC/1.1\r\nContent-Length: x\r\n\r\n" + raw[cut:])
    records = list(dechrome.Extractor().extract_warc(damaged, threads=2))
    errors = [r for r in records if "error" in r]
    pages = [r for r in records if "text" in r]
    assert errors and pages
    assert records == cli_jsonl(str(damaged))
    truncated = tmp_path / "truncated.warc.gz"
    truncated.write_bytes(warc_file.read_bytes()[:-300])
    records = list(dechrome.read_warc(truncated))
    assert "error" in records[-1]


def test_junk_and_missing_warc_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        dechrome.read_warc(tmp_path / "absent.warc.gz")
    with pytest.raises(FileNotFoundError):
        dechrome.Extractor().extract_warc(tmp_path / "absent.warc")
    junk = tmp_path / "junk.warc"
    junk.write_bytes(bytes(range(256)) * 20)
    records = list(dechrome.read_warc(junk))
    assert records and all("error" in r for r in records)
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    assert list(dechrome.Extractor().extract_warc(empty)) == []


def test_a_larger_crawl_in_parallel(tmp_path):
    warc = write_warc(tmp_path / "big.warc.gz", pages=150)
    ex = dechrome.Extractor()
    assert list(ex.extract_warc(warc, threads=2)) == list(ex.extract_warc(warc, threads=1))
