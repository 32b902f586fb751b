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
//!   the elements after it inside the same parent are a comment region;
//! - signed replies, for threads whose markup names nothing
//!   ([`mark_signed_threads`]): two or more short blocks that sign a reply
//!   ("Anna says:", "Bob on May 3, 2012 at 4:15 pm said:", "Jo wrote:")
//!   make their closest common element a comment region.

/// Qualifiers that make a `comment…` class describe the page rather than a
/// region of it (`comments-open`, `comment-count`, `no-comments`).
const NOT_A_REGION: &[&str] = &[
    "count", "number", "num", "link", "links", "open", "closed", "close", "hidden", "enabled",
    "disabled", "icon", "button", "btn", "toggle", "bubble", "meta", "total", "off", "none",
];

/// True when an element's `id` or one of its classes (its
/// [`Node::class_and_id`](crate::parse::Node::class_and_id)) names a comment
/// container. The splitter asks only for elements that may mark a region
/// (`super::may_mark_region`): the classes of `html`, `body` and `main`
/// describe the page (`has-comments`, `comments-open`), not a region of it.
pub fn marks_comments([class, id]: [Option<&str>; 2]) -> bool {
    [id, class]
        .into_iter()
        .flatten()
        .any(|v| v.split_ascii_whitespace().any(is_comment_token))
}

/// True for one whole `id`/class value that names a comment container:
/// it starts with `comment` or `disqus` (or is `respond`, `replies`,
/// `reactions`), is not `commentary` or `commentator`, and no part of it
/// says it is a counter, a link or a state.
fn is_comment_token(token: &str) -> bool {
    // Most tokens start with none of the words: turn those away before
    // lower-casing a copy.
    let starts =
        |p: &str| crate::text::starts_with_ignore_ascii_case(token.as_bytes(), p.as_bytes());
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
    // "commentary", "commentaries", "commentator": an editor's text (a
    // news site's opinion section, a standard's rationale), not readers'.
    if rest.starts_with("ar") || rest.starts_with("at") {
        return false;
    }
    !rest
        .split(['-', '_'])
        .any(|part| NOT_A_REGION.contains(&part))
        && !rest.contains("count")
}

/// How a block that signs a reply ends ("Anna says:", "Bob on 3 May at
/// 4:15 pm said:"): English plus a few common languages.
const SIGNATURE_ENDS: &[&str] = &[
    "says:",
    "said:",
    "wrote:",
    "says",
    "sagt:",
    "schreibt:",
    "schrieb:",
    "a dit :",
    "a dit:",
    "a écrit :",
    "a écrit:",
    "dice:",
    "dijo:",
    "escribió:",
    "disse:",
    "escreveu:",
    "ha detto:",
    "ha scritto:",
    "zegt:",
    "schreef:",
    "skrev:",
    "kirjoitti:",
    "napisał:",
    "написал:",
    "написала:",
    "yazdı:",
    "said...",
    "said…",
];

/// Longest block, in words, read as a reply's signature line.
const SIGNATURE_MAX_WORDS: usize = 12;

/// True when a block's text signs a reply: a short line that ends with
/// "says:", "said:", "wrote:" (or their like in a few languages), with a
/// name before it.
pub fn is_reply_signature(text: &str) -> bool {
    // Cheap tests first: most blocks are too long or do not end as every
    // signature does, in ':', 's', '…' or "..." once lower-cased (the last
    // character of the lower-cased text is the last of the last character
    // lower-cased).
    let last = text.trim_end().chars().next_back();
    let ends_right = match last.and_then(|c| c.to_lowercase().last()) {
        Some(':' | 's' | '…') => true,
        Some('.') => text.trim_end().ends_with("..."),
        _ => false,
    };
    if text.len() > 200 || !ends_right {
        return false;
    }
    let words = text.split_whitespace().count();
    if !(2..=SIGNATURE_MAX_WORDS).contains(&words) {
        return false;
    }
    // Lower-case only the end of the text: as many characters as the
    // longest ending has, plus the one before it.
    let trimmed = text.trim();
    let tail_start = trimmed
        .char_indices()
        .rev()
        .nth(SIGNATURE_TAIL_CHARS)
        .map_or(0, |(i, _)| i);
    let lower = trimmed[tail_start..].to_lowercase();
    SIGNATURE_ENDS.iter().any(|end| {
        lower
            .strip_suffix(end)
            .is_some_and(|before| before.ends_with(char::is_whitespace))
    })
}

/// One more than the characters of the longest [`SIGNATURE_ENDS`] entry
/// ("ha scritto:") and the space before it: the end of a text
/// [`is_reply_signature`] lower-cases and reads.
const SIGNATURE_TAIL_CHARS: usize = 12;

/// Marks the comment thread of a page whose markup names none: when two or
/// more blocks sign replies ([`is_reply_signature`]), their closest common
/// element (never `html`, `body` or `main`) and everything in it become a
/// comment region. A forum thread made of such replies stays kept under
/// `--comments exclude`, as every comment region does when it holds most
/// of the page's kept words.
pub fn mark_signed_threads(blocks: &mut super::Blocks) {
    let signed: Vec<u32> = blocks
        .blocks
        .iter()
        .filter(|b| is_reply_signature(&b.text))
        .map(|b| b.element)
        .filter(|&e| (e as usize) < blocks.elements.len())
        .collect();
    if signed.len() < 2 {
        return;
    }
    let chain = |e: u32| -> Vec<u32> {
        let mut v = vec![e];
        let mut cur = e;
        while let Some(p) = blocks.elements[cur as usize].parent {
            v.push(p);
            cur = p;
        }
        v.reverse();
        v
    };
    // The closest common ancestor: the longest common prefix of the chains
    // from the root.
    let mut common = chain(signed[0]);
    for &e in &signed[1..] {
        let other = chain(e);
        let n = common
            .iter()
            .zip(&other)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    let Some(&root) = common.last() else {
        return;
    };
    let info = &blocks.elements[root as usize];
    if !super::may_mark_region(&info.tag) {
        return;
    }
    // Elements are listed in document order, parents before children: the
    // region's elements follow `root` while they are deeper than it.
    let depth = info.depth;
    let start = root as usize;
    let end = blocks.elements[start + 1..]
        .iter()
        .position(|e| e.depth <= depth)
        .map_or(blocks.elements.len(), |k| start + 1 + k);
    for e in &mut blocks.elements[start..end] {
        e.comments = true;
    }
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
    "kommentare",
    "kommentar",
    "commentaires",
    "commentaire",
    "comentarios",
    "comentário",
    "comentários",
    "commenti",
    "reacties",
    "kommentarer",
    "kommentit",
    "komentarze",
    "komentáře",
    "hozzászólások",
    "комментарии",
    "коментарі",
    "yorumlar",
    "σχόλια",
    "تعليقات",
    "コメント",
    "评论",
    "評論",
    "留言",
    "댓글",
];

/// Words that head a comment thread only with a count: "Discussion (12)",
/// "3 Discussions", but not a paper's "Discussion" section.
const COUNTED_STARTS: &[&str] = &["discussions", "discussion"];

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
            c.is_ascii_digit() || c.is_whitespace() || matches!(c, '(' | ')' | '{' | '[')
        })
        .trim_start();
    let rest = ["one ", "two ", "three ", "no "]
        .iter()
        .find_map(|w| rest.strip_prefix(w))
        .unwrap_or(rest);
    // "Discussion" heads a thread only with its count ("Discussion (12)",
    // "3 discussions"): alone, or after a section number ("4 Discussion"),
    // it is a section of a paper or a report.
    let counted = rest.len() < lower.len();
    if let Some(after) = COUNTED_STARTS.iter().find_map(|h| rest.strip_prefix(h)) {
        let after = after.trim_start_matches(|c: char| c.is_whitespace() || c == ':');
        let count = after
            .strip_prefix('(')
            .and_then(|a| a.strip_suffix(')'))
            .unwrap_or(after);
        let plural = rest.starts_with("discussions");
        if (counted && plural && after.is_empty())
            || (!count.is_empty() && count.chars().all(|c| c.is_ascii_digit()))
        {
            return true;
        }
    }
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
    fn every_signature_ends_as_the_quick_test_expects() {
        assert!(SIGNATURE_ENDS
            .iter()
            .all(|e| e.ends_with([':', 's', '.', '…'])));
        assert!(is_reply_signature("Anna SAYS"));
        assert!(!is_reply_signature("Anna says hello"));
    }

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
            "commentary",
            "commentary-body",
            "commentator",
        ] {
            assert!(!is_comment_token(t), "{t}");
        }
    }

    #[test]
    fn reply_signatures() {
        for t in [
            "Anna says:",
            "Bob on May 3, 2012 at 4:15 pm said:",
            "Jo Smith wrote:",
            "Karl sagt:",
            "MARIE A DIT :",
            "Roberta says",
            "Anonymous said...",
            "Kari skrev:",
            "Иван написал:",
            // Longer than the end the test lower-cases, with a name in
            // another script before it.
            "Анна Константиновна Иванова написала:",
            "Jean-Pierre Dupont-Moretti A ÉCRIT :",
            "Giulia on 3 May 2012 at 16:15 ha scritto:",
        ] {
            assert!(is_reply_signature(t), "{t}");
        }
        for t in [
            "says:",
            "In a statement released on Tuesday after the vote, the minister of finance finally said:",
            "Anna says: this is the whole comment in one block",
            "",
            "Anna essays:",
            "Ивановнанаписала:",
        ] {
            assert!(!is_reply_signature(t), "{t}");
        }
    }

    fn split(html: &str) -> crate::blocks::Blocks {
        let doc = crate::parse::parse(html.as_bytes(), None, crate::parse::ParseLimits::default())
            .unwrap();
        crate::blocks::split(&doc)
    }

    fn in_comments(blocks: &crate::blocks::Blocks, needle: &str) -> bool {
        let b = blocks
            .blocks
            .iter()
            .find(|b| b.text.contains(needle))
            .unwrap();
        blocks.elements[b.element as usize].comments
    }

    #[test]
    fn signed_replies_make_a_thread_without_class_names() {
        let blocks = split(
            "<body><div id=content><div class=entry><p>The post itself, long enough to read.</p></div>\
             <div class=x><div class=y><p>Anna says:</p><p>Lovely recipe, thanks!</p></div>\
             <div class=y><p>Bob on May 3, 2012 at 4:15 pm said:</p><p>I tried it twice.</p></div></div>\
             </div><div class=side>About me</div></body>",
        );
        assert!(in_comments(&blocks, "Lovely recipe"));
        assert!(in_comments(&blocks, "I tried it twice"));
        assert!(!in_comments(&blocks, "The post itself"));
        assert!(!in_comments(&blocks, "About me"));
    }

    #[test]
    fn one_signature_or_a_thread_spanning_the_body_marks_nothing() {
        let one = split("<body><div><p>Anna says:</p><p>Hello.</p></div><p>Post text.</p></body>");
        assert!(!in_comments(&one, "Hello"));
        let body = split("<body><p>Anna says:</p><p>Hi.</p><p>Bob says:</p><p>Yo.</p></body>");
        assert!(!in_comments(&body, "Hi."));
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
            "16 comments:",
            "{ 10 comments }",
            "Kommentarer (3)",
            "Комментарии",
            "コメント",
            "3 Yorumlar",
            "Discussion (12)",
            "3 Discussions",
            "Discussion: 4",
            "Join the discussion",
        ] {
            assert!(is_comment_heading(h), "{h}");
        }
        for h in [
            "Commentary on the new tax law and what it means for you",
            "Responsible travel",
            "Discussion of results in the second study and their implications",
            "Discussion",
            "DISCUSSION",
            "4. Discussion",
            "4 Discussion",
            "Discussion and conclusions",
            "How to comment code",
            "",
        ] {
            assert!(!is_comment_heading(h), "{h}");
        }
    }
}
