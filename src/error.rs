//! Typed errors of the library. The CLI wraps them with `anyhow`; the library never does.

use std::path::PathBuf;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A setting is out of its range, of the wrong type, or unknown.
    #[error("invalid configuration: {field}: {reason}")]
    Config {
        /// The offending field, as a path of keys (`threshold`,
        /// `classic.danag_gap`); `settings` when the settings as a whole
        /// are at fault (not an object).
        field: std::borrow::Cow<'static, str>,
        /// Why it is invalid.
        reason: String,
    },
    /// A model file could not be loaded.
    #[error("model file: {0}")]
    Model(#[from] ModelError),
    /// The annotated corpus is malformed or missing pieces.
    #[error("corpus: {0}")]
    Corpus(#[from] CorpusError),
    /// A page could not be processed (too large, too deep, timed out, ...).
    #[error("page rejected: {0}")]
    Page(#[from] PageError),
    /// Training could not proceed (no data, one class only, ...).
    #[error("training: {0}")]
    Training(#[from] TrainingError),
    /// An error reported by linfa.
    #[error("linfa: {0}")]
    Linfa(String),
    /// A WARC file or one of its records could not be read.
    #[error("WARC: {0}")]
    Warc(#[from] WarcError),
    /// The input is binary data (an image, an archive, random bytes), not
    /// a page: after decoding, too many of its characters are NULs or
    /// other control characters ([`crate::parse::binary::looks_binary`]).
    #[error("not HTML")]
    NotHtml,
}

impl From<linfa::Error> for Error {
    fn from(e: linfa::Error) -> Self {
        Error::Linfa(e.to_string())
    }
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Why training could not proceed.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum TrainingError {
    /// No page of the corpora could be prepared.
    #[error("no page could be prepared")]
    NoPages,
    /// Nothing to fit: no labelled block with words, or no feature.
    #[error("no rows or no features to fit")]
    NoRows,
    /// Every training row has the same label.
    #[error("the labels have only one class")]
    OneClass,
    /// Every training row weighs 0.
    #[error("every row weighs 0")]
    NoWeight,
    /// The pages' sites cannot fill the folds asked for.
    #[error("{sites} sites cannot fill {folds} folds")]
    TooFewSites {
        /// Distinct sites (domains) among the pages.
        sites: usize,
        /// Folds asked for.
        folds: usize,
    },
    /// A measurement that needs cross-validation was asked for on pages
    /// from too few sites for one.
    #[error("the pages come from too few sites for cross-validation, so no baseline, ablation or fold models")]
    NeedsCrossValidation,
    /// A corpus weight names no corpus of the job.
    #[error("a corpus weight for {name}: no corpus named {name} (corpora: {})", known.join(", "))]
    UnknownCorpus {
        /// The name given.
        name: String,
        /// The job's corpora's names.
        known: Vec<String>,
    },
    /// A corpus to score on is one of the training corpora: its figure
    /// would be in-sample.
    #[error("{}: a training corpus; its figure would be in-sample", .0.display())]
    InSample(PathBuf),
    /// A corpus that must hold snippets does not.
    #[error("{}: not a snippet corpus (manifest layout)", .0.display())]
    NotASnippetCorpus(PathBuf),
    /// Anything else, said in words.
    #[error("{0}")]
    Other(String),
}

/// Why an annotated corpus could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum CorpusError {
    /// The folder is in no layout dechrome reads.
    #[error("{}: neither a WCXB folder (ground-truth/) nor a snippet manifest (manifest.jsonl)", .0.display())]
    UnknownLayout(PathBuf),
    /// A WCXB folder without ground-truth files.
    #[error("{}: no ground-truth files", .0.display())]
    NoGroundTruth(PathBuf),
    /// A gold file without its page.
    #[error("no html/{id}.html.gz for {}", gold.display())]
    MissingPage {
        /// The page id.
        id: String,
        /// The gold file naming it.
        gold: PathBuf,
    },
    /// A file of the corpus does not parse.
    #[error("{}: {reason}", path.display())]
    Malformed {
        /// The file (with `:LINE` for a line of a JSON Lines file).
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Two corpora of one job have the same name (their folders' names).
    #[error("{}: a second corpus named {name}", path.display())]
    DuplicateName {
        /// The second corpus's folder.
        path: PathBuf,
        /// The shared name.
        name: String,
    },
}

/// Why one page could not be processed. A batch reports it as that page's
/// error and goes on with the next page.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum PageError {
    /// The page's elements nest deeper than the limit (checked before
    /// parsing: html5ever is quadratic in nesting depth).
    #[error("elements nest more than {limit} deep (the limit)")]
    TooDeep {
        /// The limit in force (`ExtractorConfig::max_depth`).
        limit: usize,
    },
    /// The page has more DOM nodes than the limit.
    #[error("more than {limit} DOM nodes")]
    TooManyNodes {
        /// The limit in force (`ExtractorConfig::max_nodes`).
        limit: usize,
    },
    /// The page ran over its time budget (`ExtractorConfig::page_timeout`).
    #[error("timed out after {elapsed_secs:.1} s (limit {limit_secs:.1} s) at {stage}")]
    TimedOut {
        /// The stage that was running or had just ended.
        stage: &'static str,
        /// Seconds spent on the page.
        elapsed_secs: f64,
        /// The budget in seconds.
        limit_secs: f64,
    },
    /// The page's gzip data is damaged (a bad checksum or length, or a
    /// stream that ends early).
    #[error("corrupt gzip data: {0}")]
    CorruptGzip(String),
    /// Processing the page hit a fault in dechrome itself (a panic, caught
    /// at the page's boundary so that the batch goes on). Please report it
    /// with the page.
    #[error("internal error (please report it with the page): {0}")]
    Internal(String),
    /// Any other reason.
    #[error("{0}")]
    Other(String),
}

/// Why a model file was refused. Each case is distinct so that users can tell a
/// truncated download from a file of another program or a newer dechrome.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelError {
    /// The file does not start with dechrome's magic bytes.
    #[error("not a dechrome model (wrong magic bytes)")]
    BadMagic,
    /// The file is shorter than its header says.
    #[error("truncated: {0}")]
    Truncated(String),
    /// The file was written by a newer (or unknown) format version.
    #[error("unsupported format version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version found in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The body's checksum does not match: the file was altered or damaged.
    #[error("checksum mismatch: the file is corrupt")]
    Checksum,
    /// A declared size is larger than any model this build accepts.
    #[error("declared size {declared} exceeds the limit {limit}")]
    TooLarge {
        /// Size declared in the header.
        declared: u64,
        /// The limit.
        limit: u64,
    },
    /// The body could not be decoded.
    #[error("cannot decode body: {0}")]
    Decode(String),
    /// Loading the model would take far more memory than a file of its
    /// size should (a crafted file of many tiny or very deep trees).
    #[error("the model would take {bytes} bytes of memory, more than the {limit} allowed for a file of this size")]
    TooCostly {
        /// Estimated bytes in memory.
        bytes: u64,
        /// The limit for this file's size.
        limit: u64,
    },
    /// The model's feature schema differs from the one this build computes.
    #[error("feature schema mismatch: model has {model} features (hash {model_hash}), this build computes {ours} (hash {ours_hash})")]
    SchemaMismatch {
        /// Feature count in the model.
        model: usize,
        /// Schema hash in the model.
        model_hash: String,
        /// Feature count of this build.
        ours: usize,
        /// Schema hash of this build.
        ours_hash: String,
    },
    /// The decoded model is internally inconsistent.
    #[error("invalid model: {0}")]
    Invalid(String),
}

/// Why a WARC file, or one record of it, could not be read. Errors that
/// leave the reader in step with the file (a malformed record) let it go on
/// with the next record; the others (I/O, truncation) end the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WarcError {
    /// Reading the file (or decompressing it) failed.
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
    /// The file ends inside a record.
    #[error("truncated: the file ends inside a record ({0})")]
    Truncated(&'static str),
    /// The record does not start with a `WARC/` version line.
    #[error("not a WARC record: expected a WARC/1.x version line")]
    NotWarc,
    /// A header line of the record is malformed or over the size limit.
    #[error("malformed record header: {0}")]
    Header(String),
    /// `Content-Length` is missing or not a number.
    #[error("missing or invalid Content-Length")]
    ContentLength,
    /// The record's block is not followed by the two line endings that end a
    /// record (a wrong `Content-Length`, or damage).
    #[error("the record does not end where its Content-Length says")]
    RecordEnd,
    /// A response record's HTTP message is malformed.
    #[error("malformed HTTP response: {0}")]
    Http(String),
    /// The HTTP payload uses a content coding this build cannot decode.
    #[error("unsupported Content-Encoding: {0}")]
    ContentEncoding(String),
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
