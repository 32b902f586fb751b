//! The last line of defence of a batch: a panic while processing one page
//! becomes that page's error, never a crashed process.
//!
//! Every library entry that processes one page runs its work through
//! [`page`], so the CLI batch, the Python module, the Spark job and the
//! annotation server all get an [`Error`] for the page and go on with the
//! next one. This relies on `panic = "unwind"`, Rust's default, which the
//! release profile keeps (on `wasm32-unknown-unknown` a panic aborts
//! whatever is done here). The panic's message still goes to the panic
//! hook (standard error by default), so the fault can be reported.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{Error, PageError, Result};

/// Runs `work` for one page; a panic inside it is returned as
/// [`PageError::Internal`] with the panic's message.
///
/// The work only reads shared state (the extractor, the model) and owns
/// everything it writes, so nothing is left half-changed by an unwind:
/// that is why asserting unwind safety is sound here.
pub fn page<T>(work: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => Err(Error::Page(PageError::Internal(panic_message(
            payload.as_ref(),
        )))),
    }
}

/// The text of a panic's payload (`panic!` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_pages_error() {
        let r: Result<()> = page(|| panic!("boom {}", 7));
        match r {
            Err(Error::Page(PageError::Internal(m))) => assert_eq!(m, "boom 7"),
            other => panic!("{other:?}"),
        }
        let r: Result<()> = page(|| std::panic::panic_any(3u8));
        assert!(matches!(r, Err(Error::Page(PageError::Internal(_)))));
        assert_eq!(page(|| Ok(5)).unwrap(), 5);
    }
}
