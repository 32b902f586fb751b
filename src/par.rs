//! Data parallelism behind the `parallel` feature.
//!
//! With `parallel` (a default feature), [`prelude`] is rayon's prelude and
//! training, evaluation and the histogram builder spread over threads. Without
//! it (targets with no threads, such as `wasm32-unknown-unknown`), the same
//! method names (`par_iter`, `into_par_iter`, `par_chunks`) return the
//! standard library's sequential iterators, so the calling code is one and
//! the results are the same: every parallel use here collects in input order.
//! Single-page extraction never goes through this module.

/// `use crate::par::prelude::*` in place of `use rayon::prelude::*`.
pub(crate) mod prelude {
    #[cfg(feature = "parallel")]
    pub(crate) use rayon::prelude::*;

    #[cfg(not(feature = "parallel"))]
    pub(crate) use super::sequential::{IntoParIter, ParChunks, ParIter};
}

/// Sequential stand-ins for the rayon traits this crate uses.
#[cfg(not(feature = "parallel"))]
mod sequential {
    /// `par_iter()`: a slice's ordinary iterator.
    pub(crate) trait ParIter<T> {
        /// Iterates over the items in order.
        fn par_iter(&self) -> std::slice::Iter<'_, T>;
    }

    impl<T> ParIter<T> for [T] {
        fn par_iter(&self) -> std::slice::Iter<'_, T> {
            self.iter()
        }
    }

    /// `into_par_iter()`: the ordinary `into_iter()`.
    pub(crate) trait IntoParIter: IntoIterator + Sized {
        /// Iterates over the items in order.
        fn into_par_iter(self) -> Self::IntoIter {
            self.into_iter()
        }
    }

    impl<I: IntoIterator> IntoParIter for I {}

    /// `par_chunks(n)`: a slice's ordinary `chunks(n)`.
    pub(crate) trait ParChunks<T> {
        /// Chunks of `n` items (the last may be shorter), in order.
        fn par_chunks(&self, n: usize) -> std::slice::Chunks<'_, T>;
    }

    impl<T> ParChunks<T> for [T] {
        fn par_chunks(&self, n: usize) -> std::slice::Chunks<'_, T> {
            self.chunks(n)
        }
    }
}
