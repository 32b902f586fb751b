//! The page-type signals read from the page's URL: words of its host and
//! path matched against word lists per page type, and the path's shape
//! (depth, a date, a long number, the site's root, the words of its last
//! segment, a version segment, a file name). Part of
//! [`super::page_signals`].
//!
//! The word lists are ours: path and host words common across sites.

/// URL path words, one group per signal column.
pub(super) const URL_WORDS: [(&str, &[&str]); 6] = [
    (
        "url.article",
        &[
            "news",
            "article",
            "articles",
            "story",
            "stories",
            "blog",
            "blogs",
            "post",
            "posts",
            "politik",
            "opinion",
            "artikel",
            "noticias",
            "actualites",
        ],
    ),
    (
        "url.forum",
        &[
            "forum",
            "forums",
            "thread",
            "threads",
            "topic",
            "topics",
            "t",
            "questions",
            "question",
            "q",
            "discussion",
            "discussions",
            "community",
            "board",
            "showthread",
            "viewtopic",
            "comments",
            "r",
        ],
    ),
    (
        "url.product",
        &[
            "product", "products", "p", "dp", "item", "items", "shop", "store", "buy", "produkt",
        ],
    ),
    (
        "url.collection",
        &[
            "category",
            "categories",
            "collection",
            "collections",
            "tag",
            "tags",
            "search",
            "archive",
            "archives",
            "list",
            "c",
            "browse",
            "page",
        ],
    ),
    (
        "url.documentation",
        &[
            "docs",
            "doc",
            "documentation",
            "api",
            "reference",
            "manual",
            "guide",
            "guides",
            "wiki",
            "tutorial",
            "help",
            "kb",
            "developer",
            "developers",
            "readthedocs",
            "gitbook",
            "handbook",
            "usersguide",
            "userguide",
        ],
    ),
    (
        "url.service",
        &[
            "about",
            "contact",
            "services",
            "service",
            "pricing",
            "team",
            "careers",
            "company",
            "solutions",
            "support",
        ],
    ),
];

/// How many URL columns there are: a word group's each, then the shape's.
const URL_COLUMNS: usize = URL_WORDS.len() + URL_SHAPE_NAMES.len();

/// The URL columns, in the order the page signals give them.
pub const URL_SIGNAL_NAMES: [&str; URL_COLUMNS] = {
    // The word groups' names, then the shape's: each listed once.
    let mut names = [""; URL_COLUMNS];
    let mut i = 0;
    while i < URL_WORDS.len() {
        names[i] = URL_WORDS[i].0;
        i += 1;
    }
    while i < names.len() {
        names[i] = URL_SHAPE_NAMES[i - URL_WORDS.len()];
        i += 1;
    }
    names
};

/// The URL shape's columns ([`url_shape`]), after the word groups'.
const URL_SHAPE_NAMES: [&str; 7] = [
    "url.depth",
    "url.date",
    "url.number",
    "url.root",
    "url.slug_words",
    "url.version",
    "url.file",
];

/// The page's URL columns ([`URL_SIGNAL_NAMES`]); `url` is the page's own
/// URL when known.
pub(super) fn url_signals(url: Option<&str>) -> [f32; URL_COLUMNS] {
    let words = url.map(url_words).unwrap_or_default();
    let mut out = [0f32; URL_COLUMNS];
    for (slot, (_, names)) in out.iter_mut().zip(URL_WORDS) {
        *slot = f32::from(u8::from(words.iter().any(|w| names.contains(&w.as_str()))));
    }
    out[URL_WORDS.len()..].copy_from_slice(&url_shape(url));
    out
}

/// The lower-cased words of a URL's host (without `www` and the top-level
/// label: `docs.python.org` gives `docs`, `python`), path and query.
fn url_words(url: &str) -> Vec<String> {
    let host = crate::text::url_host(url).unwrap_or_default();
    let labels: Vec<&str> = host.split('.').collect();
    let host_words: Vec<&str> = labels[..labels.len().saturating_sub(1)]
        .iter()
        .flat_map(|l| l.split('-'))
        .collect();
    host_words
        .into_iter()
        .chain(url_path(url).split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The part of a URL after its host.
fn url_path(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    after_scheme
        .find('/')
        .map_or("", |i| &after_scheme[i + 1..])
}

/// File extensions of a path's last segment that name a page.
const PAGE_FILES: [&str; 6] = ["html", "htm", "php", "asp", "aspx", "shtml"];

/// Depth of the path, whether it holds a date (`/2019/11/`), a long
/// number (an id), whether it is the site's root, the words of its last
/// segment (an article's slug has many), whether a segment is a version
/// (`v2`, `5.1`, `stable`, `latest`: documentation) and whether the last
/// segment is a file (`page.html`).
fn url_shape(url: Option<&str>) -> [f32; 7] {
    let Some(url) = url else {
        return [-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0];
    };
    let path = url_path(url).split(['?', '#']).next().unwrap_or("");
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let is_year =
        |s: &str| s.len() == 4 && s.parse::<u32>().is_ok_and(|y| (1990..2100).contains(&y));
    let date = segments
        .windows(2)
        .any(|w| is_year(w[0]) && w[1].len() <= 2 && w[1].parse::<u32>().is_ok());
    let number = path
        .split(|c: char| !c.is_ascii_digit())
        .any(|run| run.len() >= 5);
    let last = segments.last().copied().unwrap_or("");
    let (stem, file) = match last.rsplit_once('.') {
        Some((stem, ext)) if PAGE_FILES.iter().any(|e| ext.eq_ignore_ascii_case(e)) => (stem, true),
        _ => (last, false),
    };
    let slug_words = stem
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    let version = segments.iter().any(|s| is_version(s));
    [
        segments.len() as f32,
        f32::from(u8::from(date)),
        f32::from(u8::from(number)),
        f32::from(u8::from(segments.is_empty())),
        slug_words as f32,
        f32::from(u8::from(version)),
        f32::from(u8::from(file)),
    ]
}

/// A path segment naming a version: `v2`, `v1.4`, `5.1`, `3.12.0`, or a
/// release channel (`stable`, `latest`, `current`, `nightly`).
fn is_version(segment: &str) -> bool {
    const CHANNELS: [&str; 5] = ["stable", "latest", "current", "nightly", "master"];
    if CHANNELS.iter().any(|c| segment.eq_ignore_ascii_case(c)) {
        return true;
    }
    let digits = segment.strip_prefix(['v', 'V']).unwrap_or(segment);
    let parts: Vec<&str> = digits.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit());
    // A bare number is an id or a page number unless it is short and
    // prefixed (`v2`) or dotted (`5.1`).
    parts.iter().all(numeric) && (parts.len() >= 2 || digits.len() < segment.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(url: Option<&str>) -> std::collections::HashMap<&'static str, f32> {
        URL_SIGNAL_NAMES
            .iter()
            .copied()
            .zip(url_signals(url))
            .collect()
    }

    #[test]
    fn host_and_path_words_match_the_type_lists() {
        let s = named(Some("https://docs.example.org/en/stable/quickstart.html"));
        assert_eq!(s["url.documentation"], 1.0);
        assert_eq!(s["url.version"], 1.0);
        assert_eq!(s["url.file"], 1.0);
        assert_eq!(s["url.slug_words"], 1.0);
        let s = named(Some(
            "https://www.example.com/2024/05/the-long-slug-of-a-story/",
        ));
        assert_eq!(s["url.slug_words"], 6.0);
        assert_eq!(s["url.version"], 0.0, "a year is no version");
        assert_eq!(s["url.documentation"], 0.0);
        assert_eq!(s["url.date"], 1.0);
        let s = named(Some("https://forum.example.com:8080/t/12"));
        assert_eq!(s["url.forum"], 1.0);
        assert_eq!(s["url.version"], 0.0, "a bare short number is no version");
    }

    #[test]
    fn versions_are_dotted_prefixed_or_channels() {
        for yes in ["v2", "V1.4", "5.1", "3.12.0", "stable", "Latest"] {
            assert!(is_version(yes), "{yes}");
        }
        for no in ["2019", "12", "v", "v2a", "1.", "intro", "1234.5", ""] {
            assert!(!is_version(no), "{no}");
        }
    }

    #[test]
    fn without_a_url_the_shape_is_unknown() {
        let s = named(None);
        assert_eq!(s["url.depth"], -1.0);
        assert_eq!(s["url.slug_words"], -1.0);
        assert_eq!(s["url.article"], 0.0);
        for junk in [
            "",
            "://",
            "http://",
            "https://@:/",
            "?#",
            "http://a..b/..//",
        ] {
            let _ = url_signals(Some(junk));
        }
    }
}
