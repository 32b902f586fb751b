//! Tests of `raw_text`.

use super::*;

fn cut(html: &str) -> String {
    prescan(html, None, false).pieces.concat()
}

#[test]
fn white_space_between_tags_is_cut_to_one_byte_outside_pre() {
    let slim = |html: &str| prescan(html, None, true).pieces.concat();
    assert_eq!(
        slim("<div>\n    <p>a  b</p>\n\n  <pre>\n  x\n    <b>y</b>\n</pre>\t\t<p>c"),
        "<div>\n<p>a  b</p>\n<pre>\n  x\n    <b>y</b>\n</pre>\t<p>c",
        "runs after tags only; pre keeps its white space"
    );
    // A table inside a pre (where a </pre> may be ignored) keeps the
    // rest of the page as written, as does a misnested listing.
    let page = "<pre><table><td>x</pre>\n\n<p>";
    assert_eq!(slim(page), page);
    let page = "<listing><pre></listing>\n\n<p>";
    assert_eq!(slim(page), page);
    // Without `slim`, nothing but script and style bodies is cut.
    assert_eq!(cut("<p>\n\n  <b>"), "<p>\n\n  <b>");
    // Hostile markup of tiny runs: the pieces stay bounded.
    let page = "<b>  ".repeat(100_000);
    let scan = prescan(&page, None, true);
    assert!(scan.pieces.len() <= page.len() / 8 + 257);
    // Many open pre and many end tags of the other name: one look
    // each (a search of the stack would take 10^10 steps here).
    let page = "<pre>".repeat(100_000) + &"</listing>  <p>".repeat(100_000);
    assert_eq!(slim(&page), page);
}

#[test]
fn tiny_attributes_never_make_more_pieces_than_the_page_allows() {
    let page = format!("<div{}>text</div>", " x".repeat(100_000));
    let scan = prescan(&page, None, true);
    assert!(
        scan.pieces.len() <= page.len() / 8 + 257,
        "{}",
        scan.pieces.len()
    );
    // Attributes up to the cap are cut; the rest are kept.
    assert!(scan.pieces.concat().len() < page.len());
    let normal = "<p data-a=1 class=c data-b='2'>x</p>";
    assert_eq!(
        prescan(normal, None, true).pieces.concat(),
        "<p  class=c >x</p>"
    );
}

#[test]
fn script_and_style_bodies_go_json_stays() {
    assert_eq!(
        cut("<p>a<script>var x = '<p>';</script>b<STYLE media=x>p{}</Style >c"),
        "<p>a<script></script>b<STYLE media=x></Style >c"
    );
    let ld = r#"<script type="application/ld+json">{"a":1}</script>"#;
    assert_eq!(cut(ld), ld);
    assert_eq!(cut("<script>a</scripts>b</script>c"), "<script></script>c");
}

#[test]
fn text_that_only_looks_like_a_script_is_kept() {
    // The text after a fake script start survives; only real script
    // bodies go.
    for (page, want) in [
        (
            "<!-- <script> --><p>a</p><script>x</script>",
            "<!-- <script> --><p>a</p><script></script>",
        ),
        (
            "<a title='<script>'>text</a><script>y</script>",
            "<a title='<script>'>text</a><script></script>",
        ),
        (
            "<a title = \"x>\"><script>y</script>",
            "<a title = \"x>\"><script></script>",
        ),
        (
            "<title><script></title><p>text</p></script>",
            "<title><script></title><p>text</p></script>",
        ),
        (
            "<textarea><style></textarea><p>text</p></style>",
            "<textarea><style></textarea><p>text</p></style>",
        ),
        ("<scripts>text</scripts>", "<scripts>text</scripts>"),
        ("<script\"x>text</script>", "<script\"x>text</script>"),
        (
            "<svg><![CDATA[ a > b <script> ]]></svg><p>text</p></script>",
            "<svg><![CDATA[ a > b <script> ]]></svg><p>text</p></script>",
        ),
        (
            "<plaintext><script>text</script>",
            "<plaintext><script>text</script>",
        ),
        (
            "<a href=x?a='b>text<script>y</script>",
            "<a href=x?a='b>text<script></script>",
        ),
    ] {
        assert_eq!(cut(page), want, "{page}");
    }
}

#[test]
fn double_escaped_scripts_and_open_ends_keep_the_rest() {
    let escaped = "<script>a<!--<script>b</script>c--></script><p>d";
    assert_eq!(cut(escaped), escaped);
    // A comment alone in a script does not change where it ends.
    assert_eq!(
        cut("<script><!-- x //--></script><p>d"),
        "<script></script><p>d"
    );
    for page in ["<script>never closed", "<p a='x", "<!-- open", "<style"] {
        assert_eq!(cut(page), page);
    }
}

#[test]
fn cuts_fall_on_character_boundaries() {
    // Junk markup is `depth.rs`'s test: the walk is the same.
    assert_eq!(cut("é<script>é</script>é"), "é<script></script>é");
}

/// The tree as lines of depth, name, attributes and text, the text of
/// scripts (but JSON) and styles left out.
fn signature(dom: &crate::parse::Dom) -> Vec<String> {
    use crate::parse::{NodeData, DOCUMENT};
    let mut out = Vec::new();
    // (node, depth, whether its parent is a script or style but JSON,
    // whether it is inside a pre or listing)
    let mut stack = vec![(DOCUMENT, 0usize, false, false)];
    while let Some((id, depth, in_raw, in_pre)) = stack.pop() {
        let node = &dom.nodes[id];
        let mut raw = false;
        let mut pre = in_pre;
        match &node.data {
            NodeData::Element { name, attrs, .. } => {
                // The attributes the parse keeps; the rest only on the
                // whole page's side, where the parse may leave them.
                let attrs: Vec<String> = attrs
                    .iter()
                    .filter(|x| {
                        attributes::is_kept(&x.name.local.to_ascii_lowercase())
                            || !x.name.ns.is_empty()
                    })
                    .map(|x| format!("{}={}", x.name.local, x.value))
                    .collect();
                out.push(format!("{depth} <{}> {}", name.local, attrs.join(" ")));
                raw = matches!(&*name.local, "script" | "style")
                    && !node.attr("type").is_some_and(|t| t.contains("json"));
                pre |= matches!(&*name.local, "pre" | "listing");
            }
            // Only the text of a script or style is left out: elements
            // in an SVG one must stay.
            NodeData::Text(_) if in_raw => {}
            NodeData::Text(t) if in_pre => out.push(format!("{depth} {t}")),
            // Outside pre and listing the length of a white space run
            // is not kept: each run reads as one space.
            NodeData::Text(t) => {
                let mut text = String::new();
                for (i, c) in t.char_indices() {
                    let space = c.is_ascii_whitespace();
                    let after_space = t[..i].ends_with(|p: char| p.is_ascii_whitespace());
                    if !space {
                        text.push(c);
                    } else if !after_space {
                        text.push(' ');
                    }
                }
                out.push(format!("{depth} {text}"))
            }
            other => out.push(format!("{depth} {other:?}")),
        }
        let kids: Vec<_> = dom.children(id).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1, raw, pre)));
    }
    out
}

/// The tree html5ever builds from the whole page and the one it builds
/// from the page without script and style bodies and without the
/// attributes the parse cuts agree.
fn assert_same_tree(html: &str, what: &str) {
    use html5ever::tendril::TendrilSink;
    let whole = html5ever::parse_document(
        crate::parse::dom::Sink::new(usize::MAX / 2, 1, None),
        crate::parse::parse_opts(),
    )
    .one(html)
    .0;
    let cut = crate::parse::parse_str(html, usize::MAX / 2).unwrap();
    let (a, b) = (signature(&whole), signature(&cut));
    if a != b {
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        panic!(
            "{what}: trees differ at line {at}: {:?} / {:?}",
            a.get(at),
            b.get(at)
        );
    }
}

#[test]
fn the_tree_is_unchanged_on_tricky_pages() {
    for page in [
        "<p>a<script>if (a < b) { x = '</p>'; }</script><p>b",
        "<table><script>x</script><tr><td>c<style>td{}</style></td></tr></table>",
        "<select><script>x</script><option>o</select>",
        "<svg><style>.a{}</style><script>y</script></svg><p>t",
        "<noscript><script>x</script><p>n</p></noscript>",
        "<script><!-- x //--></script><p>d",
        "<script>a<!--<script>b</script>c--></script><p>d",
        "<p title='<script>'>q</p><script>z</script>",
        "<script type=application/ld+json>{\"a\": \"<b>\"}</script><p>e",
        "</script><script>unclosed <p>",
        "<head><style>p{}</style><script src=x></script></head><body><p>f",
    ] {
        assert_same_tree(page, page);
    }
}

#[test]
fn the_tree_is_unchanged_on_random_markup() {
    use rand::{Rng, SeedableRng};
    // Pieces of markup where the cut could go wrong, shuffled: the
    // tree must stay the one html5ever builds from the whole page.
    const PIECES: &[&str] = &[
        "<script>",
        "</script>",
        "</SCRIPT >",
        "<script type=ld+json>",
        "<style>",
        "</style>",
        "<!--",
        "-->",
        "--!>",
        "<title>",
        "</title>",
        "<textarea>",
        "</textarea>",
        "<svg>",
        "</svg>",
        "<![CDATA[",
        "]]>",
        "<a title='",
        "'",
        "\"",
        "=",
        ">",
        "<",
        "</",
        "<p>",
        "</scripts>",
        "<scripts>",
        " ",
        "x",
        "<noscript>",
        "<plaintext>",
        "<?x ",
        "<table>",
        "<math>",
        // Attributes the parse cuts or keeps, where a cut could change
        // the tree: self-closing slashes, formatting elements, hidden
        // inputs, font breaking out of SVG, prefixed SVG names.
        "<div",
        " data-x",
        " data-x=1",
        " data-x='a>b'",
        " class=c",
        " xlink:href=x",
        " d=\"m0\"",
        "/",
        "<b data-x=1>",
        "<b data-x=2>",
        "<b>",
        "</b>",
        "<a data-x=1 href=y>",
        "</a>",
        "<input type=hidden data-x>",
        "<font color=red data-x>",
        "<td data-y>",
        "<div data-x/>",
        "<br/data-x>",
        "<path d=1/>",
        // White space between tags, kept inside pre and listing, and
        // the elements inside which a </pre> may be ignored.
        "  ",
        "\n\t \r\n",
        "<pre>",
        "</pre>",
        "<PRE >",
        "<listing>",
        "</listing>",
        "<td>",
        "<select>",
        "<object>",
        "<template>",
        "</table>",
        "<li>",
        "</div>",
        "&nbsp; ",
    ];
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for round in 0..20_000 {
        let n = rng.gen_range(1..40);
        let page: String = (0..n)
            .map(|_| PIECES[rng.gen_range(0..PIECES.len())])
            .collect();
        assert_same_tree(&page, &format!("round {round}: {page:?}"));
    }
}

/// Every page of the shared corpora (`../shared/corpora`) gives the same
/// tree with and without its script and style bodies and cut attributes.
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn the_tree_is_unchanged_on_the_corpora() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let mut pages = 0;
    for dir in [
        "readability-pages",
        "wcxb-dev/html",
        "fundus-news/html",
        "newspaper-news/html",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Ok(raw) = std::fs::read(&path) else {
                continue;
            };
            let name = path.display().to_string();
            if !(name.ends_with(".html") || name.ends_with(".html.gz") || name.ends_with(".htm")) {
                continue;
            }
            let raw = if crate::parse::charset::is_gzip(&raw) {
                crate::parse::charset::gunzip_bounded(&raw, usize::MAX).0
            } else {
                raw
            };
            let (text, _, _) = crate::parse::charset::decode(raw, None);
            assert_same_tree(&text, &name);
            pages += 1;
        }
    }
    assert!(pages > 1000, "only {pages} pages found");
}
