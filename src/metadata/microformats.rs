//! hAtom microformat dates: `<abbr class="published"
//! title="2016-12-23T05:11:00-05:00">5:11 AM</abbr>`, the shape Blogger
//! and the blog themes of the 2000s and 2010s write, where the visible text
//! is a time of day or a date in words and the machine-readable date is in
//! the `title` attribute (the microformats "abbr design pattern"). Other
//! elements carry hAtom dates as `<time datetime>`, which
//! [`Candidates`](super::Candidates) reads already.
//!
//! The pre-scan keeps every attribute of an `abbr`
//! (`crate::parse::attributes::may_cut_in`), so `title` is read here
//! without being kept on the other elements, where it is a tooltip.

use html5ever::local_name;

use super::dates::normalize_date;
use crate::parse::Node;

/// Which date an hAtom element declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HAtomDate {
    /// Class `published`: the entry's publication date.
    Published,
    /// Class `updated`: its last modification.
    Updated,
}

/// The date an `abbr` with the hAtom class `published` or `updated`
/// declares in its `title`, as ISO `YYYY-MM-DD`; `None` for any other
/// element, or a `title` that is not a date.
pub fn hatom_date(node: &Node) -> Option<(HAtomDate, String)> {
    if node.local_name() != Some(&local_name!("abbr")) {
        return None;
    }
    let kind = node
        .attr("class")?
        .split_ascii_whitespace()
        .find_map(|token| {
            if token.eq_ignore_ascii_case("published") {
                Some(HAtomDate::Published)
            } else if token.eq_ignore_ascii_case("updated") {
                Some(HAtomDate::Updated)
            } else {
                None
            }
        })?;
    let title = node.attr_of_uncut("title")?;
    // A date, not a tooltip: it starts with a four-digit year.
    if !title
        .trim_start()
        .as_bytes()
        .get(..4)?
        .iter()
        .all(u8::is_ascii_digit)
    {
        return None;
    }
    normalize_date(title).map(|iso| (kind, iso))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    /// The hAtom dates of `html`'s elements, in page order.
    fn dates(html: &str) -> Vec<(HAtomDate, String)> {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        doc.dom.nodes.iter().filter_map(hatom_date).collect()
    }

    #[test]
    fn blogger_abbr_published_keeps_the_written_day() {
        // 05:11 at UTC-5 is the same day; the day written is kept, never
        // shifted through UTC.
        let got = dates(
            "<p>Posted by Ned at <a href=x><abbr class='published' \
             title='2016-12-23T23:11:00-05:00'>11:11 PM</abbr></a></p>",
        );
        assert_eq!(got, vec![(HAtomDate::Published, "2016-12-23".to_string())]);
    }

    #[test]
    fn updated_and_other_class_tokens() {
        let got = dates(
            "<abbr class=\"entry-date Updated\" title=\"2011-03-04\">March 4</abbr>\
             <abbr class=\"published-date\" title=\"2011-03-01\">x</abbr>",
        );
        assert_eq!(got, vec![(HAtomDate::Updated, "2011-03-04".to_string())]);
    }

    #[test]
    fn tooltips_and_other_elements_are_not_dates() {
        assert!(
            dates("<abbr class=published title='World Health Organization'>WHO</abbr>").is_empty()
        );
        assert!(dates("<abbr class=published>2016-12-23</abbr>").is_empty());
        assert!(dates("<span class=published title='2016-12-23'>x</span>").is_empty());
        assert!(dates("<abbr class=published title='2016-13-45'>x</abbr>").is_empty());
    }
}
