//! Link and image addresses in structured output: resolved against the
//! page's `<base href>` or URL (RFC 3986, section 5.2), and refused unless
//! they are plain web, mail or telephone addresses (no `javascript:`,
//! `data:` ...).

/// Schemes structured output keeps.
const SAFE_SCHEMES: [&str; 5] = ["http", "https", "mailto", "ftp", "tel"];

/// The scheme of `url` (lower case) when it starts with one.
fn scheme(url: &str) -> Option<String> {
    let colon = url.find(':')?;
    let s = &url[..colon];
    let mut chars = s.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| s.to_ascii_lowercase())
}

/// `url` without the characters browsers ignore in it (controls, spaces at
/// the ends, tabs and newlines anywhere), so that `java\tscript:` cannot
/// pass for a relative address.
fn clean(url: &str) -> String {
    url.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|&c| !matches!(c, '\t' | '\n' | '\r') && !c.is_control())
        .collect()
}

/// Splits an absolute URL into scheme, authority (with its `//`), path and
/// the rest (query and fragment).
fn parts(url: &str) -> (&str, &str, &str, &str) {
    let colon = url.find(':').map_or(0, |c| c + 1);
    let (scheme, rest) = url.split_at(colon);
    let (authority, rest) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?', '#']).map_or(r.len(), |e| e);
            rest.split_at(2 + end)
        }
        None => ("", rest),
    };
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let (path, tail) = rest.split_at(end);
    (scheme, authority, path, tail)
}

/// Removes `.` and `..` segments (RFC 3986, 5.2.4).
fn remove_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if path.starts_with('/') && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `href` resolved against the absolute URL `base`.
pub fn resolve(base: &str, href: &str) -> String {
    if scheme(href).is_some() {
        return href.to_string();
    }
    let (b_scheme, b_auth, b_path, b_tail) = parts(base);
    if href.starts_with("//") {
        return format!("{b_scheme}{href}");
    }
    if href.is_empty() {
        return format!("{b_scheme}{b_auth}{b_path}{b_tail}");
    }
    if href.starts_with('#') {
        let query = b_tail.split('#').next().unwrap_or_default();
        return format!("{b_scheme}{b_auth}{b_path}{query}{href}");
    }
    if href.starts_with('?') {
        return format!("{b_scheme}{b_auth}{b_path}{href}");
    }
    let end = href.find(['?', '#']).unwrap_or(href.len());
    let (h_path, h_tail) = href.split_at(end);
    let merged = if h_path.starts_with('/') {
        h_path.to_string()
    } else if !b_auth.is_empty() && b_path.is_empty() {
        format!("/{h_path}")
    } else {
        let dir = b_path.rfind('/').map_or("", |i| &b_path[..=i]);
        format!("{dir}{h_path}")
    };
    format!("{b_scheme}{b_auth}{}{h_tail}", remove_dots(&merged))
}

/// The base URL links resolve against: the page's `<base href>` resolved
/// against its URL, or its URL; only absolute http(s) URLs count.
pub fn base_url(base_href: Option<&str>, page_url: Option<&str>) -> Option<String> {
    let absolute = |u: &str| matches!(scheme(u).as_deref(), Some("http" | "https"));
    let page = page_url.map(clean).filter(|u| absolute(u));
    match (base_href.map(clean), page) {
        (Some(b), _) if absolute(&b) => Some(b),
        (Some(b), Some(p)) => Some(resolve(&p, &b)),
        (_, p) => p,
    }
}

/// The address to write for `href`: resolved against `base` when there is
/// one, `None` when it is not a safe address (an unknown scheme such as
/// `javascript:` or `data:`, or empty).
pub fn safe(href: &str, base: Option<&str>) -> Option<String> {
    let href = clean(href);
    if href.is_empty() {
        return None;
    }
    let url = match base {
        Some(b) => resolve(b, &href),
        None => href,
    };
    match scheme(&url) {
        Some(s) if !SAFE_SCHEMES.contains(&s.as_str()) => None,
        // A colon before any slash that is not a scheme ("1:2") would be
        // read as one by some browsers: refuse it.
        None if url
            .split(['/', '?', '#'])
            .next()
            .is_some_and(|s| s.contains(':')) =>
        {
            None
        }
        _ => Some(url),
    }
}

/// The address a link is written with: `None` when links are not kept
/// or the address is not safe.
pub fn kept_link(markup: &super::Markup, href: &str, base: Option<&str>) -> Option<String> {
    markup.links.then(|| safe(href, base)).flatten()
}

/// The address an image is written with: `None` when images are not kept
/// or the address is not safe.
pub fn kept_image(markup: &super::Markup, src: &str, base: Option<&str>) -> Option<String> {
    markup.images.then(|| safe(src, base)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_rfc_3986() {
        let b = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("https://x.org/p", "https://x.org/p"),
        ] {
            assert_eq!(resolve(b, r), want, "{r}");
        }
        assert_eq!(resolve("https://x.org", "p"), "https://x.org/p");
    }

    #[test]
    fn executable_and_inline_addresses_are_refused() {
        for bad in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "vbscript:x",
            "data:text/html,<script>",
            "",
        ] {
            assert_eq!(safe(bad, None), None, "{bad:?}");
            assert_eq!(safe(bad, Some("https://x.org/")), None, "{bad:?}");
        }
        assert_eq!(safe("/a b", None).as_deref(), Some("/a b"));
        assert_eq!(
            safe("mailto:x@y.org", Some("https://x.org/")).as_deref(),
            Some("mailto:x@y.org")
        );
    }

    #[test]
    fn base_href_wins_over_the_page_url() {
        assert_eq!(
            base_url(Some("/docs/"), Some("https://x.org/a/b.html")).as_deref(),
            Some("https://x.org/docs/")
        );
        assert_eq!(
            base_url(None, Some("https://x.org/a/b.html")).as_deref(),
            Some("https://x.org/a/b.html")
        );
        assert_eq!(base_url(Some("/docs/"), None), None);
        assert_eq!(base_url(None, Some("file.html")), None);
    }
}
