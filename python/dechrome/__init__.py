"""dechrome: a web page's main content without its chrome.

Nav bars, ads, footers, related links and comment threads are told apart
from the article by a trained block classifier (the Rust library dechrome;
this package is a thin binding over it).

>>> import dechrome
>>> text = dechrome.extract(open("page.html", "rb").read())      # doctest: +SKIP
>>> ex = dechrome.Extractor()                                      # doctest: +SKIP
>>> md = dechrome.extract(pathlib.Path("page.html"), output="markdown")  # doctest: +SKIP
>>> for page in ex.extract_files(glob.glob("pages/*.html")):       # doctest: +SKIP
...     print(page["path"], page.get("title"), len(page.get("text", "")))
>>> report = dechrome.train(["training-data/sample"], "my.model", folds=3)  # doctest: +SKIP
>>> dechrome.evaluate("snippet-corpus", model="my.model")["snippets"]      # doctest: +SKIP
"""

from ._dechrome import (
    Batch,
    ConfigError,
    DechromeError,
    Extractor,
    ModelError,
    PageError,
    WarcError,
    WarcPages,
    __version__,
    evaluate,
    extract,
    read_warc,
    train,
)

__all__ = [
    "Batch",
    "ConfigError",
    "DechromeError",
    "Extractor",
    "ModelError",
    "PageError",
    "WarcError",
    "WarcPages",
    "__version__",
    "evaluate",
    "extract",
    "read_warc",
    "train",
]
