//! Domain-grouped fold assignment: a site is never in two folds.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Assigns each page (given by its domain) to one of `k` folds so that all
/// pages of a domain share a fold and folds hold about the same number of
/// pages. Deterministic for a given seed.
pub fn assign_folds(domains: &[&str], k: usize, seed: u64) -> Vec<usize> {
    let mut by_domain: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, d) in domains.iter().enumerate() {
        by_domain.entry(d).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_domain.into_values().collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    groups.shuffle(&mut rng);
    // Largest groups first (stable, so the shuffle breaks ties), each to the
    // currently smallest fold.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let mut sizes = vec![0usize; k.max(1)];
    let mut fold = vec![0usize; domains.len()];
    for g in groups {
        let f = (0..sizes.len()).min_by_key(|&f| (sizes[f], f)).unwrap_or(0);
        sizes[f] += g.len();
        for i in g {
            fold[i] = f;
        }
    }
    fold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_never_straddle_folds_and_sizes_balance() {
        let domains: Vec<String> = (0..100).map(|i| format!("site{}.com", i % 23)).collect();
        let refs: Vec<&str> = domains.iter().map(|s| s.as_str()).collect();
        let folds = assign_folds(&refs, 5, 1);
        for (i, d) in refs.iter().enumerate() {
            for (j, e) in refs.iter().enumerate() {
                if d == e {
                    assert_eq!(folds[i], folds[j]);
                }
            }
        }
        let mut sizes = [0; 5];
        for f in &folds {
            sizes[*f] += 1;
        }
        assert!(sizes.iter().all(|&s| (15..=25).contains(&s)), "{sizes:?}");
        assert_eq!(folds, assign_folds(&refs, 5, 1), "deterministic");
    }
}
