//! Publication dates from small pages written for the test: bylines with
//! and without cue words in several languages, `<time>` elements and time
//! zones, "Updated" dates, relative dates, URL dates, forum first posts,
//! and pages that show no date.

use dechrome::metadata::{extract_with, Metadata, PageHints, SourceKind};
use dechrome::parse::{parse, ParseLimits};

const BODY: &str = "<p>Herring gulls have learned to nest on flat roofs in coastal towns, \
    where foxes cannot reach the eggs and the warm gravel keeps the clutch dry through \
    the cold nights of early spring, a habit first noted by naturalists decades ago.</p>\
    <p>Their colonies now grow faster on roofs than on the cliffs nearby.</p>";

fn meta(html: &str, hints: &PageHints<'_>) -> Metadata {
    parse(html.as_bytes(), Some("utf-8"), ParseLimits::default())
        .map(|doc| extract_with(&doc, hints))
        .unwrap_or_default()
}

/// An article page: `lang`, what stands between the headline and the text,
/// and what follows the text.
fn article(lang: &str, byline: &str, after: &str) -> String {
    format!(
        "<html lang={lang}><head><title>Gulls on roofs</title></head><body>\
         <nav><a href=/>Home</a></nav><article><h1>Gulls on roofs</h1>{byline}{BODY}{after}\
         </article><footer>© 2010–2024 Gull News</footer></body></html>"
    )
}

fn date_of(html: &str) -> Option<String> {
    meta(html, &PageHints::default()).date
}

#[test]
fn byline_dates_in_many_languages() {
    for (lang, byline, want) in [
        ("en", "<p>By Ann Lee · March 4, 2024</p>", "2024-03-04"),
        (
            "en-GB",
            "<div class=meta>Ann Lee, 4th March 2024</div>",
            "2024-03-04",
        ),
        ("de", "<p>Von Anna Berg, 4. März 2024</p>", "2024-03-04"),
        (
            "de",
            "<p>Veröffentlicht am 04.03.2024 um 10:15 Uhr</p>",
            "2024-03-04",
        ),
        ("fr", "<p>Publié le 4 mars 2024 à 10h15</p>", "2024-03-04"),
        ("es", "<p>Publicado el 4 de marzo de 2024</p>", "2024-03-04"),
        ("it", "<p>Pubblicato il 4 marzo 2024</p>", "2024-03-04"),
        ("pt", "<p>Publicado em 4 de março de 2024</p>", "2024-03-04"),
        ("nl", "<p>Gepubliceerd op 4 maart 2024</p>", "2024-03-04"),
        ("pl", "<p>Opublikowano: 4 marca 2024</p>", "2024-03-04"),
        ("ru", "<p>Опубликовано 4 марта 2024 г.</p>", "2024-03-04"),
        ("ja", "<p>公開日：2024年3月4日</p>", "2024-03-04"),
        ("zh", "<p>发布时间：2024-03-04 10:15</p>", "2024-03-04"),
        ("ko", "<p>입력 2024.03.04 10:15</p>", "2024-03-04"),
        ("ar", "<p>نشر في 4 مارس 2024</p>", "2024-03-04"),
        ("en-US", "<p>Posted 3/4/2024</p>", "2024-03-04"),
        ("en-GB", "<p>Posted 4/3/2024</p>", "2024-03-04"),
    ] {
        let page = article(lang, byline, "");
        let m = meta(&page, &PageHints::default());
        assert_eq!(m.date.as_deref(), Some(want), "{lang}: {byline}");
        assert_eq!(m.sources.date, Some(SourceKind::Visible), "{byline}");
    }
}

#[test]
fn a_date_below_the_text_is_found() {
    let page = article("en", "", "<p class=post-date>Posted on 4 March 2024</p>");
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"));
}

#[test]
fn time_elements_keep_the_local_day() {
    // An offset: the day as written, not the UTC day (2024-03-05).
    let page = article(
        "en",
        "<time datetime=\"2024-03-04T23:30:00-05:00\"></time>",
        "",
    );
    let m = meta(&page, &PageHints::default());
    assert_eq!(m.date.as_deref(), Some("2024-03-04"));
    assert_eq!(m.sources.date, Some(SourceKind::Time));
    // A UTC stamp whose visible text shows the reader's day before it.
    let page = article(
        "en",
        "<time datetime=\"2024-03-05T03:30:00Z\">March 4, 2024</time>",
        "",
    );
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"));
    // A stamp with the writer's offset whose text was rendered in another
    // zone (the next day): the writer's day.
    for stamp in ["2024-03-04T21:50:50-05:00", "2024-03-04T21:50:50-0500"] {
        let page = article(
            "en",
            &format!("<time datetime=\"{stamp}\">Mar 5, 2024</time>"),
            "",
        );
        assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"), "{stamp}");
    }
    // An English page that writes the day first: the stamp tells the order
    // of "04/03/2024", under a cue farther than the source's indentation.
    let page = article(
        "en",
        "<p>Published on\n                    \n                 \
         <time datetime=\"2024-03-04 13:55:27 +01:00\">04/03/2024 - 13:55</time></p>",
        "",
    );
    let m = meta(&page, &PageHints::default());
    assert_eq!(m.date.as_deref(), Some("2024-03-04"));
    assert_eq!(m.sources.date, Some(SourceKind::Time));
}

#[test]
fn the_shown_date_beats_a_declared_one_and_updates_go_to_modified() {
    // The meta tag agrees with the visible published date; the update is
    // the modification date.
    let page = article(
        "en",
        "<p>Published March 4, 2024 · Updated March 9, 2024</p>",
        "",
    )
    .replace(
        "<head>",
        "<head><meta property=article:published_time content=2024-03-04T08:00:00Z>",
    );
    let m = meta(&page, &PageHints::default());
    assert_eq!(m.date.as_deref(), Some("2024-03-04"));
    assert_eq!(m.modified.as_deref(), Some("2024-03-09"));
    // Only an update shown and nothing else: it is the date the page gives.
    let page = article("en", "<p class=byline>Updated March 9, 2024</p>", "");
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-09"));
}

#[test]
fn relative_dates_need_a_reference() {
    let page = article("en", "<p class=byline>By Ann Lee · 3 days ago</p>", "");
    assert_eq!(date_of(&page), None);
    let hints = PageHints {
        url: None,
        reference_date: Some("2024-03-07T12:00:00Z"),
    };
    assert_eq!(meta(&page, &hints).date.as_deref(), Some("2024-03-04"));
    let page = article("de", "<p class=byline>Anna Berg · gestern, 10:15</p>", "");
    assert_eq!(meta(&page, &hints).date.as_deref(), Some("2024-03-06"));
}

#[test]
fn the_url_path_dates_a_page_that_shows_none() {
    let page = article("en", "", "");
    assert_eq!(date_of(&page), None);
    let hints = PageHints {
        url: Some("https://gulls.example/2019/11/19/gulls-on-roofs/"),
        reference_date: None,
    };
    let m = meta(&page, &hints);
    assert_eq!(m.date.as_deref(), Some("2019-11-19"));
    assert_eq!(m.sources.date, Some(SourceKind::Url));
}

#[test]
fn forum_threads_take_the_first_post() {
    let post = |who: &str, when: &str, text: &str| {
        format!(
            "<div class=post><div class=post-meta>{who} <time datetime=\"{when}T10:00:00+01:00\">\
             {when}</time></div><div class=post-body><p>{text} {BODY}</p></div></div>"
        )
    };
    let page = format!(
        "<html lang=en><head><title>Roof gulls?</title></head><body><h1>Roof gulls?</h1>\
         <p>Start date: 2023-05-02</p>{}{}{}</body></html>",
        post("ann", "2023-05-02", "Why do gulls nest on my roof?"),
        post("bob", "2023-05-03", "They like the gravel."),
        post("cid", "2023-06-10", "Same here."),
    );
    assert_eq!(date_of(&page).as_deref(), Some("2023-05-02"));
}

#[test]
fn pages_without_a_shown_date_abstain() {
    // A shop page: a copyright year range and a phone number, no date.
    let page = "<html lang=en><head><title>Roof nets</title></head><body><h1>Roof nets</h1>\
        <p>Keep gulls off your roof. Price: 49.99. Call 0800-123-4567.</p>\
        <footer>© 2010–2024 Nets Ltd · Updated daily</footer></body></html>";
    assert_eq!(date_of(page), None);
    // A listing: many dates, none by the headline.
    let items: String = (1..=9)
        .map(|d| {
            format!("<li><a href=/a{d}>Story {d}</a> <span class=date>2024-03-0{d}</span></li>")
        })
        .collect();
    let page = format!(
        "<html lang=en><head><title>All stories</title></head><body><h1>All stories</h1>\
         {BODY}{BODY}<ul>{items}</ul></body></html>"
    );
    assert_eq!(date_of(&page), None);
}

#[test]
fn hostile_pages_do_not_panic() {
    for page in [
        String::new(),
        "<time datetime=9999-99-99>".to_string(),
        "<h1>".repeat(5000),
        format!("<p>{}</p>", "31/31/2024 ".repeat(2000)),
        format!(
            "<div class=date>{}</div>",
            "vor 99999999999 Tagen ".repeat(100)
        ),
    ] {
        let _ = meta(
            &page,
            &PageHints {
                url: Some("https://x.example/9999/99/99/"),
                reference_date: Some("2024-03-07"),
            },
        );
    }
}

#[test]
fn a_date_just_above_the_headline_is_the_byline() {
    // A kicker line with the date above the `<h1>`, inside the article's
    // `<header>` (in several languages).
    for (lang, kicker, want) in [
        ("en", "Science · March 4, 2024", "2024-03-04"),
        ("de", "Wissen · 4. März 2024", "2024-03-04"),
        ("fr", "Sciences · 4 mars 2024", "2024-03-04"),
        ("es", "Ciencia · 4 de marzo de 2024", "2024-03-04"),
    ] {
        let page = format!(
            "<html lang={lang}><head><title>Gulls</title></head><body>\
             <nav><a href=/>Home</a></nav><article><header><p>{kicker}</p>\
             <h1>Gulls on roofs</h1></header>{BODY}</article></body></html>"
        );
        assert_eq!(date_of(&page).as_deref(), Some(want), "{lang}: {kicker}");
    }
}

#[test]
fn a_last_modified_stamp_at_the_foot_is_no_publication_date() {
    // Documentation: "Last modified" below the text, nothing in a byline.
    for stamp in [
        "This page was last modified on Mar 4, 2024 by contributors.",
        "Zuletzt aktualisiert am 4. März 2024",
        "Dernière mise à jour le 4 mars 2024",
        "Última actualización: 4 de marzo de 2024",
    ] {
        let page = article(
            "en",
            "",
            &format!("{BODY}{BODY}{BODY}{BODY}<p class=page-date>{stamp}</p>"),
        );
        let m = meta(&page, &PageHints::default());
        assert_eq!(m.date, None, "{stamp}");
        assert_eq!(m.modified.as_deref(), Some("2024-03-04"), "{stamp}");
    }
    // The same update in the byline is the date the page gives.
    let page = article("en", "<p class=byline>Updated March 4, 2024</p>", "");
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"));
}

#[test]
fn dates_of_other_events_are_not_publication_dates() {
    // A product page: its release date under a "date:" cue is no
    // publication date.
    for line in [
        "Release date: 21 Aug, 2012",
        "Released: March 4, 2024",
        "Erscheinungsdatum: 04.03.2024",
        "Date de sortie : 4 mars 2024",
        "Fecha de lanzamiento: 4 de marzo de 2024",
    ] {
        let page = format!(
            "<html><head><title>Gull Game</title></head><body><h1>Gull Game</h1>\
             {BODY}<div class=release_date>{line}</div></body></html>"
        );
        assert_eq!(date_of(&page), None, "{line}");
    }
}

#[test]
fn a_thread_takes_its_first_post_over_a_last_reply_stamp() {
    // The thread's header shows the last reply's date (no cue); the posts'
    // header lines run forward in time; members' join dates are no posts.
    let post = |who: &str, when: &str, joined: &str, text: &str| {
        format!(
            "<div class=message><div class=user>{who}<br>Joined: {joined}</div>\
             <div class=message-date>{when}</div><div class=message-body>\
             <p>{text} {BODY}</p></div></div>"
        )
    };
    let page = format!(
        "<html lang=en><head><title>Roof gulls?</title></head><body><h1>Roof gulls?</h1>\
         <div class=thread-info><time datetime=2023-09-26>Sep 26, 2023</time></div>{}{}{}{}\
         </body></html>",
        post(
            "ann",
            "May 2, 2023",
            "Jan 5, 2012",
            "Why do gulls nest on my roof?"
        ),
        post("bob", "May 3, 2023", "Feb 9, 2019", "They like the gravel."),
        post("cid", "Jun 10, 2023", "Mar 1, 2015", "Same here."),
        post("dee", "Sep 26, 2023", "Apr 7, 2021", "Nets help."),
    );
    assert_eq!(date_of(&page).as_deref(), Some("2023-05-02"));
}

#[test]
fn a_lone_date_between_the_headline_and_the_text_is_the_page_date() {
    // No `<h1>`: the one date line above the text.
    let untitled = |header: &str| {
        format!(
            "<html lang=en><head><title>Gulls</title></head><body>\
             <nav><a href=/>Home</a></nav><div class=title>Gulls on roofs</div>\
             {header}{BODY}</body></html>"
        )
    };
    let page = untitled("<p>March 4, 2024</p>");
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"));
    // Two dates above the text: neither is alone, the page abstains.
    let page = untitled("<p>March 4, 2024</p><p>Next class: 9 March 2024</p>");
    assert_eq!(date_of(&page), None);
    // A long table of contents between the headline and the date.
    let contents: String = (1..=12)
        .map(|i| format!("<li><a href=#s{i}>Part {i}: where the gulls of the harbour nest and why they stay</a></li>"))
        .collect();
    let page = article("fr", &format!("<ul>{contents}</ul><p>4 mars 2024</p>"), "");
    assert_eq!(date_of(&page).as_deref(), Some("2024-03-04"));
    // A row with more words beside its date is a sentence, not a byline.
    let page = untitled("<p>The colony was counted on March 4, 2024</p>");
    assert_eq!(date_of(&page), None);
}

#[test]
fn a_thread_s_last_reply_is_not_its_date() {
    // The thread's header names the last reply's date beside the headline;
    // the one post below it is the page's date.
    for (lang, last, post, want) in [
        (
            "en",
            "Last reply: Sep 26, 2023",
            "May 2, 2023",
            "2023-05-02",
        ),
        (
            "en",
            "12 replies · last post by cid Sep 26, 2023",
            "May 2, 2023",
            "2023-05-02",
        ),
        (
            "de",
            "Letzte Antwort: 26.09.2023",
            "02.05.2023",
            "2023-05-02",
        ),
        (
            "fr",
            "Dernier message : 26 septembre 2023",
            "2 mai 2023",
            "2023-05-02",
        ),
    ] {
        let page = format!(
            "<html lang={lang}><head><title>Roof gulls?</title></head><body>\
             <h1>Roof gulls?</h1><div class=thread-meta>{last}</div>\
             <div class=message><div class=message-date>{post}</div>\
             <div class=message-body>{BODY}</div></div></body></html>"
        );
        assert_eq!(date_of(&page).as_deref(), Some(want), "{lang}: {last}");
    }
}

#[test]
fn posts_in_comment_wrappers_make_a_thread_only_by_the_headline() {
    let post = |when: &str, text: &str| {
        format!(
            "<div class=comment><div class=byline>ann <time datetime=\"{when}T10:00:00Z\">\
             {when}</time></div><div class=comment-text><p>{text} {BODY}</p></div></div>"
        )
    };
    let posts = format!(
        "{}{}{}",
        post("2023-05-02", "Why do gulls nest on my roof?"),
        post("2023-05-03", "They like the gravel."),
        post("2023-06-10", "Same here."),
    );
    // A discussion page: the posts start below the headline, under a line
    // with the latest activity's date.
    let page = format!(
        "<html lang=en><head><title>Roof gulls?</title></head><body>\
         <h1>Roof gulls?</h1><div class=thread-meta><time datetime=2023-06-10>\
         Jun 10, 2023</time> · 3 posts</div>{posts}</body></html>"
    );
    assert_eq!(date_of(&page).as_deref(), Some("2023-05-02"));
    // An article's comments below its text are no thread.
    let page = article("en", "", &format!("{BODY}{BODY}{posts}"));
    assert_eq!(date_of(&page), None);
}

#[test]
fn a_listing_or_shop_page_keeps_only_the_date_it_declares_for_itself() {
    use dechrome::model::PageType;
    // A product page whose only date is a review's, in its text.
    let html = article("en", "<p class=date>Posted March 3, 2021</p>", "");
    let shown = meta(&html, &PageHints::default());
    assert_eq!(shown.date.as_deref(), Some("2021-03-03"));
    assert_eq!(shown.sources.date, Some(SourceKind::Visible));
    for kind in [
        PageType::Listing,
        PageType::Collection,
        PageType::Product,
        PageType::Service,
    ] {
        let mut m = shown.clone();
        m.settle_date_for(kind);
        assert_eq!(m.date, None, "{kind}");
        assert_eq!(m.sources.date, None, "{kind}");
    }
    // Articles, threads and documentation keep the date they show.
    for kind in [PageType::Article, PageType::Forum, PageType::Documentation] {
        let mut m = shown.clone();
        m.settle_date_for(kind);
        assert_eq!(m.date.as_deref(), Some("2021-03-03"), "{kind}");
    }
    // A date declared in the head is the page's own, whatever its type.
    let declared = article("en", "", "").replace(
        "<title>",
        "<meta property=article:published_time content=2020-05-01><title>",
    );
    let mut m = meta(&declared, &PageHints::default());
    assert_eq!(m.sources.date, Some(SourceKind::Meta));
    m.settle_date_for(PageType::Listing);
    assert_eq!(m.date.as_deref(), Some("2020-05-01"));
}

#[test]
fn a_meta_tag_named_published_declares_the_date() {
    let html = article("en", "", "").replace(
        "<title>",
        "<meta name=published content=\"July 17, 2025\"><title>",
    );
    assert_eq!(date_of(&html).as_deref(), Some("2025-07-17"));
}

#[test]
fn a_date_in_its_own_element_right_after_a_word_is_read() {
    // A category link and the date in the next span, with no space
    // between them in the markup ("EditorialNovember 22, 2018" as text):
    // the date's own element opens a word.
    for (byline, want) in [
        (
            "<div class=post-meta><span class=category><a href=/c/>Editorial</a></span>\
             <span class=post-date>November 22, 2018 </span></div>",
            Some("2018-11-22"),
        ),
        (
            "<div><span>Editorial</span><time datetime=2018-11-22>22 Nov 2018</time></div>",
            Some("2018-11-22"),
        ),
        // Words run together in plain text stay one word: no date.
        ("<p>EditorialNovember 22, 2018</p>", None),
    ] {
        let html = article("en", byline, "");
        assert_eq!(date_of(&html).as_deref(), want, "{byline}");
    }
}

#[test]
fn a_byline_update_beats_a_publication_date_declared_only_in_json_ld() {
    // The byline shows only the update; the publication date is declared
    // for search engines in JSON-LD and shown nowhere: the page's date is
    // the one it shows, and the update is its modification date too.
    let byline = "<p class=byline>Updated March 9, 2024</p>";
    let json_ld = "<head><script type=application/ld+json>\
         {\"@type\":\"Article\",\"datePublished\":\"2021-08-12T08:00:00Z\"}</script>";
    let page = article("en", byline, "").replace("<head>", json_ld);
    let m = meta(&page, &PageHints::default());
    assert_eq!(m.date.as_deref(), Some("2024-03-09"));
    assert_eq!(m.modified.as_deref(), Some("2024-03-09"));
    // A meta tag declaring the publication date still holds it.
    let page = article("en", byline, "").replace(
        "<head>",
        "<head><meta property=article:published_time content=2021-08-12T08:00:00Z>",
    );
    assert_eq!(date_of(&page).as_deref(), Some("2021-08-12"));
}

#[test]
fn the_declared_date_or_the_url_says_which_way_a_numeric_date_reads() {
    // An English page reads "03/10/2023" month first (March 10th), and
    // dots day first; the page's declared date or its URL's says which
    // order the page meant, and no other date of the page moves.
    let byline = "<p class=post-date>09.10.2024</p>";
    let declared = article("en", byline, "").replace(
        "<head>",
        "<head><meta property=article:published_time content=2024-09-10>",
    );
    assert_eq!(date_of(&declared).as_deref(), Some("2024-09-10"));
    let page = article("en", "<p class=post-date>03/10/2023</p>", "");
    assert_eq!(date_of(&page).as_deref(), Some("2023-03-10"));
    let hints = PageHints {
        url: Some("https://example.org/blog/2023/october/03/wine-types/"),
        reference_date: None,
    };
    assert_eq!(meta(&page, &hints).date.as_deref(), Some("2023-10-03"));
    // A date with its month named has one reading only.
    let named = article("en", "<p class=post-date>March 10, 2023</p>", "");
    assert_eq!(
        meta(&named, &hints).date.as_deref(),
        Some("2023-03-10"),
        "a named month is never swapped"
    );
}

#[test]
fn a_page_dated_by_its_month_alone_gives_the_month() {
    // A report or an essay that names no day: its month, as `YYYY-MM`.
    for (lang, byline, want) in [
        ("en", "<p>November 2015</p>", Some("2015-11")),
        ("en", "<h6>Date</h6><p>November 2003</p>", Some("2003-11")),
        ("de", "<p>Veröffentlicht: März 2021</p>", Some("2021-03")),
        ("es", "<p>noviembre de 2015</p>", Some("2015-11")),
        ("fr", "<p>Publié en novembre 2015</p>", Some("2015-11")),
        // A product's availability is another event.
        ("en", "<p>Available since</p><p>July 2024</p>", None),
        ("de", "<p>Erhältlich seit Juli 2024</p>", None),
        // A month in a sentence dates nothing.
        (
            "en",
            "<p>The colony was first counted in November 2015</p>",
            None,
        ),
        // Not a month.
        ("en", "<p>Summer 2015</p>", None),
    ] {
        let html = article(lang, byline, "");
        assert_eq!(date_of(&html).as_deref(), want, "{byline}");
    }
    // A headline's month names its subject.
    let html =
        article("de", "", "").replace("Gulls on roofs</h1>", "Konzerte im November 2022</h1>");
    assert_eq!(date_of(&html), None);
    // A date of a day anywhere wins over a month.
    let html = article(
        "en",
        "<p>November 2015</p><p>By Ann Lee · March 4, 2024</p>",
        "",
    );
    assert_eq!(date_of(&html).as_deref(), Some("2024-03-04"));
    // An archive's list of months dates nothing, even with one by the
    // headline.
    let archive = "<aside><h3>Archives</h3><ul><li>December 2015</li><li>November 2015</li>\
         <li>October 2015</li></ul></aside>";
    let html = article("en", "<p>November 2015</p>", archive);
    assert_eq!(date_of(&html), None);
}
