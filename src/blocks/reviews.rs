//! Recognising customer-review regions (a shop's "Reviews" list, Judge.me,
//! Stamped, Yotpo) while the splitter walks the DOM. On a
//! product page they are what a blog's comment thread is under a post:
//! readers' words, not the page's, and `--comments exclude` drops them there
//! (`select::comments`). Elsewhere a `review` class may be the content (a
//! critic's review), so nothing outside product pages reads the mark.
//!
//! One general signal, no per-site rules: an element whose `id` or one of
//! its classes has a part (between `-` and `_`) that is `review` or
//! `reviews` ([`marks_reviews`]). Testimonials are not: the shop chose and
//! placed those quotes, as a publisher places a blurb.

/// The parts of an `id` or class value that name a review region.
const REVIEW_PARTS: &[&str] = &["review", "reviews"];

/// True when an element's `id` or one of its classes (its
/// [`Node::class_and_id`](crate::parse::Node::class_and_id)) names a review
/// region. As for comments, the classes of `html`, `body` and `main` are
/// never asked (`super::may_mark_region`).
pub fn marks_reviews([class, id]: [Option<&str>; 2]) -> bool {
    [id, class]
        .into_iter()
        .flatten()
        .filter(|v| holds_review(v.as_bytes()))
        .any(|v| v.split_ascii_whitespace().any(is_review_token))
}

/// True when `value` holds "review" in any ASCII case: found from its `v`s
/// (one vectorised byte search; most class strings have few or none), so
/// that the tokens of nearly every element are never split.
fn holds_review(value: &[u8]) -> bool {
    memchr::memchr2_iter(b'v', b'V', value).any(|at| {
        at >= 2
            && value
                .get(at - 2..at + 4)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"review"))
    })
}

/// True for one whole `id`/class value with a part in [`REVIEW_PARTS`]
/// (`product-review-body`, `reviews_container`, `Reviews`; not
/// `preview`, `reviewer`, `reviewed-by` or `testimonial`). Callers have
/// already found "review" in the value ([`holds_review`]).
fn is_review_token(token: &str) -> bool {
    token
        .split(['-', '_'])
        .any(|part| REVIEW_PARTS.iter().any(|r| part.eq_ignore_ascii_case(r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    #[test]
    fn review_tokens() {
        for (token, yes) in [
            ("reviews", true),
            ("product-review-body", true),
            ("reviews_container", true),
            ("Reviews", true),
            ("testimonial", false),
            ("stamped-review-content-body", true),
            ("preview", false),
            ("reviewer", false),
            ("reviewed-by", false),
            ("article", false),
        ] {
            assert_eq!(is_review_token(token), yes, "{token}");
        }
    }

    #[test]
    fn review_search_in_short_and_odd_values() {
        for (value, yes) in [
            ("", false),
            ("v", false),
            ("eV", false),
            ("view", false),
            ("eview", false),
            ("review", true),
            ("REVIEW", true),
            ("xx-reVie", false),
            ("a review", true),
            ("vvvvvv", false),
            ("préview", false),
        ] {
            assert_eq!(holds_review(value.as_bytes()), yes, "{value:?}");
        }
        // A value holding "review" only inside another word is no region.
        assert!(!marks_reviews([Some("preview reviewer"), None]));
        assert!(marks_reviews([Some("preview"), Some("reviews")]));
    }

    #[test]
    fn review_regions_in_a_page() {
        let html = "<html><body class=product-reviews-enabled><main class=reviews>\
                    <div class=product><p>The lamp.</p></div>\
                    <section id=reviews><p>Great lamp, bright.</p></section>\
                    <div class=preview><p>Preview</p></div></main></body></html>";
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let marked = |text: &str| {
            let b = blocks.blocks.iter().find(|b| b.text == text).unwrap();
            blocks.elements[b.element as usize].reviews
        };
        assert!(!marked("The lamp."), "body and main classes mark nothing");
        assert!(marked("Great lamp, bright."));
        assert!(!marked("Preview"));
    }
}
