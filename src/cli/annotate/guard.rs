//! Who may talk to the annotate server: requests addressed to this loopback
//! server (`Host`, and `Origin` when sent), carrying the token.
//!
//! The `Host` check stops DNS rebinding: a page from another site whose
//! name now resolves to 127.0.0.1 reaches the port, but its requests name
//! that site, not `127.0.0.1:PORT`. The token is accepted in the URL only
//! for opening the page (the link printed in the terminal); the page's own
//! requests send it in the [`TOKEN_HEADER`] header, which a cross-site form
//! or image cannot set. A token in the URL of any other request is refused
//! even when right, so that it never becomes a way in.

use super::http::{Field, Head, Method, Reply};

/// The header carrying the token on every request but the page's first load.
pub const TOKEN_HEADER: &str = "x-token";

/// The host names (and origins) the server answers to.
#[derive(Debug, Clone)]
pub struct Access {
    token: String,
    /// `Host` values accepted, lower case.
    hosts: Vec<String>,
    /// `Origin` values accepted, lower case.
    origins: Vec<String>,
}

impl Access {
    /// The policy of a server on 127.0.0.1:`port` with `token`.
    pub fn new(token: String, port: u16) -> Access {
        let mut hosts = Vec::new();
        for name in ["127.0.0.1", "localhost"] {
            hosts.push(format!("{name}:{port}"));
            if port == 80 {
                hosts.push(name.to_string());
            }
        }
        let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
        Access {
            token,
            hosts,
            origins,
        }
    }

    /// Checks `head`: `Ok` when it may be answered, else the refusal. Only
    /// GET of the page itself (`/`) may carry the token in its query.
    pub fn check(&self, head: &Head) -> Result<(), Reply> {
        let forbidden = |why: &str| Err(Reply::error(403, why));
        match head.field("host") {
            Field::Once(h) if self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h)) => {}
            _ => return forbidden("this server answers only to its loopback address"),
        }
        match head.field("origin") {
            Field::Absent => {}
            Field::Once(o) if self.origins.iter().any(|a| a.eq_ignore_ascii_case(o)) => {}
            _ => return forbidden("requests from other origins are refused"),
        }
        let page_load = head.method == Method::Get && head.path == "/";
        let mut in_query = head.query_values("token").peekable();
        if !page_load && in_query.peek().is_some() {
            return forbidden("send the token in the X-Token header, not in the URL");
        }
        let in_header = match head.field(TOKEN_HEADER) {
            Field::Absent => None,
            Field::Once(t) => Some(t),
            Field::Repeated => return forbidden("one token only"),
        };
        let mut given: Vec<&str> = in_header.into_iter().chain(in_query).collect();
        given.dedup();
        match given.as_slice() {
            [t] if same_token(t, &self.token) => Ok(()),
            _ => forbidden("missing or wrong token"),
        }
    }
}

/// Compares tokens in time that depends on their lengths only (the
/// expected token's length is not a secret: it is always 32).
fn same_token(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::super::http::parse_head;
    use super::*;

    fn check(head: &str) -> u16 {
        let access = Access::new("abc".into(), 8080);
        let head = parse_head(format!("{head}\r\n\r\n").as_bytes()).unwrap();
        access
            .check(&head)
            .map(|_| 200)
            .unwrap_or_else(|r| r.status)
    }

    #[test]
    fn host_origin_and_token() {
        let h = "Host: 127.0.0.1:8080";
        assert_eq!(check(&format!("GET /?token=abc HTTP/1.1\r\n{h}")), 200);
        assert_eq!(
            check("GET /?token=abc HTTP/1.1\r\nHost: LOCALHOST:8080"),
            200
        );
        assert_eq!(
            check("GET /?token=abc HTTP/1.1\r\nHost: evil.com:8080"),
            403
        );
        assert_eq!(
            check("GET /?token=abc HTTP/1.1\r\nHost: 127.0.0.1:8081"),
            403
        );
        assert_eq!(check("GET /?token=abc HTTP/1.1"), 403);
        assert_eq!(
            check(&format!("GET /?token=abc HTTP/1.1\r\n{h}\r\n{h}")),
            403
        );
        let o = "Origin: http://evil.com";
        assert_eq!(
            check(&format!("GET /?token=abc HTTP/1.1\r\n{h}\r\n{o}")),
            403
        );
        let o = "Origin: http://127.0.0.1:8080";
        assert_eq!(
            check(&format!("GET /?token=abc HTTP/1.1\r\n{h}\r\n{o}")),
            200
        );
        assert_eq!(
            check(&format!("GET /api/pages HTTP/1.1\r\n{h}\r\nX-Token: abc")),
            200
        );
        assert_eq!(
            check(&format!("GET /api/pages?token=abc HTTP/1.1\r\n{h}")),
            403
        );
        let post = format!("POST /api/page/0?token=abc HTTP/1.1\r\n{h}\r\nX-Token: abc");
        assert_eq!(check(&post), 403);
        assert_eq!(check(&format!("GET /?token=abd HTTP/1.1\r\n{h}")), 403);
        assert_eq!(check(&format!("GET /?token=ab HTTP/1.1\r\n{h}")), 403);
        assert_eq!(
            check(&format!("GET /?token=abc&token=x HTTP/1.1\r\n{h}")),
            403
        );
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("", "abc"));
        assert!(!same_token("abcd", "abc"));
    }
}
