//! Link targets, read from `href`s while the splitter walks the DOM: which
//! site a link points to and whether its path looks like an article's (a
//! slug of several joined words, a long numeric id, a date), with no word
//! list, so the same in every language. The teaser features
//! ([`crate::features::teaser`]) read them to find lists of headlines that
//! link to the site's other articles.
//!
//! Nothing here allocates: a host is kept as a hash of its registrable part
//! (`news.example.co.uk` and `www.example.co.uk` hash alike), a path as
//! one bit.

/// Where one link points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTarget {
    /// Hash of the target's registrable host ([`site_hash`]), or
    /// [`RELATIVE`] for a link without a host (to the page's own site).
    pub site: u64,
    /// True when the path looks like an article's ([`is_article_path`]).
    pub article: bool,
}

/// [`LinkTarget::site`] of a relative link.
pub const RELATIVE: u64 = 0;

/// The words of one block that lie inside one link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkSpan {
    /// Index of the block in [`super::Blocks::blocks`].
    pub block: u32,
    /// Words of the block inside the link.
    pub words: u32,
    /// The link's target.
    pub target: LinkTarget,
}

/// The target of an `href`, or `None` for one that leads to no page: an
/// empty value, a fragment of this page, `javascript:`, `mailto:`, `tel:`
/// and other non-web schemes.
pub fn link_target(href: &str) -> Option<LinkTarget> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let (site, path) = if let Some(rest) = href.strip_prefix("//") {
        split_host(rest)?
    } else if let Some(colon) = scheme_end(href) {
        let scheme = &href[..colon];
        if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
            return None;
        }
        split_host(href[colon + 1..].strip_prefix("//")?)?
    } else {
        (RELATIVE, href)
    };
    Some(LinkTarget {
        site,
        article: is_article_path(path),
    })
}

/// The position of the `:` ending a URL scheme, if `href` starts with one.
fn scheme_end(href: &str) -> Option<usize> {
    let colon = href.find(':')?;
    let scheme = &href[..colon];
    (!scheme.is_empty()
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
    .then_some(colon)
}

/// Splits `host[:port]/path...` (after `//`) into the host's site hash and
/// the rest.
fn split_host(rest: &str) -> Option<(u64, &str)> {
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host.split(':').next().unwrap_or(host);
    (!host.is_empty()).then(|| (site_hash(host), &rest[end..]))
}

/// Hash of a host's registrable part, ASCII case ignored: its last two
/// labels, or three when the second-level label is a short public suffix
/// under a country code (`example.co.uk`, `example.com.au`).
pub fn site_hash(host: &str) -> u64 {
    let host = host.trim_end_matches('.');
    let mut labels = host.rsplit('.');
    let tld = labels.next().unwrap_or("");
    let second = labels.next();
    let keep = match second {
        Some(s) if tld.len() == 2 && s.len() <= 3 && labels.clone().next().is_some() => 3,
        Some(_) => 2,
        None => 1,
    };
    // The byte offset where the kept labels start.
    let mut start = host.len();
    for (k, label) in host.rsplit('.').enumerate() {
        if k == keep {
            break;
        }
        start -= label.len();
        if k + 1 < keep && start > 0 {
            start -= 1;
        }
    }
    // FNV-1a over the lower-cased bytes.
    let h = host[start..]
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b.to_ascii_lowercase() as u64).wrapping_mul(0x100_0000_01b3)
        });
    // Never the relative marker.
    h.max(RELATIVE + 1)
}

/// Hyphen- or underscore-joined words a path segment needs to read as a
/// slug ("the-river-rose").
const SLUG_WORDS: usize = 3;

/// Digits in a row that make a numeric article id.
const ID_DIGITS: usize = 5;

/// Non-ASCII characters or percent escapes that make a segment a slug in
/// a script without hyphens.
const ENCODED_SLUG_CHARS: usize = 6;

/// True when a URL path (with its query, without host) looks like an
/// article's: a segment that is a slug of [`SLUG_WORDS`] joined words (or
/// a title in a non-Latin script, raw or percent-encoded), a run of
/// [`ID_DIGITS`] digits, or a date (`/2019/11/…`, `2019-11-20`).
/// Section paths (`/sport/`, `/news/world-news/`) are not.
pub fn is_article_path(path: &str) -> bool {
    let path = path.split('#').next().unwrap_or("");
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    if longest_digit_run(query) >= ID_DIGITS {
        return true;
    }
    let mut prev_year = false;
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        let seg = seg.rsplit_once('.').map_or(seg, |(stem, ext)| {
            if ext.len() <= 5 && ext.bytes().all(|c| c.is_ascii_alphanumeric()) {
                stem
            } else {
                seg
            }
        });
        if longest_digit_run(seg) >= ID_DIGITS {
            return true;
        }
        let all_digits = !seg.is_empty() && seg.bytes().all(|c| c.is_ascii_digit());
        if prev_year && all_digits && seg.len() <= 2 {
            return true;
        }
        prev_year =
            all_digits && seg.len() == 4 && (seg.starts_with("19") || seg.starts_with("20"));
        let words = seg
            .split(['-', '_', '+'])
            .filter(|w| w.bytes().any(|c| c.is_ascii_alphanumeric() || c >= 0x80))
            .count();
        if words >= SLUG_WORDS {
            return true;
        }
        let encoded = seg.matches('%').count() / 2 + seg.chars().filter(|c| !c.is_ascii()).count();
        if encoded >= ENCODED_SLUG_CHARS {
            return true;
        }
    }
    false
}

fn longest_digit_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.bytes() {
        if c.is_ascii_digit() {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_paths() {
        for p in [
            "/news/2019/11/20/budget-vote/",
            "/the-river-rose-in-spring",
            "/politik/deutschland/regierung-plant-neue-steuer-a-1234.html",
            "/article/1234567",
            "/story.php?id=889123",
            "/2019-11-20-vote",
            "/%E6%94%BF%E6%B2%BB%E6%96%B0%E9%97%BB",
            "/ニュース記事タイトル",
        ] {
            assert!(is_article_path(p), "{p}");
        }
        for p in [
            "/",
            "/sport/",
            "/news/world-news/",
            "/about.html",
            "/tag/rust",
            "/page/2",
            "?p=12",
        ] {
            assert!(!is_article_path(p), "{p}");
        }
    }

    #[test]
    fn targets_and_sites() {
        let rel = link_target("/2019/11/budget").unwrap();
        assert_eq!(
            rel,
            LinkTarget {
                site: RELATIVE,
                article: true
            }
        );
        let a = link_target("https://www.example.co.uk/a-b-c").unwrap();
        let b = link_target("//news.EXAMPLE.co.uk:8080/").unwrap();
        assert_eq!(a.site, b.site, "same registrable domain");
        assert!(a.article && !b.article);
        let c = link_target("http://other.com/x").unwrap();
        assert_ne!(a.site, c.site);
        assert_eq!(site_hash("cdn.other.com"), c.site);
        for h in ["#top", "javascript:void(0)", "mailto:a@b.c", "", "  "] {
            assert_eq!(link_target(h), None, "{h}");
        }
    }
}
