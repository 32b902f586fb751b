"""What a page handed over is: `bytes` and `str` are HTML, an
`os.PathLike` is a file, a `str` naming an existing file is refused with a
TypeError (it was meant as a path), and `extract_files` takes names as
files."""

import glob
import os
import pathlib

import pytest

import dechrome
from conftest import news_page


@pytest.fixture
def pages_dir(tmp_path) -> pathlib.Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for n in range(3):
        (folder / f"story-{n}.html").write_text(news_page(n), encoding="utf-8")
    return folder


def test_extract_many_of_glob_strings_raises_type_error(pages_dir):
    names = sorted(glob.glob(str(pages_dir / "*.html")))
    assert len(names) == 3
    with pytest.raises(TypeError, match=r"pathlib\.Path") as raised:
        list(dechrome.Extractor().extract_many(names))
    assert names[0] in str(raised.value) and "extract_files" in str(raised.value)
    # A relative name, from the working directory, and one line with its
    # line break (as read from a list file), are caught too.
    cwd = os.getcwd()
    os.chdir(pages_dir)
    try:
        with pytest.raises(TypeError, match="story-0.html"):
            list(dechrome.Extractor().extract_many(["story-0.html"]))
        with pytest.raises(TypeError, match="story-1.html"):
            dechrome.extract("story-1.html\n")
    finally:
        os.chdir(cwd)


def test_extract_of_a_string_naming_a_file_raises_and_of_a_path_reads_it(pages_dir):
    page = pages_dir / "story-1.html"
    with pytest.raises(TypeError, match=r"pass pathlib\.Path"):
        dechrome.extract(str(page))
    with pytest.raises(TypeError, match=r"pass pathlib\.Path"):
        dechrome.Extractor().extract(str(page), output="dict")
    from_file = dechrome.extract(page, output="dict")
    from_bytes = dechrome.extract(page.read_bytes(), output="dict")
    assert from_file.pop("path") == str(page)
    assert from_file == from_bytes
    assert "Paragraph 0 of story 1" in dechrome.Extractor().extract(page)
    with pytest.raises(FileNotFoundError):
        dechrome.extract(pages_dir / "absent.html")


def test_strings_that_name_no_file_are_html(pages_dir):
    # One line of text naming nothing is a (tiny) page, as before.
    for html in ("hello there", str(pages_dir / "absent.html"), "<p>One line of HTML.</p>"):
        assert isinstance(dechrome.extract(html), str)
    results = list(dechrome.Extractor().extract_many([news_page(1), "story-0.html"]))
    assert "Paragraph 0 of story 1" in results[0]["text"]
    assert "error" not in results[1]


def test_extract_files_takes_names_and_paths_as_files(pages_dir):
    ex = dechrome.Extractor()
    names = sorted(glob.glob(str(pages_dir / "*.html")))
    from_names = list(ex.extract_files(names + [str(pages_dir / "absent.html")], threads=2))
    from_paths = list(ex.extract_many(map(pathlib.Path, names), threads=2))
    assert from_names[:3] == from_paths
    assert [r["path"] for r in from_names[:3]] == names
    for n, r in enumerate(from_names[:3]):
        assert f"Paragraph 0 of story {n}" in r["text"]
    assert "No such file" in from_names[3]["error"]
    # Bytes are not a file name here: an error entry, the batch goes on.
    mixed = list(ex.extract_files([pathlib.Path(names[0]), b"<p>x</p>"]))
    assert mixed[0]["text"] and "expected a path" in mixed[1]["error"]
