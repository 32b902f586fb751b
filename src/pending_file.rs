//! Files written whole or not at all: output goes to a temporary file
//! beside the target and is renamed over it only once complete, so a
//! reader never sees a partial file and an interrupted run never replaces a
//! good one.

use std::fs::File;
use std::path::{Path, PathBuf};

/// A file being written whole or not at all: a temporary file beside the target, created
/// afresh (`create_new`, which never opens a file or follows a symbolic link
/// already at the name) under a name with a random part, renamed over the
/// target when the run completes ([`commit`](Self::commit)) or to
/// `TARGET.partial` when it was interrupted
/// ([`keep_partial`](Self::keep_partial)). Dropped without either (an
/// error, a panic), it removes the temporary file.
#[derive(Debug)]
pub struct PendingFile {
    tmp: PathBuf,
    target: PathBuf,
    /// True once the temporary file has been renamed.
    settled: bool,
}

impl PendingFile {
    /// How many names are tried before giving up.
    const ATTEMPTS: usize = 64;

    /// Creates the temporary file for `target`.
    pub fn create(target: &Path) -> std::io::Result<(PendingFile, File)> {
        Self::create_named(target, Self::temp_name)
    }

    /// Creates the temporary file for `target` under the first name from
    /// `names` (given the target's file name) that is free.
    fn create_named(
        target: &Path,
        mut names: impl FnMut(&str) -> String,
    ) -> std::io::Result<(PendingFile, File)> {
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut last = None;
        for _ in 0..Self::ATTEMPTS {
            let tmp = dir.join(names(&name));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(file) => {
                    let pending = PendingFile {
                        tmp,
                        target: target.to_path_buf(),
                        settled: false,
                    };
                    return Ok((pending, file));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
    }

    /// A hidden name beside the target: `.NAME.PID.RANDOM.tmp`.
    fn temp_name(name: &str) -> String {
        format!(
            ".{name}.{}.{:016x}.tmp",
            std::process::id(),
            rand::random::<u64>()
        )
    }

    /// Replaces the target with the finished output.
    pub fn commit(mut self) -> crate::Result<()> {
        std::fs::rename(&self.tmp, &self.target).map_err(|e| crate::Error::io(&self.target, e))?;
        self.settled = true;
        Ok(())
    }

    /// Keeps the partial output as `TARGET.partial`, the target untouched.
    /// Returns the partial file and the target.
    pub fn keep_partial(mut self) -> crate::Result<(PathBuf, PathBuf)> {
        let mut name = self.target.file_name().unwrap_or_default().to_os_string();
        name.push(".partial");
        let partial = self.target.with_file_name(name);
        std::fs::rename(&self.tmp, &partial).map_err(|e| crate::Error::io(&partial, e))?;
        self.settled = true;
        Ok((partial, std::mem::take(&mut self.target)))
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.settled {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn temporary_names_are_unpredictable() {
        let a = PendingFile::temp_name("out.jsonl");
        let b = PendingFile::temp_name("out.jsonl");
        assert_ne!(a, b);
        assert!(a.starts_with(".out.jsonl.") && a.ends_with(".tmp"), "{a}");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let planted = dir.path().join("planted");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        // create_new refuses a name taken by a symbolic link and does not
        // follow it.
        let e = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&planted)
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // Planted at the first names tried (one link dangling, pointing
        // where a file would be created through it): both are passed over.
        let absent = dir.path().join("absent");
        std::os::unix::fs::symlink(&absent, dir.path().join("dangling")).unwrap();
        let target = dir.path().join("out.jsonl");
        let mut tried = ["planted", "dangling", "fresh"]
            .into_iter()
            .map(String::from);
        let (pending, mut file) =
            PendingFile::create_named(&target, |_| tried.next().unwrap_or_default()).unwrap();
        assert_eq!(pending.tmp, dir.path().join("fresh"));
        assert!(std::fs::symlink_metadata(&pending.tmp).unwrap().is_file());
        file.write_all(b"new").unwrap();
        drop(file);
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(!absent.exists());
    }

    #[test]
    fn the_temporary_file_goes_on_every_path() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        std::fs::write(&target, b"old").unwrap();
        let names = || -> Vec<String> {
            let mut n: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        // Dropped (an error): gone, the target untouched.
        drop(PendingFile::create(&target).unwrap());
        assert_eq!(names(), ["out.jsonl"]);
        // A panic while writing.
        let caught = std::panic::catch_unwind(|| {
            let _pending = PendingFile::create(&target).unwrap();
            panic!("a panic while writing");
        });
        assert!(caught.is_err());
        assert_eq!(names(), ["out.jsonl"]);
        // Interrupted: the partial output beside the untouched target.
        let (pending, mut file) = PendingFile::create(&target).unwrap();
        file.write_all(b"part").unwrap();
        let (partial, _) = pending.keep_partial().unwrap();
        assert_eq!(names(), ["out.jsonl", "out.jsonl.partial"]);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read(partial).unwrap(), b"part");
    }
}
