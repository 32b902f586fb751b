"""Type stubs of dechrome (the binding is a native module)."""

from os import PathLike
from typing import Any, Dict, Iterable, Iterator, Literal, Optional, Union, overload

__version__: str

Html = Union[bytes, str, "PathLike[str]"]
"""A page: raw bytes (charset sniffed like the CLI), decoded text, or a path
(os.PathLike) of a file to read. A str is always HTML: one naming an
existing file raises TypeError (pass pathlib.Path)."""
Output = Literal["text", "dict", "markdown", "html"]
"""What extract returns: the main text, the Record, the kept content as
Markdown, or as a clean HTML document."""
BatchOutput = Literal["text", "markdown", "html"]
"""What a batch's Records carry besides text: nothing more, `markdown`, or
`html`."""
StrPath = Union[str, "PathLike[str]"]
Algorithm = Literal[
    "forest", "kmeans", "cetr-threshold", "danag", "crunch", "boilerpipe-rules", "boilerpipe-words", "readability"
]
Comments = Literal["exclude", "include", "model"]
Record = Dict[str, Any]
"""A page's JSON Lines record: text, title, author, date, modified, language,
canonical_url, site_name, description, page_type, page_type_probability,
confidence (the estimated word F1 of the extraction), low_confidence (True
when below min_confidence), algorithm (absent fields left out);
url, warc_date, warc_record_id for WARC pages; path for files and WARC
records; index in extract_many and extract_files; markdown or html when a
batch's output asks for it; error instead of text for a failed page."""

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
    output: Literal["text", "markdown", "html"] = "text",
    **settings: Any,
) -> str: ...
@overload
def extract(
    html: Html,
    *,
    url: Optional[str] = None,
    output: Literal["dict"],
    **settings: Any,
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
    threads: Optional[int] = None,
    **settings: Any,
) -> Dict[str, Any]:
    """Extracts every page of a corpus folder and scores it with the
    corpus's metric, as `dechrome eval` does (the settings are
    Extractor's keyword arguments): algorithm, word (WCXB:
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
        fast: bool = False,
        threshold: Optional[float] = None,
        low_prose_shift: Optional[float] = None,
        comments: Comments = "exclude",
        keep_captions: bool = False,
        keep_repeats: bool = False,
        keep_unnamed_threads: bool = False,
        max_bytes: int = 20 * 1024 * 1024,
        max_nodes: int = 1_000_000,
        max_depth: int = 4096,
        page_timeout: Optional[float] = None,
        fallback: bool = False,
        fallback_margin: float = 0.05,
        short_page_blocks: int = 10,
        structure: bool = False,
        min_confidence: Optional[float] = None,
        cetr: Optional[Dict[str, Any]] = None,
        classic: Optional[Dict[str, Any]] = None,
    ) -> None:
        """The keywords are the library's extraction settings (ExtractorConfig:
        the keys of `dechrome extract --config FILE`), read and checked by the
        library: an unknown name, a wrong type or a value out of range raises
        ConfigError naming the key. `page_timeout` is in seconds. A page
        whose confidence (the estimated word F1, the record's `confidence`)
        lies below `min_confidence` comes back with empty text and
        `low_confidence` True. `fast` picks the fast embedded model (one
        ensemble per stage; no `model` with it). Nested
        groups are dicts: cetr (sigma, alpha, kmeans_iterations) and classic
        (cetr_lambda, danag_gap, crunch_link_ratio, crunch_ad_hosts_file,
        crunch_retain_links)."""
    @property
    def algorithm(self) -> str:
        """The algorithm in use."""
    @property
    def low_prose_shift(self) -> float:
        """How far the threshold falls on a page whose kept text is not prose."""
    @overload
    def extract(
        self, html: Html, *, url: Optional[str] = None, output: Literal["text", "markdown", "html"] = "text"
    ) -> str: ...
    @overload
    def extract(self, html: Html, *, url: Optional[str] = None, output: Literal["dict"]) -> Record: ...
    def extract_many(
        self,
        pages: Iterable[Html],
        threads: Optional[int] = None,
        ordered: bool = True,
        output: BatchOutput = "text",
    ) -> "Batch":
        """Extracts many pages (bytes or str as HTML, os.PathLike as files;
        a str naming an existing file raises TypeError) on a worker pool with
        the GIL released; yields one Record per page (with index), an error
        entry for a failed page."""
    def extract_files(
        self,
        paths: Iterable[StrPath],
        threads: Optional[int] = None,
        ordered: bool = True,
        output: BatchOutput = "text",
    ) -> "Batch":
        """extract_many over files: every item (str or os.PathLike) names a
        file, e.g. extract_files(glob.glob("pages/*.html"))."""
    def extract_warc(
        self, path: StrPath, threads: Optional[int] = None, ordered: bool = True, output: BatchOutput = "text"
    ) -> "Batch":
        """Extracts a WARC file's HTML pages; each Record equals a line of
        `dechrome extract --format jsonl FILE` (`--with-markdown` with
        output="markdown")."""

class Batch(Iterator[Record]):
    """Results of extract_many / extract_files / extract_warc, as they are done."""

    def __iter__(self) -> "Batch": ...
    def __next__(self) -> Record: ...

class WarcPages(Iterator[Dict[str, Any]]):
    """The HTML pages of a WARC file (see read_warc)."""

    def __iter__(self) -> "WarcPages": ...
    def __next__(self) -> Dict[str, Any]: ...
