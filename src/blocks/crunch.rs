//! Crunch's DOM filters (Gupta, Kaiser, Neistadt & Grimm, 2003), applied
//! before the splitter: link lists, empty containers and ad-server content.
//!
//! - A container whose ratio of links to non-linked words (5 characters a
//!   word) exceeds `link_ratio` is a link list and is removed, unless it
//!   holds half or more of the page's text (then it is the page).
//! - A table or container with no text and no image is removed.
//! - An element whose `src` or `href` points at a host on the ad-server list
//!   (or a subdomain of one) is removed.
//!
//! The removed link lists' link texts can be kept aside (Crunch's "removed
//! link retainer") and appended to the extraction.

use std::collections::HashSet;

use html5ever::local_name;

use super::is_skipped_tag;
use crate::parse::{Document, NodeData, NodeId, DOCUMENT};

/// The ad-server hosts shipped with dechrome (`data/adservers.txt`).
pub const DEFAULT_AD_HOSTS: &str = include_str!("../../data/adservers.txt");

/// Settings of the Crunch filters.
#[derive(Debug, Clone)]
pub struct CrunchSettings {
    /// Links per non-linked word above which a container is a link list.
    pub link_ratio: f32,
    /// Hosts whose content is removed.
    pub ad_hosts: HashSet<String>,
}

impl CrunchSettings {
    /// Settings with `link_ratio` and the hosts listed in `list` (one per
    /// line, `#` comments).
    pub fn new(link_ratio: f32, list: &str) -> Self {
        let ad_hosts = list
            .lines()
            .map(|l| {
                l.split('#')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .filter(|l| !l.is_empty())
            .collect();
        CrunchSettings {
            link_ratio,
            ad_hosts,
        }
    }

    fn is_ad(&self, url: &str) -> bool {
        let Some(host) = super::url_host(url) else {
            return false;
        };
        let mut h = host.as_str();
        loop {
            if self.ad_hosts.contains(h) {
                return true;
            }
            match h.split_once('.') {
                Some((_, rest)) if rest.contains('.') => h = rest,
                _ => return false,
            }
        }
    }
}

/// What the filters removed.
#[derive(Debug, Clone, Default)]
pub struct CrunchResult {
    /// Per DOM node: removed (with everything below it).
    pub removed: Vec<bool>,
    /// The link texts of removed link lists, in page order.
    pub retained_links: Vec<String>,
}

#[derive(Clone, Copy, Default)]
struct Stats {
    text: u32,
    linked: u32,
    links: u32,
    images: u32,
}

fn is_container(tag: &html5ever::LocalName) -> bool {
    matches!(
        *tag,
        local_name!("ul")
            | local_name!("ol")
            | local_name!("dl")
            | local_name!("menu")
            | local_name!("table")
            | local_name!("tbody")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("div")
            | local_name!("nav")
            | local_name!("section")
            | local_name!("aside")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("p")
            | local_name!("form")
    )
}

/// Runs the filters over a document.
pub fn filter(doc: &Document, settings: &CrunchSettings) -> CrunchResult {
    let dom = &doc.dom;
    let n = dom.nodes.len();
    // Pre-order over the nodes that can hold text, with "inside a link".
    let mut order = Vec::with_capacity(n);
    let mut in_link = vec![false; n];
    let mut stack = vec![DOCUMENT];
    while let Some(id) = stack.pop() {
        order.push(id);
        let node = &dom.nodes[id];
        let link_here = node.local_name().is_some_and(|t| *t == local_name!("a"));
        let inherited = in_link[id] || link_here;
        let mut kids: Vec<NodeId> = dom.children(id).collect();
        kids.retain(|&k| !dom.nodes[k].local_name().is_some_and(is_skipped_tag));
        for &k in &kids {
            in_link[k] = inherited;
        }
        stack.extend(kids.into_iter().rev());
    }
    // Bottom-up sums.
    let mut stats = vec![Stats::default(); n];
    for &id in order.iter().rev() {
        let node = &dom.nodes[id];
        match &node.data {
            NodeData::Text(t) => {
                let c = t.chars().filter(|c| !c.is_whitespace()).count() as u32;
                stats[id].text += c;
                if in_link[id] {
                    stats[id].linked += c;
                }
            }
            NodeData::Element { name, .. } => {
                if name.local == local_name!("a") && node.attr("href").is_some() {
                    stats[id].links += 1;
                }
                if name.local == local_name!("img") {
                    stats[id].images += 1;
                }
            }
            _ => {}
        }
        if let Some(p) = node.parent {
            let s = stats[id];
            let ps = &mut stats[p];
            ps.text += s.text;
            ps.linked += s.linked;
            ps.links += s.links;
            ps.images += s.images;
        }
    }
    let page_text = stats[DOCUMENT].text.max(1);
    // Top-down decisions: the outermost qualifying element goes.
    let mut result = CrunchResult {
        removed: vec![false; n],
        retained_links: Vec::new(),
    };
    for &id in &order {
        let node = &dom.nodes[id];
        if let Some(p) = node.parent {
            if result.removed[p] {
                result.removed[id] = true;
                continue;
            }
        }
        let Some(tag) = node.local_name() else {
            continue;
        };
        if matches!(*tag, local_name!("html") | local_name!("body")) {
            continue;
        }
        let s = stats[id];
        let ad = ["src", "href"]
            .iter()
            .any(|a| node.attr(a).is_some_and(|u| settings.is_ad(u)));
        let container = is_container(tag);
        let empty = container && s.text == 0 && s.images == 0;
        let unlinked = s.text - s.linked;
        let words = unlinked as f32 / 5.0;
        let link_list = container
            && s.links >= 2
            && s.links as f32 / words.max(1.0) > settings.link_ratio
            && (s.text as f32) < 0.5 * page_text as f32;
        if ad || empty || link_list {
            result.removed[id] = true;
            if link_list {
                collect_links(doc, id, &mut result.retained_links);
            }
        }
    }
    result
}

fn collect_links(doc: &Document, root: NodeId, out: &mut Vec<String>) {
    let dom = &doc.dom;
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if dom.nodes[id]
            .local_name()
            .is_some_and(|t| *t == local_name!("a"))
        {
            let t = super::collapse_whitespace(&dom.text_of(id));
            if !t.is_empty() {
                out.push(t);
            }
            continue;
        }
        let kids: Vec<NodeId> = dom.children(id).collect();
        stack.extend(kids.into_iter().rev());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn run(html: &str, ratio: f32) -> (Vec<String>, CrunchResult) {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let r = filter(&doc, &CrunchSettings::new(ratio, DEFAULT_AD_HOSTS));
        let blocks = crate::blocks::split_filtered(&doc, |id| r.removed[id]);
        (blocks.blocks.into_iter().map(|b| b.text).collect(), r)
    }

    const ARTICLE: &str = "<p>The article itself is a long stretch of text without links, long enough to dominate the page and carry the story from its first line to its last one here.</p>";

    #[test]
    fn removes_a_link_list_above_the_ratio_and_keeps_one_below() {
        // Three links and no other words: ratio 3 / 1 (floor) = 3.
        let menu = "<ul><li><a href=/a>Home</a></li><li><a href=/b>News</a></li><li><a href=/c>Sport</a></li></ul>";
        // Two links in 100 characters of plain text: 2 / 20 words = 0.1.
        let prose = "<p>See <a href=/x>this</a> and <a href=/y>that</a> for the long background story of this affair, told over many years.</p>";
        let (texts, r) = run(&format!("<body>{menu}{prose}{ARTICLE}</body>"), 0.3);
        assert!(!texts.iter().any(|t| t == "Home"), "{texts:?}");
        assert!(
            texts.iter().any(|t| t.starts_with("See this and that")),
            "{texts:?}"
        );
        assert!(texts.iter().any(|t| t.starts_with("The article itself")));
        assert_eq!(r.retained_links, ["Home", "News", "Sport"]);
        // With a threshold above 3 the menu stays.
        let (texts, _) = run(&format!("<body>{menu}{ARTICLE}</body>"), 5.0);
        assert!(texts.iter().any(|t| t == "Home"));
    }

    #[test]
    fn removes_ad_server_content_and_empty_tables() {
        let html = format!(
            "<body><div><a href='https://ad.doubleclick.net/click?x=1'>Buy now, the best offer of the year for you</a></div>\
             <table><tr><td> </td></tr></table>{ARTICLE}</body>"
        );
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let r = filter(&doc, &CrunchSettings::new(0.3, DEFAULT_AD_HOSTS));
        let texts: Vec<String> = crate::blocks::split_filtered(&doc, |id| r.removed[id])
            .blocks
            .into_iter()
            .map(|b| b.text)
            .collect();
        assert!(!texts.iter().any(|t| t.contains("Buy now")), "{texts:?}");
        let table = (0..doc.dom.nodes.len())
            .find(|&i| {
                doc.dom.nodes[i]
                    .local_name()
                    .is_some_and(|n| &**n == "table")
            })
            .unwrap();
        assert!(r.removed[table]);
        let settings = CrunchSettings::new(0.3, "example-ads.com\n");
        assert!(settings.is_ad("http://cdn.example-ads.com/a.js"));
        assert!(!settings.is_ad("http://example.com/"));
    }

    #[test]
    fn never_removes_the_page_itself() {
        // A page that is nothing but links keeps its wrapper.
        let html = "<body><div id=all><a href=/1>one</a> <a href=/2>two</a> <a href=/3>three</a></div></body>";
        let (texts, _) = run(html, 0.3);
        assert!(!texts.is_empty());
    }
}
