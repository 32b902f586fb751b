"""Type stubs of dechrome (the binding is a native module)."""

from os import PathLike
from typing import Any, Dict, Iterable, Iterator, Literal, Optional, Union, overload

__version__: str

Html = Union[bytes, str]
"""A page: raw bytes (charset sniffed like the CLI) or decoded text."""
StrPath = Union[str, "PathLike[str]"]
Algorithm = Literal[
    "forest", "kmeans", "cetr-threshold", "danag", "crunch", "boilerpipe-rules", "boilerpipe-words"
]
Comments = Literal["exclude", "include", "model"]
Record = Dict[str, Any]
"""A page's JSON Lines record: text, title, author, date, modified, language,
canonical_url, site_name, description, algorithm (absent fields left out);
url, warc_date, warc_record_id for WARC pages; path for files and WARC
records; index in extract_many; error instead of text for a failed page."""

class DechromeError(Exception):
    """Base class of the errors dechrome raises."""

class ModelError(DechromeError):
    """A model file was refused: not a dechrome model, truncated, corrupt, or of another format version."""

class ConfigError(DechromeError):
    """A setting is out of its range or unknown."""

class PageError(DechromeError):
    """A page could not be processed (too many nodes, nested too deep, over its time budget)."""

class WarcError(DechromeError):
    """A WARC file or one of its records could not be read."""

@overload
def extract(
    html: Html,
    *,
    url: Optional[str] = None,
    comments: Comments = "exclude",
    algorithm: Algorithm = "forest",
    output: Literal["text"] = "text",
) -> str: ...
@overload
def extract(
    html: Html,
    *,
    url: Optional[str] = None,
    comments: Comments = "exclude",
    algorithm: Algorithm = "forest",
    output: Literal["dict"],
) -> Record: ...
def read_warc(path: StrPath, *, max_bytes: Optional[int] = None) -> "WarcPages":
    """The HTML responses of a WARC file (.warc or .warc.gz), as dicts: path
    (FILE#N), record, url, warc_date, warc_record_id, status, charset, html
    (bytes) and truncated; a record that cannot be read gives a dict with
    error."""

def train(
    corpora: Union[StrPath, Iterable[StrPath]],
    out: StrPath,
    folds: Optional[int] = None,
    seed: Optional[int] = None,
    *,
    config: Optional[Dict[str, Any]] = None,
    corpus_weights: Optional[Dict[str, float]] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """Trains a model on corpus folders (WCXB gold text or a snippet
    manifest), cross-validating by domain over their union, and saves it to
    `out` (whole or not at all). `config` holds TrainConfig fields (missing
    ones default; folds 5, seed 42); `folds`, `seed` and `corpus_weights`
    (by corpus folder name) override it. Returns the cross-validation
    report: folds, word (P/R/F1 overall and per page type), stage1,
    fold_thresholds, oracle_f1, corpora (scores per corpus), skipped
    (pages left out: page, error) and model (the saved path). Same data
    and seed give the same model bytes. Raises ConfigError for a bad
    setting, DechromeError when a corpus cannot be read."""

def evaluate(
    corpus: StrPath,
    model: Optional[StrPath] = None,
    *,
    algorithm: Algorithm = "forest",
    comments: Comments = "exclude",
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """Extracts every page of a corpus folder and scores it with the
    corpus's metric, as `dechrome evaluate` does: algorithm, word (WCXB:
    P/R/F1 overall and per page type), snippets (manifest: counts and
    P/R/F1), metadata (WCXB: exact-match rates), errors, fallbacks."""

class Extractor:
    """Extracts main content with a loaded model (the embedded one by
    default) or one of the unsupervised algorithms. Thread-safe; the GIL is
    released while pages are processed."""

    def __init__(
        self,
        model: Optional[StrPath] = None,
        *,
        algorithm: Algorithm = "forest",
        comments: Comments = "exclude",
        threshold: Optional[float] = None,
        low_prose_shift: Optional[float] = None,
        max_bytes: Optional[int] = None,
        short_page_blocks: Optional[int] = None,
        page_timeout: Optional[float] = None,
        fallback: bool = False,
        retain_links: bool = False,
        ad_hosts: Optional[StrPath] = None,
        keep_captions: bool = False,
        keep_repeats: bool = False,
    ) -> None: ...
    @property
    def algorithm(self) -> str:
        """The algorithm in use."""
    @property
    def low_prose_shift(self) -> float:
        """How far the threshold falls on a page whose kept text is not prose."""
    @overload
    def extract(self, html: Html, *, url: Optional[str] = None, output: Literal["text"] = "text") -> str: ...
    @overload
    def extract(self, html: Html, *, url: Optional[str] = None, output: Literal["dict"]) -> Record: ...
    def extract_many(
        self,
        pages: Iterable[Union[bytes, str, "PathLike[str]"]],
        threads: Optional[int] = None,
        ordered: bool = True,
    ) -> "Batch":
        """Extracts many pages on a worker pool with the GIL released; yields
        one Record per page (with index), an error entry for a failed page."""
    def extract_warc(self, path: StrPath, threads: Optional[int] = None, ordered: bool = True) -> "Batch":
        """Extracts a WARC file's HTML pages; each Record equals a line of
        `dechrome extract --format jsonl FILE`."""

class Batch(Iterator[Record]):
    """Results of extract_many / extract_warc, as they are done."""

    def __iter__(self) -> "Batch": ...
    def __next__(self) -> Record: ...

class WarcPages(Iterator[Dict[str, Any]]):
    """The HTML pages of a WARC file (see read_warc)."""

    def __iter__(self) -> "WarcPages": ...
    def __next__(self) -> Dict[str, Any]: ...
