//! Stage 3: a feature vector per block.
//!
//! Each family of features lives in its own file and implements
//! [`FeatureFamily`]; a [`FeatureSet`] is their ordered, named union, and its
//! schema (names and order) is what a model file records and checks.

pub mod boilerpipe;
pub mod cetr;
pub mod context;
pub mod css;
pub mod danag;
pub mod gupta;
pub mod page;
pub mod page_signals;
pub mod page_url;
pub mod phrases;
pub mod readability;
pub mod shallow;
pub mod site;
pub mod stacking;
pub mod structure;
pub mod text;
pub mod tree;

use ndarray::{s, Array2, ArrayViewMut2};
use sha2::{Digest, Sha256};

use crate::blocks::Blocks;
use crate::config::CetrConfig;

pub use css::CssOdds;

/// What a feature family sees of a page.
pub struct PageContext<'a> {
    /// The page's blocks.
    pub blocks: &'a Blocks,
    /// CETR settings.
    pub cetr: &'a CetrConfig,
    /// Learned id/class token odds (empty when none were learned).
    pub css_odds: &'a CssOdds,
    /// The blocks' recurrence across the other pages of the site, when the
    /// page is extracted with site context.
    pub site: Option<&'a site::SiteRows>,
    /// Per-element sums, built on first use and shared by the families.
    tree: std::sync::OnceLock<tree::ElementTree>,
}

impl<'a> PageContext<'a> {
    /// The context of one page.
    pub fn new(blocks: &'a Blocks, cetr: &'a CetrConfig, css_odds: &'a CssOdds) -> Self {
        PageContext {
            blocks,
            cetr,
            css_odds,
            site: None,
            tree: std::sync::OnceLock::new(),
        }
    }

    /// The same context with the page's site rows.
    pub fn with_site(mut self, site: Option<&'a site::SiteRows>) -> Self {
        self.site = site;
        self
    }

    /// The page's per-element sums (computed once per page).
    pub fn tree(&self) -> &tree::ElementTree {
        self.tree
            .get_or_init(|| tree::ElementTree::build(self.blocks))
    }
}

/// A family of block features.
pub trait FeatureFamily: Send + Sync {
    /// Short name of the family, used as prefix of its feature names.
    fn name(&self) -> &'static str;
    /// Names of the family's columns, in order.
    fn columns(&self) -> &'static [&'static str];
    /// Writes the family's columns for every block (`out` has one row per
    /// block and exactly `columns().len()` columns).
    fn compute(&self, page: &PageContext<'_>, out: ArrayViewMut2<'_, f32>);
}

/// The ordered union of the feature families a model uses.
pub struct FeatureSet {
    families: Vec<Box<dyn FeatureFamily>>,
}

impl Default for FeatureSet {
    fn default() -> Self {
        Self::standard()
    }
}

impl FeatureSet {
    /// The standard set: Kohlschütter text, boilerpipe shallow text,
    /// DANAg, Gupta (Crunch), structure, id/class odds, CETR, page context,
    /// page-level features with repeated records, Readability's pick, and
    /// chrome labels.
    pub fn standard() -> Self {
        FeatureSet {
            families: vec![
                Box::new(text::TextFeatures),
                Box::new(shallow::ShallowFeatures),
                Box::new(danag::DanagFeatures),
                Box::new(gupta::GuptaFeatures),
                Box::new(structure::StructureFeatures),
                Box::new(css::CssFeatures),
                Box::new(cetr::CetrFeatures),
                Box::new(context::ContextFeatures),
                Box::new(page::PageFeatures),
                Box::new(readability::ReadabilityFeatures),
                Box::new(phrases::PhraseFeatures),
            ],
        }
    }

    /// The feature set a model trained with `cfg` reads: the standard set,
    /// with the site columns when `cfg.site_context` is on.
    pub fn for_training(cfg: &crate::config::TrainConfig) -> Self {
        if cfg.site_context {
            Self::with_site()
        } else {
            Self::standard()
        }
    }

    /// The standard set followed by the [`site`] family (recurrence of
    /// each block across its site's other pages).
    pub fn with_site() -> Self {
        let mut set = Self::standard();
        set.families.push(Box::new(site::SiteFeatures));
        set
    }

    /// The set whose schema is `names`: the standard set or the set with
    /// site columns; `None` for any other schema.
    pub fn for_schema(names: &[String]) -> Option<Self> {
        [Self::standard(), Self::with_site()]
            .into_iter()
            .find(|set| set.names() == names)
    }

    /// True when the set has the [`site`] family.
    pub fn has_site(&self) -> bool {
        self.families.iter().any(|f| f.name() == "site")
    }

    /// Names of the second stage's columns: this set's, then the
    /// `stack.` columns of [`stacking::STACK_COLUMNS`].
    pub fn stacked_names(&self) -> Vec<String> {
        let mut names = self.names();
        names.extend(stacking::STACK_COLUMNS.iter().map(|c| format!("stack.{c}")));
        names
    }

    /// Names of the families, in order.
    pub fn family_names(&self) -> Vec<&'static str> {
        self.families.iter().map(|f| f.name()).collect()
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.families.iter().map(|f| f.columns().len()).sum()
    }

    /// True when the set has no columns.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fully qualified feature names (`family.column`), in order.
    pub fn names(&self) -> Vec<String> {
        self.families
            .iter()
            .flat_map(|f| {
                f.columns()
                    .iter()
                    .map(move |c| format!("{}.{}", f.name(), c))
            })
            .collect()
    }

    /// A hash of the schema (names and order), hex encoded.
    pub fn schema_hash(&self) -> String {
        schema_hash(&self.names())
    }

    /// The column range of family `name`, if the set has it.
    pub fn family_range(&self, name: &str) -> Option<std::ops::Range<usize>> {
        let mut off = 0;
        for f in &self.families {
            let n = f.columns().len();
            if f.name() == name {
                return Some(off..off + n);
            }
            off += n;
        }
        None
    }

    /// Computes the feature matrix of a page: one row per block.
    pub fn compute(&self, page: &PageContext<'_>) -> Array2<f32> {
        // The check never fails, so neither does the computation.
        self.compute_checked(page, |_| Ok(()))
            .unwrap_or_else(|_| Array2::<f32>::zeros((page.blocks.blocks.len(), self.len())))
    }

    /// [`FeatureSet::compute`], calling `check` with each family's name
    /// after computing it and giving up with its error: extraction checks
    /// the page's time budget there.
    pub fn compute_checked(
        &self,
        page: &PageContext<'_>,
        check: impl Fn(&'static str) -> crate::Result<()>,
    ) -> crate::Result<Array2<f32>> {
        let mut m = Array2::<f32>::zeros((page.blocks.blocks.len(), self.len()));
        let mut off = 0;
        for f in &self.families {
            let n = f.columns().len();
            f.compute(page, m.slice_mut(s![.., off..off + n]));
            off += n;
            check(f.name())?;
        }
        // Trees compare numbers: make sure no NaN or infinity slips through.
        m.mapv_inplace(|v| if v.is_finite() { v } else { 0.0 });
        Ok(m)
    }

    /// Recomputes one family's columns in place (training refits the id/class
    /// odds per fold without recomputing the other families).
    pub fn recompute_family(&self, name: &str, page: &PageContext<'_>, m: &mut Array2<f32>) {
        let mut off = 0;
        for f in &self.families {
            let n = f.columns().len();
            if f.name() == name {
                let mut view = m.slice_mut(s![.., off..off + n]);
                view.fill(0.0);
                f.compute(page, view);
                view_sanitize(m, off, n);
                return;
            }
            off += n;
        }
    }
}

fn view_sanitize(m: &mut Array2<f32>, off: usize, n: usize) {
    m.slice_mut(s![.., off..off + n])
        .mapv_inplace(|v| if v.is_finite() { v } else { 0.0 });
}

/// Hash of a list of feature names, hex encoded (first 16 hex digits of SHA-256).
pub fn schema_hash(names: &[String]) -> String {
    let mut h = Sha256::new();
    for n in names {
        h.update(n.as_bytes());
        h.update([0u8]);
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Pages made up for the tests of the feature families.
#[cfg(test)]
pub(crate) mod test_pages {
    /// The first words of every article paragraph of [`menu_article_menu`].
    pub const ARTICLE_START: &str = "A long paragraph";

    /// A page of `menu` navigation items, `paragraphs` article paragraphs
    /// and `menu` footer items, split into blocks.
    pub fn menu_article_menu(menu: usize, paragraphs: usize) -> crate::blocks::Blocks {
        let mut html = String::from("<body><ul>");
        for i in 0..menu {
            html.push_str(&format!("<li class='menu-item'><a href='/section/{i}' class='nav-link'><span>S{i}</span></a></li>"));
        }
        html.push_str("</ul><div class=post>");
        for _ in 0..paragraphs {
            html.push_str("<p>A long paragraph of article text with plenty of words and almost no markup at all, as the body of a story usually has.</p>");
        }
        html.push_str("</div><ul>");
        for i in 0..menu {
            html.push_str(&format!("<li class='footer-item'><a href='/about/{i}' class='footer-link'><span>F{i}</span></a></li>"));
        }
        html.push_str("</ul></body>");
        let doc = crate::parse::parse(html.as_bytes(), None, crate::parse::ParseLimits::default())
            .unwrap();
        crate::blocks::split(&doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    #[test]
    fn schema_is_stable_and_named() {
        let fs = FeatureSet::standard();
        let names = fs.names();
        assert_eq!(names.len(), fs.len());
        assert!(names.iter().all(|n| n.contains('.')));
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "feature names are unique");
        assert_eq!(fs.schema_hash(), FeatureSet::standard().schema_hash());
    }

    #[test]
    fn matrix_has_a_row_per_block_and_is_finite() {
        let doc = parse(
            b"<body><nav><a href=/>Home</a> <a href=/x>News</a></nav><h1>Title</h1><p>Some long paragraph of text that goes on.</p><footer>c 2024</footer>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let blocks = crate::blocks::split(&doc);
        let odds = CssOdds::default();
        let cfg = CetrConfig::default();
        let ctx = PageContext::new(&blocks, &cfg, &odds);
        let m = FeatureSet::standard().compute(&ctx);
        assert_eq!(m.nrows(), blocks.blocks.len());
        assert!(m.iter().all(|v| v.is_finite()));
    }
}
