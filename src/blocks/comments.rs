//! Recognising user-comment regions (a blog's comment thread, Disqus, a
//! "Leave a reply" form) while the splitter walks the DOM, so that
//! extraction can include or exclude them on request
//! ([`CommentMode`](crate::config::CommentMode)).
//!
//! Two general signals, no per-site rules:
//! - an element whose `id` or one of its classes names a comment container
//!   ([`marks_comments`]: `comments`, `comment-list`, `commentlist`,
//!   `comments-area`, `disqus_thread`, `respond`, ...);
//! - a heading that announces comments ([`is_comment_heading`]: "Comments",
//!   "12 Comments", "3 Responses to …", "5 thoughts on …", "Leave a Reply"):
//!   the elements after it inside the same parent are a comment region.

use html5ever::local_name;
use html5ever::LocalName;

/// Qualifiers that make a `comment…` class describe the page rather than a
/// region of it (`comments-open`, `comment-count`, `no-comments`).
const NOT_A_REGION: &[&str] = &[
    "count", "number", "num", "link", "links", "open", "closed", "close", "hidden", "enabled",
    "disabled", "icon", "button", "btn", "toggle", "bubble", "meta", "total", "off", "none",
];

/// True when the element's `id` or one of its classes names a comment
/// container. `html`, `body` and `main` never do: their classes describe the
/// page (`has-comments`, `comments-open`), not a region of it.
pub fn marks_comments(tag: &LocalName, node: &crate::parse::Node) -> bool {
    if matches!(
        *tag,
        local_name!("html") | local_name!("body") | local_name!("main")
    ) {
        return false;
    }
    ["id", "class"].iter().any(|attr| {
        node.attr(attr)
            .is_some_and(|v| v.split_ascii_whitespace().any(is_comment_token))
    })
}

/// True for one whole `id`/class value that names a comment container:
/// it starts with `comment` or `disqus` (or is `respond`, `replies`,
/// `reactions`), and no part of it says it is a counter, a link or a state.
fn is_comment_token(token: &str) -> bool {
    // Most tokens start with none of the words: turn those away before
    // lower-casing a copy.
    let starts = |p: &str| {
        token.len() >= p.len() && token.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
    };
    if !(starts("comment") || starts("disqus") || starts("re")) {
        return false;
    }
    let t = token.to_ascii_lowercase();
    if matches!(t.as_str(), "respond" | "replies" | "reactions") {
        return true;
    }
    let Some(rest) = ["comment", "disqus"].iter().find_map(|p| t.strip_prefix(p)) else {
        return false;
    };
    !rest
        .split(['-', '_'])
        .any(|part| NOT_A_REGION.contains(&part))
        && !rest.contains("count")
}

/// Words that open a heading over a comment thread (after any leading
/// number): English plus a few common languages.
const HEADING_STARTS: &[&str] = &[
    "comments",
    "comment",
    "responses",
    "response",
    "replies",
    "reader comments",
    "thoughts on",
    "thought on",
    "leave a reply",
    "leave a comment",
    "post a comment",
    "add a comment",
    "join the discussion",
    "discussion",
    "kommentare",
    "kommentar",
    "commentaires",
    "commentaire",
    "comentarios",
    "comentário",
    "comentários",
    "commenti",
    "reacties",
];

/// True when a heading's text announces a comment thread: "Comments",
/// "12 Comments", "One response to “Title”", "5 thoughts on “Title”",
/// "Leave a Reply". Long headings never do (an article titled "Comments on
/// the budget" has more words after them than a thread's heading, and
/// headings are checked only when short).
pub fn is_comment_heading(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    if lower.is_empty() || lower.chars().count() > 120 {
        return false;
    }
    // Leading count: "12", "one", "(3)".
    let rest = lower
        .trim_start_matches(|c: char| {
            c.is_ascii_digit() || c.is_whitespace() || c == '(' || c == ')'
        })
        .trim_start();
    let rest = ["one ", "two ", "three ", "no "]
        .iter()
        .find_map(|w| rest.strip_prefix(w))
        .unwrap_or(rest);
    HEADING_STARTS.iter().any(|h| {
        rest.strip_prefix(h).is_some_and(|after| {
            let after =
                after.trim_start_matches(|c: char| c.is_ascii_digit() || c == '(' || c == ')');
            // Whole words only, and a short heading unless it names the post
            // ("3 responses to “…”", "5 thoughts on “…”").
            after.is_empty()
                || after.starts_with([' ', ':', '(', '"', '“', '«', '\u{a0}'])
                    && (h.ends_with(" on")
                        || after.trim_start().starts_with("to ")
                        || after.trim_start().starts_with("on ")
                        || after.split_whitespace().count() <= 2)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_tokens() {
        for t in [
            "comments",
            "comment-list",
            "commentlist",
            "comments-area",
            "disqus_thread",
            "respond",
            "comment-respond",
            "comment",
            "comment-body",
        ] {
            assert!(is_comment_token(t), "{t}");
        }
        for t in [
            "has-comments",
            "no-comments",
            "comments-open",
            "comment-count",
            "comments-link",
            "comment-hidden",
            "commentcount",
            "post",
            "uncommented",
        ] {
            assert!(!is_comment_token(t), "{t}");
        }
    }

    #[test]
    fn comment_headings() {
        for h in [
            "Comments",
            "12 Comments",
            "Comments (4)",
            "One response to “Gulls”",
            "5 thoughts on “How to bake bread”",
            "Leave a Reply",
            "3 Responses",
            "Kommentare",
        ] {
            assert!(is_comment_heading(h), "{h}");
        }
        for h in [
            "Commentary on the new tax law and what it means for you",
            "Responsible travel",
            "Discussion of results in the second study and their implications",
            "How to comment code",
            "",
        ] {
            assert!(!is_comment_heading(h), "{h}");
        }
    }
}
