//! Captions named by the markup: WordPress's `wp-caption-text`, news
//! templates' `media-caption`, `image__caption`, `photoCaption`, a
//! `div.caption` under a picture, where no `<figcaption>` says so. The
//! selection stage drops them on pages predicted articles
//! (`select::exclude_captions`); on a gallery or a shop such a class holds
//! the items' own text, so nothing else reads the mark.
//!
//! One general signal, no per-site rules: an element whose `id` or one of
//! its classes has the part `caption` (cut at `-`, `_` and camelCase
//! humps, as id/class tokens are), unless another part of the same value
//! says the element is not one: `no_caption`, `has-caption` (a figure
//! holding a caption somewhere inside), `caption-toggle`.

use crate::text::{contains_ignore_ascii_case, for_each_id_class_part};

/// Parts of a value that, beside `caption`, say the element is no caption:
/// a negation, a container that has one, a control or an icon.
const NOT_A_CAPTION: &[&str] = &[
    "no", "has", "with", "without", "hide", "hidden", "toggle", "button", "btn", "icon",
];

/// True when an element's `id` or one of its classes (its
/// [`Node::class_and_id`](crate::parse::Node::class_and_id)) names a
/// caption.
pub fn marks_caption([class, id]: [Option<&str>; 2]) -> bool {
    [id, class]
        .into_iter()
        .flatten()
        .filter(|v| contains_ignore_ascii_case(v.as_bytes(), b"caption"))
        .any(|v| v.split_ascii_whitespace().any(is_caption_value))
}

/// True for one whole `id`/class value with a part `caption` and no part in
/// [`NOT_A_CAPTION`].
fn is_caption_value(value: &str) -> bool {
    let (mut caption, mut negated) = (false, false);
    for_each_id_class_part(value, |part| {
        if part_is(part, "caption") {
            caption = true;
        } else if NOT_A_CAPTION.iter().any(|n| part_is(part, n)) {
            negated = true;
        }
    });
    caption && !negated
}

/// True when `part` (one that [`for_each_id_class_part`] gives) is `word`
/// once its digits are dropped, in any ASCII case: `caption2` is
/// `caption`, as the id/class tokens count it.
fn part_is(part: &str, word: &str) -> bool {
    let mut letters = part.bytes().filter(|b| !b.is_ascii_digit());
    let same = word
        .bytes()
        .all(|w| letters.next().is_some_and(|p| p.eq_ignore_ascii_case(&w)));
    same && letters.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caption_values() {
        for (value, yes) in [
            ("wp-caption-text", true),
            ("wp-caption", true),
            ("media-caption", true),
            ("image__caption", true),
            ("photoCaption", true),
            ("Caption", true),
            ("caption", true),
            ("figure_caption2", true),
            ("no_caption", false),
            ("has-caption", false),
            ("with-caption", false),
            ("caption-toggle", false),
            ("captionButton", false),
            ("captions", false),
            ("captioned", false),
            ("recaption", false),
            ("article", false),
            ("", false),
        ] {
            assert_eq!(is_caption_value(value), yes, "{value}");
        }
    }

    #[test]
    fn parts_of_values() {
        let parts = |v| {
            let mut all = Vec::new();
            for_each_id_class_part(v, |p| all.push(p));
            all
        };
        assert_eq!(
            parts("photoCaption-text_2x"),
            ["photo", "Caption", "text", "2x"]
        );
        assert_eq!(parts("ABCaption"), ["ABCaption"]);
        assert!(parts("--").is_empty());
        assert_eq!(parts("é-caption"), ["caption"]);
        assert!(part_is("Caption2", "caption"));
        assert!(part_is("2caption", "caption"));
        assert!(!part_is("captions", "caption"));
        assert!(!part_is("captio", "caption"));
        assert!(!part_is("", "caption"));
    }

    #[test]
    fn a_huge_class_attribute_is_read_in_one_pass() {
        // Hostile class strings of a megabyte: caption values, then one
        // negated value (which negates only itself); negated values alone;
        // the word between junk characters, as an id.
        let mut class = "x-caption ".repeat(100_000);
        assert!(marks_caption([Some(&class), None]));
        class.push_str("y-no-caption");
        assert!(marks_caption([Some(&class), None]));
        let negated = "no-caption ".repeat(100_000);
        assert!(!marks_caption([Some(&negated), None]));
        let junk = "\u{fffd}caption\u{0}".repeat(50_000);
        assert!(marks_caption([None, Some(&junk)]));
    }

    #[test]
    fn an_element_is_marked_by_its_id_or_any_class() {
        assert!(marks_caption([Some("figure wp-caption-text"), None]));
        assert!(marks_caption([None, Some("mainCaption")]));
        assert!(!marks_caption([
            Some("buzz_superlist_item image_hit no_caption"),
            None
        ]));
        assert!(!marks_caption([None, None]));
        assert!(!marks_caption([Some("entry-content"), Some("post-1")]));
    }
}
