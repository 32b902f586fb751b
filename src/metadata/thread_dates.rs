//! A thread's first post: on a forum or Q&A page the dates stand in the
//! posts' header lines, which share one shape (the same markup, the same
//! few words around the date) and run forward in time, and the first of
//! them stands right below the headline. That first post's date is the
//! page's publication date, whatever later posts or an "updated" stamp
//! above the posts say.
//!
//! A listing or a feed also repeats one shape, but runs backward in time
//! (newest first) or starts far from the headline, so it is no thread.

use super::visible_dates::{Cue, VisibleDate, VisibleKind};

/// Posts a thread needs before its shape counts.
const MIN_POSTS: usize = 3;

/// Share of consecutive posts, in page order, that must not go back in
/// time.
const FORWARD_SHARE: f64 = 0.75;

/// Characters from one post's header to the next: a post holds text.
const MIN_POST_CHARS: i64 = 200;

/// Characters after the end of the headline within which the first post's
/// date must start when it is not in the header zone.
const FIRST_POST_REACH: i64 = 3000;

/// The shape of a date's line: its source, the words beside it, whether
/// its element names a date.
fn shape(v: &VisibleDate) -> (u8, usize, bool) {
    let kind = match v.kind {
        VisibleKind::Time => 0,
        VisibleKind::Text => 1,
        VisibleKind::Relative => 2,
    };
    (kind, v.line_words, v.date_class)
}

/// The first post's date when the visible dates read as a thread's post
/// headers (see the module's doc), else `None`.
pub fn first_post(visible: &[VisibleDate]) -> Option<&VisibleDate> {
    // Members' join dates and other events' dates head no post. Posts may
    // stand in chrome-named wrappers (`comment`, `reply` are what some
    // forums call their posts); such a run must start by the headline.
    let posts: Vec<&VisibleDate> = visible.iter().filter(|v| v.cue != Cue::Other).collect();
    let mut shapes: Vec<((u8, usize, bool), usize)> = Vec::new();
    for v in &posts {
        match shapes.iter_mut().find(|(s, _)| *s == shape(v)) {
            Some((_, n)) => *n += 1,
            None => shapes.push((shape(v), 1)),
        }
    }
    // The most frequent shape; the earliest in the page among equals.
    let (common, n) = shapes.iter().fold(
        None,
        |acc: Option<((u8, usize, bool), usize)>, &(s, n)| match acc {
            Some((_, best)) if best >= n => acc,
            _ => Some((s, n)),
        },
    )?;
    if n < MIN_POSTS {
        return None;
    }
    let headers: Vec<&VisibleDate> = posts.into_iter().filter(|v| shape(v) == common).collect();
    // One line may hold the same date twice (a `<time>` and its text).
    let mut days: Vec<&VisibleDate> = Vec::with_capacity(headers.len());
    for v in headers {
        if days.last().is_none_or(|l| l.line != v.line) {
            days.push(v);
        }
    }
    if days.len() < MIN_POSTS {
        return None;
    }
    // A thread spans more than one day, and its posts hold text between
    // their headers (rows of a table of dates do not).
    if days.iter().all(|v| v.iso == days[0].iso) {
        return None;
    }
    let spaced = days
        .windows(2)
        .all(|w| match (w[0].from_headline, w[1].from_headline) {
            (Some(a), Some(b)) => b - a >= MIN_POST_CHARS,
            _ => true,
        });
    if !spaced {
        return None;
    }
    let forward = days.windows(2).filter(|w| w[0].iso <= w[1].iso).count();
    if (forward as f64) < FORWARD_SHARE * (days.len() - 1) as f64 {
        return None;
    }
    let first = days[0];
    let near = first
        .from_headline
        .is_some_and(|d| (0..=FIRST_POST_REACH).contains(&d));
    if first.chrome {
        // Comments or related posts below an article sit in chrome too:
        // a chrome run is a thread only when it starts above the text, by
        // the headline (or on a page without one).
        let by_headline = first
            .from_headline
            .is_none_or(|d| (0..=FIRST_POST_REACH).contains(&d));
        return (first.header_zone && by_headline).then_some(first);
    }
    (first.header_zone || near).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(iso: &str, line: usize, from_headline: i64) -> VisibleDate {
        VisibleDate {
            iso: iso.to_string(),
            kind: VisibleKind::Text,
            cue: Cue::None,
            line,
            from_headline: Some(from_headline),
            date_class: true,
            chrome: false,
            line_words: 3,
            header_zone: line == 5,
            after_text: false,
            swapped: None,
        }
    }

    #[test]
    fn a_forward_run_of_post_headers_is_a_thread() {
        let v = vec![
            post("2023-05-02", 5, 120),
            post("2023-05-02", 9, 2400),
            post("2023-05-04", 14, 4800),
            post("2023-06-10", 20, 7100),
        ];
        assert_eq!(first_post(&v).map(|d| d.iso.as_str()), Some("2023-05-02"));
    }

    #[test]
    fn a_backward_run_is_a_listing() {
        let v = vec![
            post("2023-06-10", 5, 120),
            post("2023-05-04", 9, 2400),
            post("2023-05-02", 14, 4800),
            post("2023-04-01", 20, 7100),
        ];
        assert_eq!(first_post(&v), None);
    }

    #[test]
    fn a_run_far_below_the_headline_is_comments_not_a_thread() {
        let mut v = vec![
            post("2023-05-02", 40, 9000),
            post("2023-05-03", 44, 9800),
            post("2023-05-04", 48, 10400),
        ];
        assert_eq!(first_post(&v), None);
        // Other shapes (members' join dates) do not break the run.
        v[0].header_zone = true;
        let mut joined = post("2012-01-01", 41, 9100);
        joined.line_words = 2;
        v.insert(1, joined);
        assert_eq!(first_post(&v).map(|d| d.iso.as_str()), Some("2023-05-02"));
    }

    #[test]
    fn two_posts_are_not_enough() {
        let v = vec![post("2023-05-02", 5, 120), post("2023-05-03", 9, 2400)];
        assert_eq!(first_post(&v), None);
    }
}
