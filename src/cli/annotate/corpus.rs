//! The corpus folder `dechrome annotate` writes: the WCXB layout that
//! `dechrome train --corpus` reads (`html/ID.html.gz`,
//! `ground-truth/ID.json`, `metadata.json`), and the ids of its pages.
//!
//! Ids are decimal numbers, at least four digits (`0001`). A new page takes
//! the number after the largest id in the folder; when that would overflow
//! (a file named `18446744073709551615.json`), the smallest number not in
//! use. Either way the id is claimed by creating its ground-truth file with
//! `create_new`, so that no two saves (nor two servers on one folder) can
//! take one id, and no existing file is ever overwritten by a new page.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use dechrome::model::artifact::write_atomically;

/// Why the corpus could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// Writing a whole file failed.
    #[error(transparent)]
    Write(#[from] dechrome::Error),
    /// Every id is taken (or kept being taken by another writer).
    #[error("no free page id left in {}", .0.display())]
    IdsExhausted(PathBuf),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> CorpusError + '_ {
    move |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A saved page's state, as read back from the corpus.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The page's id (`0001`).
    pub id: String,
    /// One label per block, true for content.
    pub labels: Vec<bool>,
    /// The WCXB page type.
    pub page_type: String,
}

/// A page to save: what goes into its two files.
pub struct Entry<'a> {
    /// SHA-256 of the original bytes, hex: the page's identity.
    pub sha256: &'a str,
    /// The original bytes (gzipped unless they already are).
    pub bytes: &'a [u8],
    /// The ground-truth JSON, without `file_id` (set here to the id).
    pub ground_truth: Value,
    /// The labels and page type, as the server keeps them.
    pub labels: Vec<bool>,
    /// The WCXB page type.
    pub page_type: String,
}

/// The corpus folder and what it holds for the input pages.
pub struct Corpus {
    dir: PathBuf,
    /// Saved state by the original bytes' SHA-256.
    saved: HashMap<String, Saved>,
}

/// Ids tried in one save before giving up when each is taken under us.
const CLAIM_ATTEMPTS: usize = 1000;

impl Corpus {
    /// Opens (creating it when missing) the corpus folder `dir`.
    pub fn open(dir: &Path) -> Result<Corpus, CorpusError> {
        for sub in ["html", "ground-truth"] {
            let d = dir.join(sub);
            std::fs::create_dir_all(&d).map_err(io_error(&d))?;
        }
        Ok(Corpus {
            saved: read_saved(dir)?,
            dir: dir.to_path_buf(),
        })
    }

    /// The saved state of the page whose bytes hash to `sha256`.
    pub fn saved(&self, sha256: &str) -> Option<&Saved> {
        self.saved.get(sha256)
    }

    /// Writes `entry` (under its id when saved before, else a new one) and
    /// rewrites `metadata.json`. Returns the id.
    pub fn save(&mut self, entry: Entry<'_>) -> Result<String, CorpusError> {
        let (id, new) = match self.saved.get(entry.sha256) {
            Some(s) => (s.id.clone(), false),
            None => (self.claim_id()?, true),
        };
        let gt_path = self.dir.join("ground-truth").join(format!("{id}.json"));
        let written = self.write_files(&id, &gt_path, &entry);
        if let Err(e) = written {
            if new {
                // Give the claimed id back rather than leave an empty file.
                let _ = std::fs::remove_file(&gt_path);
            }
            return Err(e);
        }
        self.saved.insert(
            entry.sha256.to_string(),
            Saved {
                id: id.clone(),
                labels: entry.labels,
                page_type: entry.page_type,
            },
        );
        Ok(id)
    }

    fn write_files(&self, id: &str, gt_path: &Path, entry: &Entry<'_>) -> Result<(), CorpusError> {
        let html = self.dir.join("html").join(format!("{id}.html.gz"));
        if !html.is_file() {
            let gz = gzipped(entry.bytes).map_err(io_error(&html))?;
            write_atomically(&html, &gz)?;
        }
        let mut gt = entry.ground_truth.clone();
        gt["file_id"] = json!(id);
        let text = serde_json::to_string_pretty(&gt).unwrap_or_default();
        write_atomically(gt_path, text.as_bytes())?;
        write_metadata(&self.dir)
    }

    /// A new id, claimed by creating its (empty) ground-truth file.
    fn claim_id(&self) -> Result<String, CorpusError> {
        for _ in 0..CLAIM_ATTEMPTS {
            let id = next_id(&self.dir)?;
            let path = self.dir.join("ground-truth").join(format!("{id}.json"));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(id),
                // Taken since the folder was listed: list it again.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_error(&path)(e)),
            }
        }
        Err(CorpusError::IdsExhausted(self.dir.clone()))
    }
}

/// The labels saved in `dir`, by the original page's SHA-256. Files this
/// command did not write (no `_internal.annotate`) are left out.
fn read_saved(dir: &Path) -> Result<HashMap<String, Saved>, CorpusError> {
    let mut saved = HashMap::new();
    for (id, v) in ground_truths(dir)? {
        let internal = &v["_internal"];
        let Some(sha) = internal["annotate"]["sha256"].as_str() else {
            continue;
        };
        let labels = internal["block_labels"]
            .as_array()
            .map(|l| l.iter().map(|x| x.as_u64() == Some(1)).collect())
            .unwrap_or_default();
        let page_type = internal["page_type"]["primary"]
            .as_str()
            .unwrap_or("article")
            .to_string();
        saved.insert(
            sha.to_string(),
            Saved {
                id,
                labels,
                page_type,
            },
        );
    }
    Ok(saved)
}

/// Every `ground-truth/ID.json` of `dir` that parses, sorted by id.
fn ground_truths(dir: &Path) -> Result<Vec<(String, Value)>, CorpusError> {
    let gt = dir.join("ground-truth");
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&gt) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io_error(&gt)(e)),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let Some(id) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
            out.push((id, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The next free id of `dir` (see the module's comment), formatted.
fn next_id(dir: &Path) -> Result<String, CorpusError> {
    let mut used = BTreeSet::new();
    for sub in ["ground-truth", "html"] {
        let d = dir.join(sub);
        for entry in std::fs::read_dir(&d).map_err(io_error(&d))?.flatten() {
            let name = entry.file_name();
            let stem = name.to_string_lossy();
            let stem = stem.split('.').next().unwrap_or_default();
            if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            // All digits: a number over u64 is no id this command makes.
            if let Ok(n) = stem.parse::<u64>() {
                used.insert(n);
            }
        }
    }
    free_id(&used)
        .map(|n| format!("{n:04}"))
        .ok_or_else(|| CorpusError::IdsExhausted(dir.to_path_buf()))
}

/// The number after the largest in `used`, or when that overflows the
/// smallest positive number not in `used`; `None` only when all are.
fn free_id(used: &BTreeSet<u64>) -> Option<u64> {
    match used.last() {
        None => Some(1),
        Some(&max) => max.checked_add(1).or_else(|| {
            // `used` holds `used.len()` numbers, so one of the first
            // `len + 1` positive numbers is free (unless u64 runs out).
            (1..=u64::MAX)
                .take(used.len().saturating_add(1))
                .find(|n| !used.contains(n))
        }),
    }
}

/// The page's bytes gzipped (kept as they are when already gzipped).
fn gzipped(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
}

/// Rewrites `metadata.json` from the ground-truth files on disk, so that
/// pages another writer saved are kept.
fn write_metadata(dir: &Path) -> Result<(), CorpusError> {
    let mut files = serde_json::Map::new();
    for (id, v) in ground_truths(dir)? {
        let url = v["url"].as_str().unwrap_or_default();
        let domain = dechrome::corpus::domain_of(url);
        files.insert(
            id,
            json!({
                "url": url,
                "domain": domain,
                "page_type": v["_internal"]["page_type"]["primary"],
            }),
        );
    }
    let meta = json!({ "files": files });
    let text = serde_json::to_string_pretty(&meta).unwrap_or_default();
    write_atomically(&dir.join("metadata.json"), text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_never_wrap() {
        let set = |v: &[u64]| v.iter().copied().collect::<BTreeSet<u64>>();
        assert_eq!(free_id(&set(&[])), Some(1));
        assert_eq!(free_id(&set(&[1, 2, 7])), Some(8));
        assert_eq!(free_id(&set(&[u64::MAX])), Some(1));
        assert_eq!(free_id(&set(&[1, 2, 4, u64::MAX])), Some(3));
        assert_eq!(free_id(&set(&[0, 1, 2, u64::MAX])), Some(3));
    }
}
