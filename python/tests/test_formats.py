"""Markdown and HTML output: `output="markdown"` / `"html"` give what
`dechrome extract --format markdown` / `html` give (the library renders
both), and batches carry the same content under `markdown` / `html`."""

import pytest

import dechrome
from conftest import cli_jsonl, commented_story, news_page, run_cli


def cli_output(fmt: str, page) -> str:
    done = run_cli("extract", "--format", fmt, str(page))
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_one_page_in_markdown_and_html_is_the_clis(fixture_pages, fmt):
    ex = dechrome.Extractor()
    for page in fixture_pages:
        want = cli_output(fmt, page)
        got = dechrome.extract(page.read_bytes(), output=fmt)
        assert got == want, page.name
        # The same from an Extractor, from the file, and with settings given.
        assert ex.extract(page.read_bytes(), output=fmt) == want, page.name
        assert ex.extract(page, output=fmt) == want, page.name
    # Text output stays what it was after Markdown was asked for.
    page = fixture_pages[0]
    assert ex.extract(page.read_bytes()) + "\n" == cli_output("text", page)


def test_markdown_has_the_structure_and_the_words_of_the_text():
    html = news_page(2).replace("<h1>Story 2</h1>", "<h1>Story 2</h1><ul><li>first point</li><li>second point</li></ul>")
    text = dechrome.extract(html)
    markdown = dechrome.extract(html, output="markdown")
    assert markdown.startswith("# Story 2\n"), markdown
    assert "- first point\n- second point" in markdown
    assert markdown.split() != text.split()
    assert [w for w in markdown.split() if w not in ("#", "-")] == text.split()
    page = dechrome.extract(html, output="html")
    assert page.startswith("<!DOCTYPE html>") and "<h1>Story 2</h1>" in page
    assert "<li>first point</li>" in page and "<nav" not in page


def test_settings_and_markdown_go_together():
    # Markdown follows the settings: comments kept when asked for.
    html = commented_story(4)
    assert "reader 1 wrote" not in dechrome.extract(html, output="markdown")
    assert "reader 1 wrote" in dechrome.extract(html, output="markdown", comments="include")
    assert "reader 1 wrote" in dechrome.Extractor(comments="include").extract(html, output="markdown")


def test_extract_many_with_markdown_is_the_clis_jsonl_with_markdown(fixture_pages):
    ex = dechrome.Extractor()
    got = list(ex.extract_many(fixture_pages, threads=2, output="markdown"))
    for r in got:
        r.pop("index")
    want = cli_jsonl("--with-markdown", *map(str, fixture_pages))
    assert all(r["markdown"] for r in want)
    assert got == want
    # Without output= the records have no markdown, as before.
    assert "markdown" not in next(ex.extract_many(fixture_pages[:1]))


def test_extract_many_with_html_carries_the_pages_html(fixture_pages):
    ex = dechrome.Extractor()
    records = list(ex.extract_many([p.read_bytes() for p in fixture_pages], output="html"))
    for page, record in zip(fixture_pages, records):
        assert record["html"] == cli_output("html", page), page.name
        assert record["text"] == ex.extract(page.read_bytes())
        assert "markdown" not in record


def test_extract_warc_with_markdown_is_the_clis_jsonl_with_markdown(warc_file):
    ex = dechrome.Extractor()
    got = list(ex.extract_warc(warc_file, output="markdown"))
    want = cli_jsonl("--with-markdown", str(warc_file))
    assert len(got) == 12
    assert got == want
    assert all(r["markdown"].startswith("# Story") for r in got)
    html = list(ex.extract_warc(warc_file, output="html"))
    assert [r["text"] for r in html] == [r["text"] for r in got]
    assert all("<h1>Story" in r["html"] for r in html)


def test_unknown_outputs_are_config_errors(fixture_pages):
    ex = dechrome.Extractor()
    with pytest.raises(dechrome.ConfigError, match='"markdown" or "html"'):
        dechrome.extract("<p>x</p>", output="md")
    with pytest.raises(dechrome.ConfigError, match="one dict per page"):
        ex.extract_many(fixture_pages, output="dict")
    with pytest.raises(dechrome.ConfigError):
        ex.extract_files([], output="xml")
