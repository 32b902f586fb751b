//! Page-level signals for the page-type classifier
//! ([`crate::model::page_type`]): what the markup declares the page to be
//! (`og:type`, schema.org types in JSON-LD and microdata), its URL
//! ([`super::page_url`]), and counts over its elements and blocks (forms,
//! headings and the links in them, images, buttons, prices, reply markers,
//! repeated sibling records, a pager and `rel="next"` links). One value
//! per name of [`signal_names`], computed the same way when training and
//! extracting.
//!
//! The vocabulary lists below are ours: the schema.org and Open Graph type
//! names. Reply markers are
//! English plus the most frequent forms of the corpora's other languages;
//! a page without them still has its other signals.

use std::collections::HashMap;

use html5ever::local_name;

use super::page_url::{url_signals, URL_SIGNAL_NAMES};
use crate::blocks::{ancestry, Blocks};
use crate::metadata::{Metadata, SourceKind};
use crate::parse::{Document, NodeData};

/// The declared-type groups: schema.org / Open Graph type names that say
/// what kind of page this is, one group per signal column.
const DECLARED: [(&str, &[&str]); 6] = [
    (
        "declared.article",
        &[
            "article",
            "newsarticle",
            "blogposting",
            "reportagenewsarticle",
            "analysisnewsarticle",
            "opinionnewsarticle",
            "liveblogposting",
            "scholarlyarticle",
            "report",
        ],
    ),
    (
        "declared.forum",
        &[
            "discussionforumposting",
            "qapage",
            "question",
            "answer",
            "socialmediaposting",
        ],
    ),
    (
        "declared.product",
        &[
            "product",
            "offer",
            "aggregateoffer",
            "aggregaterating",
            "productgroup",
            "og:product",
        ],
    ),
    (
        "declared.collection",
        &[
            "collectionpage",
            "itemlist",
            "searchresultspage",
            "offercatalog",
        ],
    ),
    (
        "declared.documentation",
        &["techarticle", "apireference", "softwaresourcecode", "howto"],
    ),
    (
        "declared.service",
        &[
            "service",
            "localbusiness",
            "organization",
            "contactpage",
            "aboutpage",
            "faqpage",
            "professionalservice",
            "og:website",
        ],
    ),
];

/// Short words that mark a post's header or footer in a thread.
const REPLY_MARKERS: &[&str] = &[
    "reply",
    "replies",
    "quote",
    "posted",
    "joined",
    "posts",
    "answered",
    "asked",
    "votes",
    "member",
    "registered",
    "permalink",
    "antworten",
    "zitieren",
    "répondre",
    "responder",
    "rispondi",
    "beiträge",
    "mitglied",
];

/// The columns after the declared types and the URL's: the metadata's
/// and the page's, in order.
const PAGE_SIGNAL_NAMES: [&str; 29] = [
    "meta.date_declared",
    "meta.date_shown",
    "meta.author",
    "meta.title_words",
    "page.log_words",
    "page.log_blocks",
    "page.link_share",
    "page.list_share",
    "page.table_share",
    "page.form_share",
    "page.comment_share",
    "page.code_share",
    "page.headings",
    "page.textareas",
    "page.articles",
    "page.prices",
    "page.reply_markers",
    "page.record_share",
    "page.linked_headings",
    "page.linked_heading_share",
    "page.heading_anchors",
    "page.images",
    "page.buttons",
    "page.contact_links",
    "page.times",
    "page.we_share",
    "page.calls_to_action",
    "page.rel_next",
    "page.pager",
];

/// Every signal column, in order: the declared types, the URL's
/// ([`URL_SIGNAL_NAMES`]), then the metadata's and the page's.
pub fn signal_names() -> impl Iterator<Item = &'static str> {
    DECLARED
        .iter()
        .map(|(name, _)| *name)
        .chain(URL_SIGNAL_NAMES)
        .chain(PAGE_SIGNAL_NAMES)
}

/// How many signal columns there are.
pub const SIGNAL_COUNT: usize = DECLARED.len() + URL_SIGNAL_NAMES.len() + PAGE_SIGNAL_NAMES.len();

/// The page's signals, one per [`signal_names`] entry, given its metadata
/// as [`crate::metadata::extract`] reads it: the URL the page gives for
/// itself (`canonical`/`og:url`), whether it declares a publish date or
/// shows one, whether it names an author.
pub fn page_signals(doc: &Document, blocks: &Blocks, meta: &Metadata) -> Vec<f32> {
    let url = meta.canonical_url.as_deref();
    let mut out = Vec::with_capacity(SIGNAL_COUNT);
    let (elements, declared) = element_counts(doc);
    for (_, names) in DECLARED {
        out.push(f32::from(u8::from(
            declared.iter().any(|d| names.contains(&d.as_str())),
        )));
    }
    out.extend(url_signals(url));
    out.extend(metadata_signals(meta));
    out.extend(block_shares(blocks));
    out.push(elements.headings as f32);
    out.push(elements.textareas as f32);
    out.push(elements.articles as f32);
    out.push(prices(blocks) as f32);
    out.push(reply_markers(blocks) as f32);
    out.push(record_share(blocks));
    out.push((1.0 + elements.linked_headings as f32).ln());
    out.push(elements.linked_headings as f32 / elements.all_headings.max(1) as f32);
    out.push((1.0 + elements.heading_anchors as f32).ln());
    out.push((1.0 + elements.images as f32).ln());
    out.push((1.0 + elements.buttons as f32).ln());
    out.push((1.0 + elements.contact_links as f32).ln());
    out.push((1.0 + elements.times as f32).ln());
    out.push(we_share(blocks));
    out.push((1.0 + calls_to_action(blocks) as f32).ln());
    out.push(elements.rel_next as f32);
    out.push(f32::from(u8::from(names_a_pager(blocks))));
    debug_assert_eq!(out.len(), SIGNAL_COUNT);
    out
}

/// Appends the lower-cased type names an element declares: `og:type`
/// (prefixed `og:`), the `"@type"` values of a JSON-LD script and the last
/// path segment of every `itemtype`. Called from [`element_counts`]' one
/// walk over the nodes.
fn declared_types_of(dom: &crate::parse::Dom, id: usize, out: &mut Vec<String>) {
    let node = &dom.nodes[id];
    let NodeData::Element { name, .. } = &node.data else {
        return;
    };
    // Names matched as interned atoms: a string comparison per element
    // cost more than the rest of the walk.
    match name.local {
        local_name!("meta") if node.attr("property") == Some("og:type") => {
            if let Some(v) = node.attr("content") {
                let v = v.trim().to_lowercase();
                // "article", "product", "website", "product.item"…
                let head = v.split('.').next().unwrap_or("").to_string();
                out.push(format!("og:{head}"));
                out.push(head);
            }
        }
        local_name!("script")
            if node
                .attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json")) =>
        {
            json_ld_types(&dom.text_of(id), out);
        }
        _ => {}
    }
    if let Some(t) = node.attr_named(&local_name!("itemtype")) {
        for one in t.split_whitespace() {
            if let Some(last) = one.trim_end_matches('/').rsplit('/').next() {
                out.push(last.to_lowercase());
            }
        }
    }
}

/// Appends the values of every `"@type"` key of a JSON-LD text (a string
/// or an array of strings), lower-cased, without parsing the whole
/// document: pages' JSON-LD is often invalid JSON, and the type names are
/// all this needs.
fn json_ld_types(text: &str, out: &mut Vec<String>) {
    let mut rest = text;
    while let Some(at) = rest.find("\"@type\"") {
        rest = &rest[at + 7..];
        let value = rest.trim_start().trim_start_matches(':').trim_start();
        let end = if value.starts_with('[') {
            value.find(']').map_or(value.len(), |e| e + 1)
        } else {
            value
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c == '"')
                .map_or(value.len(), |(e, _)| e + 1)
        };
        for name in value[..end.min(value.len())].split('"').skip(1).step_by(2) {
            let name = name.rsplit('/').next().unwrap_or(name);
            if !name.is_empty() && name.len() < 64 {
                out.push(name.to_lowercase());
            }
        }
    }
}

/// Whether the page declares a publish date (meta tags, JSON-LD), shows
/// one (a `<time>` element, a byline) and names an author: articles do,
/// listings and service pages seldom. A date from a URL the caller gave
/// counts as neither, so training (no URL) and extraction see the same.
/// Then the words of its title (−1 without one): a section front's title
/// is a word or two, an article's a sentence.
fn metadata_signals(meta: &Metadata) -> [f32; 4] {
    let date = meta.date.as_ref().and(meta.sources.date);
    let flag = |b: bool| f32::from(u8::from(b));
    [
        flag(matches!(date, Some(SourceKind::Meta | SourceKind::JsonLd))),
        flag(matches!(date, Some(SourceKind::Time | SourceKind::Visible))),
        flag(meta.author.is_some()),
        meta.title
            .as_deref()
            .map_or(-1.0, |t| crate::text::count_words(t) as f32),
    ]
}

/// Counts of elements that tell page types apart.
struct ElementCounts {
    headings: u32,
    textareas: u32,
    articles: u32,
    /// Links to another page inside a heading (a listing's teasers, a
    /// collection's items).
    linked_headings: u32,
    /// `<h1>` to `<h4>` elements.
    all_headings: u32,
    /// Headings with an `id` or an in-page link (`#…`): the anchors of a
    /// documentation page's table of contents.
    heading_anchors: u32,
    images: u32,
    /// Buttons and submit inputs (a service's or product's calls to
    /// action).
    buttons: u32,
    /// `tel:` and `mailto:` links (a business's contact details).
    contact_links: u32,
    /// `<time>` elements (a listing dates each item).
    times: u32,
    /// `<link>` and `<a>` elements with `rel="next"` or `rel="prev"` (a
    /// paginated archive's head links to its next page).
    rel_next: u32,
}

/// The page's [`ElementCounts`] and the type names it declares
/// ([`declared_types_of`]), in one walk over its nodes.
fn element_counts(doc: &Document) -> (ElementCounts, Vec<String>) {
    let mut c = ElementCounts {
        headings: 0,
        textareas: 0,
        articles: 0,
        linked_headings: 0,
        all_headings: 0,
        heading_anchors: 0,
        images: 0,
        buttons: 0,
        contact_links: 0,
        times: 0,
        rel_next: 0,
    };
    let dom = &doc.dom;
    let is_heading = |name: Option<&html5ever::LocalName>| {
        matches!(
            name,
            Some(&local_name!("h1") | &local_name!("h2") | &local_name!("h3") | &local_name!("h4"))
        )
    };
    let mut declared = Vec::new();
    for (id, node) in dom.nodes.iter().enumerate() {
        declared_types_of(dom, id, &mut declared);
        match node.local_name() {
            Some(&local_name!("h1") | &local_name!("h2") | &local_name!("h3")) => {
                c.headings += 1;
                c.all_headings += 1;
                c.heading_anchors += u32::from(node.attr("id").is_some());
            }
            Some(&local_name!("h4")) => c.all_headings += 1,
            Some(&local_name!("textarea")) => c.textareas += 1,
            Some(&local_name!("article")) => c.articles += 1,
            Some(&local_name!("img")) => c.images += 1,
            Some(&local_name!("time")) => c.times += 1,
            Some(&local_name!("button")) => c.buttons += 1,
            Some(&local_name!("input"))
                if node
                    .attr("type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("submit")) =>
            {
                c.buttons += 1
            }
            Some(&local_name!("link")) => c.rel_next += u32::from(rel_next(node)),
            Some(&local_name!("a")) => {
                c.rel_next += u32::from(rel_next(node));
                let Some(href) = node.attr_named(&local_name!("href")) else {
                    continue;
                };
                let scheme = href.trim_start().as_bytes();
                if [&b"tel:"[..], b"mailto:"]
                    .iter()
                    .any(|s| crate::text::starts_with_ignore_ascii_case(scheme, s))
                {
                    c.contact_links += 1;
                    continue;
                }
                // The heading holding the link, at most three levels up.
                let mut up = node.parent;
                let mut in_heading = false;
                for _ in 0..3 {
                    let Some(p) = up else { break };
                    if is_heading(dom.nodes[p].local_name()) {
                        in_heading = true;
                        break;
                    }
                    up = dom.nodes[p].parent;
                }
                if in_heading {
                    if href.trim_start().starts_with('#') {
                        c.heading_anchors += 1;
                    } else {
                        c.linked_headings += 1;
                    }
                }
            }
            _ => {}
        }
    }
    (c, declared)
}

/// Whether an element's `rel` names the next or previous page.
fn rel_next(node: &crate::parse::Node) -> bool {
    node.attr("rel").is_some_and(|r| {
        r.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case("next") || t.eq_ignore_ascii_case("prev"))
    })
}

/// Whether an element's class or id names a pager (`pagination`, `pager`,
/// `paging`, `pagenavi`, `page-numbers`): read from the blocks' id/class
/// tokens, each distinct class string's once, not from every element's
/// attributes (a case-blind search of every class cost 2 % of the
/// extraction).
fn names_a_pager(blocks: &Blocks) -> bool {
    let mut previous = "";
    blocks.tokens.get(0..blocks.tokens.len() as u32).any(|t| {
        let pager = matches!(t, "pagination" | "pager" | "paging" | "pagenavi")
            || (previous == "page" && t == "numbers");
        previous = t;
        pager
    })
}

/// Log words, log blocks with words, and the shares of the page's words
/// that are link text, in lists, tables, forms, comment regions and code.
fn block_shares(blocks: &Blocks) -> [f32; 8] {
    let mut words = 0f32;
    let mut n = 0f32;
    let mut sums = [0f32; 6];
    for b in blocks.blocks.iter().filter(|b| b.words > 0) {
        let w = b.words as f32;
        words += w;
        n += 1.0;
        sums[0] += b.link_words as f32;
        if let Some(e) = blocks.elements.get(b.element as usize) {
            let inside = [
                e.ancestry & ancestry::LIST != 0,
                e.ancestry & ancestry::TABLE != 0,
                e.ancestry & ancestry::FORM != 0,
                e.comments,
                e.ancestry & ancestry::CODE != 0,
            ];
            for (k, yes) in inside.into_iter().enumerate() {
                if yes {
                    sums[k + 1] += w;
                }
            }
        }
    }
    let share = |s: f32| if words > 0.0 { s / words } else { 0.0 };
    [
        (1.0 + words).ln(),
        (1.0 + n).ln(),
        share(sums[0]),
        share(sums[1]),
        share(sums[2]),
        share(sums[3]),
        share(sums[4]),
        share(sums[5]),
    ]
}

/// Blocks of at most 12 words holding a price: a currency sign or code
/// beside a number.
fn prices(blocks: &Blocks) -> u32 {
    short_blocks(blocks, 12, |text| {
        let t = text.as_bytes();
        t.iter().any(u8::is_ascii_digit) && has_currency(t)
    })
}

/// How many blocks with words, at most `max_words` of them, pass `test` on
/// their text.
fn short_blocks(blocks: &Blocks, max_words: u32, test: impl Fn(&str) -> bool) -> u32 {
    blocks
        .blocks
        .iter()
        .filter(|b| b.words > 0 && b.words <= max_words && test(&b.text))
        .count() as u32
}

/// Whether `text` holds a currency sign ($ € £ ¥ ₹) or code (USD, EUR,
/// CHF in any case), in one pass over its bytes: a lower-cased copy of
/// every short block and a search per sign cost more. ASCII case folding
/// finds what lower-casing would (no other character lower-cases to
/// these letters).
fn has_currency(text: &[u8]) -> bool {
    const CODES: [&[u8; 3]; 3] = [b"usd", b"eur", b"chf"];
    (0..text.len()).any(|i| {
        let rest = &text[i..];
        match rest[0] {
            b'$' => true,
            // € U+20AC and ₹ U+20B9; £ U+00A3 and ¥ U+00A5.
            0xE2 => matches!(rest.get(1..3), Some([0x82, 0xAC | 0xB9])),
            0xC2 => matches!(rest.get(1), Some(0xA3 | 0xA5)),
            b'u' | b'U' | b'e' | b'E' | b'c' | b'C' => CODES
                .iter()
                .any(|c| rest.get(..3).is_some_and(|w| w.eq_ignore_ascii_case(*c))),
            _ => false,
        }
    })
}

/// Short blocks (at most 6 words) holding a reply marker word.
fn reply_markers(blocks: &Blocks) -> u32 {
    short_blocks(blocks, 6, |text| {
        crate::text::word_tokens_borrowed(text).any(|w| REPLY_MARKERS.contains(&&*w))
    })
}

/// Whether `word` (ASCII, already lower-cased) is a first-person plural
/// word ("we", "our", "unsere", "nous", "nuestro", …) in the languages of
/// the corpora, ASCII spellings only: a business speaks of itself on its
/// service pages, a news article seldom does.
fn is_we_word(word: &[u8]) -> bool {
    matches!(
        word,
        b"we"
            | b"our"
            | b"ours"
            | b"us"
            | b"wir"
            | b"unser"
            | b"unsere"
            | b"unseren"
            | b"unserem"
            | b"unserer"
            | b"uns"
            | b"nous"
            | b"notre"
            | b"nos"
            | b"nosotros"
            | b"nuestro"
            | b"nuestra"
            | b"nuestros"
            | b"nuestras"
            | b"noi"
            | b"nostro"
            | b"nostra"
            | b"nostri"
            | b"nostre"
            | b"wij"
            | b"ons"
            | b"onze"
            | b"nosso"
            | b"nossa"
            | b"nossos"
            | b"nossas"
            | b"nasz"
            | b"nasza"
            | b"nasze"
    )
}

/// The bytes that cut words: ASCII bytes that are not letters or digits (a
/// table: one load a byte instead of two range tests).
static SEPARATOR: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 128 {
        table[c] = !(c as u8).is_ascii_alphanumeric();
        c += 1;
    }
    table
};

/// The share of the page's words that are first-person plural
/// ([`is_we_word`]). The text is cut into words at ASCII bytes that are not
/// letters or digits (a non-ASCII byte belongs to a word, which then
/// matches nothing). It runs over every word of the page, so a word is
/// turned away by its length and first letter before it is lower-cased
/// into a small buffer and matched: a comparison with each of the 34
/// words cost 3 % of extraction.
fn we_share(blocks: &Blocks) -> f32 {
    let (mut we, mut total) = (0u32, 0u32);
    let mut buffer = [0u8; 8];
    for b in blocks.blocks.iter().filter(|b| b.words > 0) {
        total += b.words;
        for w in b.text.as_bytes().split(|&c| SEPARATOR[usize::from(c)]) {
            if !(2..=8).contains(&w.len()) || !matches!(w[0] | 0x20, b'n' | b'o' | b'u' | b'w') {
                continue;
            }
            let lower = &mut buffer[..w.len()];
            lower.copy_from_slice(w);
            lower.make_ascii_lowercase();
            we += u32::from(is_we_word(lower));
        }
    }
    we as f32 / total.max(1) as f32
}

/// Words of a call to action: a service page's buttons ("Contact us",
/// "Get a quote", "Book now", "Request a demo", "Free trial").
const ACTION_WORDS: &[&str] = &[
    "contact",
    "quote",
    "book",
    "schedule",
    "demo",
    "trial",
    "started",
    "request",
    "apply",
    "enroll",
    "consultation",
    "estimate",
    "appointment",
    "call",
    "kontakt",
    "contacto",
    "contactez",
    "contatti",
    "devis",
    "angebot",
    "termin",
    "cita",
    "presupuesto",
];

/// Short blocks (at most four words) holding a word of a call to action.
fn calls_to_action(blocks: &Blocks) -> u32 {
    short_blocks(blocks, 4, |text| {
        text.split(|c: char| !c.is_alphanumeric())
            .any(|w| ACTION_WORDS.iter().any(|x| x.eq_ignore_ascii_case(w)))
    })
}

/// The share of the page's words in repeated records: blocks whose
/// element and parent have the same tag and id/class tokens as at least
/// two other blocks' (a thread's posts, a listing's items, a teaser list).
fn record_share(blocks: &Blocks) -> f32 {
    let key = |i: usize| -> Option<u64> {
        use std::hash::{BuildHasher, Hash, Hasher};
        let e = blocks.elements.get(blocks.blocks[i].element as usize)?;
        // A fixed seed: the same keys on every run.
        let mut h = foldhash::fast::FixedState::with_seed(0).build_hasher();
        e.tag.hash(&mut h);
        blocks.tokens_of(e).for_each(|t| t.hash(&mut h));
        if let Some(p) = e.parent.and_then(|p| blocks.elements.get(p as usize)) {
            p.tag.hash(&mut h);
            blocks.tokens_of(p).for_each(|t| t.hash(&mut h));
        }
        Some(h.finish())
    };
    let keys: Vec<Option<u64>> = (0..blocks.blocks.len()).map(key).collect();
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for (k, b) in keys.iter().zip(&blocks.blocks) {
        if let (Some(k), true) = (k, b.words > 0) {
            *counts.entry(*k).or_default() += 1;
        }
    }
    let (mut inside, mut total) = (0u64, 0u64);
    for (k, b) in keys.iter().zip(&blocks.blocks) {
        total += u64::from(b.words);
        if k.is_some_and(|k| counts.get(&k).copied().unwrap_or(0) >= 3) {
            inside += u64::from(b.words);
        }
    }
    if total == 0 {
        0.0
    } else {
        inside as f32 / total as f32
    }
}

#[cfg(test)]
mod tests;
