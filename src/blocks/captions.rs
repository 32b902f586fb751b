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

use crate::text::contains_ignore_ascii_case;

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
    let mut caption = false;
    for part in parts(value) {
        if part.eq_ignore_ascii_case("caption") {
            caption = true;
        } else if NOT_A_CAPTION.iter().any(|n| part.eq_ignore_ascii_case(n)) {
            return false;
        }
    }
    caption
}

/// The parts of a value: runs of ASCII letters, cut at camelCase humps
/// (`photoCaption`: `photo`, `Caption`).
fn parts(value: &str) -> impl Iterator<Item = &str> {
    let bytes = value.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if !bytes[i].is_ascii_alphabetic() {
                i += 1;
                start = i;
                continue;
            }
            let hump =
                i > start && bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase();
            if hump {
                let part = &value[start..i];
                start = i;
                return Some(part);
            }
            i += 1;
            let end = i == bytes.len() || !bytes[i].is_ascii_alphabetic();
            if end {
                let part = &value[start..i];
                start = i;
                return Some(part);
            }
        }
        None
    })
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
        assert_eq!(
            parts("photoCaption-text_2x").collect::<Vec<_>>(),
            ["photo", "Caption", "text", "x"]
        );
        assert_eq!(parts("ABCaption").collect::<Vec<_>>(), ["ABCaption"]);
        assert_eq!(parts("--").count(), 0);
        assert_eq!(parts("é-caption").collect::<Vec<_>>(), ["caption"]);
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
