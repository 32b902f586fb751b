//! The `<meta>` names the metadata walk keeps (`name`, `property`,
//! `itemprop` or `http-equiv`, compared lower-cased): a publication date's,
//! a modification date's, and the other fields'. Each list is written once,
//! for the walk and for the choice.

/// Meta names of a publication date, best first (compared lower-cased).
pub(super) const PUBLISHED_KEYS: &[&str] = &[
    "article:published_time",
    "og:published_time",
    "published_time",
    "datepublished",
    "parsely-pub-date",
    "sailthru.date",
    "pubdate",
    "publish-date",
    "published-date",
    "publish_date",
    "publishdate",
    "published",
    "publication_date",
    "article.published",
    "citation_publication_date",
    "citation_date",
    "dc.date.issued",
    "dcterms.issued",
    "dcterms.created",
    "dc.date",
    "dcterms.date",
    "date",
];

/// Meta names of a modification date, best first.
pub(super) const MODIFIED_KEYS: &[&str] =
    &["article:modified_time", "og:updated_time", "datemodified"];

/// Meta names kept by the walk besides the dates' (compared lower-cased).
pub(super) const META_KEYS: &[&str] = &[
    "og:title",
    "twitter:title",
    "title",
    "dc.title",
    "headline",
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "byl",
    "citation_author",
    "twitter:creator",
    "last-modified",
    "og:site_name",
    "application-name",
    "description",
    "og:description",
    "twitter:description",
    "og:url",
    "og:locale",
    "content-language",
    "language",
    "dc.language",
    "inlanguage",
];
