//! Expanding the command line's inputs into pages: files, folders
//! (recursive, HTML files only) and `-` for one page on standard input.

use std::path::{Path, PathBuf};

/// One page to read.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Input {
    /// The name written in the output's `path` field.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "-".to_string(),
        }
    }

    /// Reads the page's bytes.
    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        match self {
            Input::File(p) => std::fs::read(p),
            Input::Stdin => {
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut v)?;
                Ok(v)
            }
        }
    }
}

/// Reads a list of paths, one per line (blank lines skipped); `-` reads
/// standard input.
pub fn read_list(list: &str) -> std::io::Result<Vec<String>> {
    let text = if list == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin().lock(), &mut s)?;
        s
    } else {
        std::fs::read_to_string(list)?
    };
    Ok(text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect())
}

/// True for names that look like HTML pages (optionally gzipped).
pub fn is_html_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    [".html", ".htm", ".xhtml", ".shtml"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// Expands arguments into inputs. Folders are walked recursively in sorted
/// order and contribute their HTML files; a named file is always taken.
/// Arguments that do not exist are returned as errors, in place.
pub fn expand(args: &[String]) -> Vec<Result<Input, (String, String)>> {
    let mut out = Vec::new();
    for a in args {
        if a == "-" {
            out.push(Ok(Input::Stdin));
            continue;
        }
        let p = PathBuf::from(a);
        if p.is_dir() {
            walk(&p, &mut out);
        } else if p.exists() {
            out.push(Ok(Input::File(p)));
        } else {
            out.push(Err((a.clone(), "no such file or directory".to_string())));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Result<Input, (String, String)>>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                out.push(Err((d.display().to_string(), e.to_string())));
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        let mut subdirs = Vec::new();
        for p in paths {
            if p.is_dir() {
                subdirs.push(p);
            } else if is_html_name(&p) {
                out.push(Ok(Input::File(p)));
            }
        }
        // Depth-first in sorted order.
        subdirs.reverse();
        stack.extend(subdirs);
    }
}
