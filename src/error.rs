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
    /// A configuration value is out of its range.
    #[error("invalid configuration: {field}: {reason}")]
    Config {
        /// The offending field.
        field: &'static str,
        /// Why it is invalid.
        reason: String,
    },
    /// A model file could not be loaded.
    #[error("model file: {0}")]
    Model(#[from] ModelError),
    /// The annotated corpus is malformed or missing pieces.
    #[error("corpus: {0}")]
    Corpus(String),
    /// A page could not be processed (too large, too deep, timed out, ...).
    #[error("page rejected: {0}")]
    Page(#[from] PageError),
    /// Training could not proceed (no data, one class only, ...).
    #[error("training: {0}")]
    Training(String),
    /// An error reported by linfa.
    #[error("linfa: {0}")]
    Linfa(String),
    /// A WARC file or one of its records could not be read.
    #[error("WARC: {0}")]
    Warc(#[from] WarcError),
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
