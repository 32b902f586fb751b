//! A page's JSON-LD ([`JsonLd`]): the main creative work's headline,
//! authors (`@id` references followed) and dates, the publisher or
//! WebSite name and the language; broken JSON repaired where cheap
//! ([`parse_lenient`]), else scanned for the wanted keys.

use std::collections::HashMap;

use serde_json::Value;

use super::author_names::is_name_like;
use super::clean;

/// Values found in a page's JSON-LD.
#[derive(Debug, Clone, Default)]
pub struct JsonLd {
    /// `headline` (else `name`) of the main creative work.
    pub headline: Option<String>,
    /// Author names of the main creative work, `@id` references resolved.
    pub authors: Vec<String>,
    /// `datePublished` (else `dateCreated`) of the main creative work only:
    /// a `WebPage`'s or a product's date says nothing of when the page's
    /// content was published (on WCXB dev those dates were wrong on
    /// non-article pages more often than right).
    pub date: Option<String>,
    /// `dateModified` of the main creative work, else of any object.
    pub modified: Option<String>,
    /// `publisher.name` or the `WebSite`'s `name`.
    pub site_name: Option<String>,
    /// `inLanguage`.
    pub language: Option<String>,
}

/// Creative-work types whose headline, author and date describe the page.
fn is_main_type(t: &str) -> bool {
    let t = t.rsplit(['/', ':']).next().unwrap_or(t);
    t.ends_with("Article")
        || t.ends_with("Posting")
        || matches!(
            t,
            "Report"
                | "Review"
                | "Recipe"
                | "HowTo"
                | "Blog"
                | "Question"
                | "VideoObject"
                | "Episode"
                | "PodcastEpisode"
                | "CreativeWork"
        )
}

fn types_of(v: &Value) -> Vec<&str> {
    match v.get("@type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A string value, or the first string of an array, or an object's `name`
/// / `@value`.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => clean(s),
        Value::Array(a) => a.iter().find_map(as_text),
        Value::Object(o) => o.get("name").or_else(|| o.get("@value")).and_then(as_text),
        _ => None,
    }
}

impl JsonLd {
    /// Reads every JSON-LD script of a page; broken ones are repaired or
    /// scanned for keys, never fatal.
    pub fn from_scripts(scripts: &[String]) -> JsonLd {
        let mut objects: Vec<Value> = Vec::new();
        let mut broken: Vec<&str> = Vec::new();
        for s in scripts {
            match parse_lenient(s) {
                Some(v) => flatten_objects(v, &mut objects),
                None => broken.push(s),
            }
        }
        let mut out = JsonLd::default();
        let by_id: HashMap<&str, &Value> = objects
            .iter()
            .filter_map(|o| Some((o.get("@id")?.as_str()?, o)))
            .collect();
        let main = objects
            .iter()
            .find(|o| types_of(o).iter().any(|t| is_main_type(t)));
        if let Some(m) = main {
            out.headline = m
                .get("headline")
                .and_then(as_text)
                .or_else(|| m.get("name").and_then(as_text));
            if let Some(a) = m.get("author").or_else(|| m.get("creator")) {
                collect_names(a, &by_id, 0, &mut out.authors);
            }
            out.date = ["datePublished", "dateCreated"]
                .iter()
                .find_map(|k| m.get(*k).and_then(as_text));
            out.modified = m.get("dateModified").and_then(as_text);
            out.site_name = m
                .get("publisher")
                .and_then(|p| resolve(p, &by_id))
                .and_then(|p| p.get("name"))
                .and_then(as_text);
        }
        if out.modified.is_none() {
            out.modified = objects
                .iter()
                .find_map(|o| o.get("dateModified").and_then(as_text));
        }
        if out.site_name.is_none() {
            out.site_name = objects
                .iter()
                .find(|o| types_of(o).contains(&"WebSite"))
                .and_then(|o| o.get("name"))
                .and_then(as_text);
        }
        out.language = objects
            .iter()
            .find_map(|o| o.get("inLanguage").and_then(as_text));
        out.authors.dedup();
        if main.is_none() || out.headline.is_none() && out.date.is_none() {
            for s in broken {
                out.fill_from_scan(s);
            }
        }
        out
    }

    /// Last resort for JSON that does not parse: the first `"key": "value"`
    /// of the keys we want.
    fn fill_from_scan(&mut self, s: &str) {
        if self.headline.is_none() {
            self.headline = scan_string(s, "headline");
        }
        if self.date.is_none() {
            self.date = scan_string(s, "datePublished").or_else(|| scan_string(s, "dateCreated"));
        }
        if self.authors.is_empty() {
            if let Some(pos) = s.find("\"author\"") {
                if let Some(name) = scan_string(&s[pos..], "name") {
                    self.authors.push(name);
                }
            }
        }
    }
}

/// Follows an `{"@id": …}` reference to the object it names.
fn resolve<'a>(v: &'a Value, by_id: &HashMap<&str, &'a Value>) -> Option<&'a Value> {
    match v {
        Value::Object(o) if o.len() == 1 => o
            .get("@id")
            .and_then(Value::as_str)
            .and_then(|id| by_id.get(id).copied())
            .or(Some(v)),
        Value::Array(a) => a.first().and_then(|f| resolve(f, by_id)),
        _ => Some(v),
    }
}

fn collect_names(v: &Value, by_id: &HashMap<&str, &Value>, depth: usize, out: &mut Vec<String>) {
    if depth > 4 || out.len() >= 20 {
        return;
    }
    match v {
        Value::String(s) => out.extend(clean(s).filter(|s| is_name_like(s))),
        Value::Array(a) => {
            for x in a {
                collect_names(x, by_id, depth + 1, out);
            }
        }
        Value::Object(o) => {
            if let Some(name) = o.get("name").and_then(as_text) {
                out.push(name);
            } else if let Some(target) = o
                .get("@id")
                .and_then(Value::as_str)
                .and_then(|id| by_id.get(id))
            {
                if target.get("name").is_some() {
                    collect_names(target, by_id, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// Every object of a JSON-LD document: top-level arrays and `@graph`s
/// unpacked (nested objects stay inside their parent).
fn flatten_objects(v: Value, out: &mut Vec<Value>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if out.len() >= 500 {
            return;
        }
        match v {
            Value::Array(a) => stack.extend(a.into_iter().rev()),
            Value::Object(mut o) => {
                // A WebPage's main entity is often the article itself.
                if let Some(e) = o
                    .get("mainEntity")
                    .filter(|e| e.is_object() || e.is_array())
                {
                    stack.push(e.clone());
                }
                if let Some(g) = o.remove("@graph") {
                    if o.keys().any(|k| k != "@context") {
                        out.push(Value::Object(o));
                    }
                    stack.push(g);
                } else {
                    out.push(Value::Object(o));
                }
            }
            _ => {}
        }
    }
}

/// Parses JSON-LD as written, else after cheap repairs: HTML comment and
/// CDATA wrappers removed, raw control characters (newlines inside strings)
/// made spaces, trailing commas dropped. `None` when it still fails.
pub fn parse_lenient(s: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str(s) {
        return Some(v);
    }
    let mut t = s.trim();
    for wrapper in ["<!--", "//<![CDATA[", "<![CDATA["] {
        t = t.strip_prefix(wrapper).unwrap_or(t).trim();
    }
    for wrapper in ["-->", "//]]>", "]]>"] {
        t = t.strip_suffix(wrapper).unwrap_or(t).trim();
    }
    let mut out = String::with_capacity(t.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in t.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            out.push(if c.is_control() { ' ' } else { c });
            continue;
        }
        match c {
            '"' => in_string = true,
            '}' | ']' => {
                // Drop a trailing comma before a closing bracket.
                let trimmed = out.trim_end().len();
                if out[..trimmed].ends_with(',') {
                    out.truncate(trimmed - 1);
                }
            }
            _ => {}
        }
        out.push(c);
    }
    if let Ok(v) = serde_json::from_str(&out) {
        return Some(v);
    }
    // Several objects back to back: take what parses.
    let values: Vec<Value> = serde_json::Deserializer::from_str(&out)
        .into_iter::<Value>()
        .map_while(Result::ok)
        .collect();
    (!values.is_empty()).then_some(Value::Array(values))
}

/// The string value of the first `"key": "…"` in `s` (escapes undone
/// where they are simple).
fn scan_string(s: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\"");
    let mut from = 0;
    while let Some(pos) = s[from..].find(&pat) {
        let after = &s[from + pos + pat.len()..];
        from += pos + pat.len();
        let Some(rest) = after.trim_start().strip_prefix(':') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        let mut value = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return clean(&value),
                '\\' => match chars.next() {
                    Some('n' | 't' | 'r') => value.push(' '),
                    Some(e) => value.push(e),
                    None => break,
                },
                c => value.push(c),
            }
        }
        return None;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_json() {
        assert!(parse_lenient(r#"{"a": 1,}"#).is_some());
        assert!(parse_lenient("<!-- {\"a\": \"x\ny\"} -->").is_some());
        assert!(parse_lenient(r#"{"a":1}{"b":2}"#).is_some());
        assert!(parse_lenient(r#"{"a": "#).is_none());
        assert_eq!(
            scan_string(r#"{"headline": "A \"quoted\" title", "#, "headline").as_deref(),
            Some("A \"quoted\" title")
        );
    }
}
