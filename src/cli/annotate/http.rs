//! The small part of HTTP/1.1 the annotate server speaks: one request per
//! connection, a head of bounded size, a body framed by `Content-Length`
//! only, and replies that always close the connection.
//!
//! Parsing never panics and never allocates more than the limits below
//! allow, whatever bytes a client sends: anything unexpected is a [`Reply`]
//! refusing the request.

use serde_json::{json, Value};

/// Largest request head (request line and headers) accepted, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// Most header lines accepted in one request.
pub const MAX_HEADERS: usize = 64;
/// Largest request body accepted (a page's labels and its page type).
pub const MAX_BODY: usize = 1 << 20;

/// The request methods the server tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// Anything else (answered 405).
    Other,
}

/// A request's line and headers.
#[derive(Debug)]
pub struct Head {
    /// The method.
    pub method: Method,
    /// The target's path, before any `?`, as sent (not percent-decoded).
    pub path: String,
    /// The target's query, after the first `?` (empty when none).
    pub query: String,
    /// Header fields in order, names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body's length from `Content-Length` (0 when absent).
    pub body_len: usize,
}

/// How a header field is present in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    /// Not sent.
    Absent,
    /// Sent once, with this value.
    Once(&'a str),
    /// Sent more than once.
    Repeated,
}

/// A whole request: its head and its body.
#[derive(Debug)]
pub struct Request {
    /// Request line and headers.
    pub head: Head,
    /// The body, exactly `head.body_len` bytes.
    pub body: Vec<u8>,
}

impl Head {
    /// Every value of header `name` (lower case), in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Header `name` (lower case): absent, sent once (its value), or sent
    /// more than once.
    pub fn field(&self, name: &str) -> Field<'_> {
        let mut values = self.headers.iter().filter(|(n, _)| n == name);
        match (values.next(), values.next()) {
            (None, _) => Field::Absent,
            (Some((_, v)), None) => Field::Once(v),
            (Some(_), Some(_)) => Field::Repeated,
        }
    }

    /// The values of query parameter `key` (not percent-decoded).
    pub fn query_values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.query
            .split('&')
            .filter_map(move |kv| match kv.split_once('=') {
                Some((k, v)) if k == key => Some(v),
                None if kv == key => Some(""),
                _ => None,
            })
    }
}

/// A reply: status, content type and body. Every reply closes the
/// connection and carries the same protective headers.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

/// The content security policy of every reply: the page's inline script and
/// style, requests to its own origin only, nothing from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, v: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }

    /// A JSON `{"error": message}` reply.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": message }))
    }

    /// The reply as bytes on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
X-Frame-Options: DENY\r\nContent-Security-Policy: {CSP}\r\n\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len(),
        );
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

/// The reason phrase of the statuses this server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// Where the end of the head (`\r\n\r\n`) is in `buf`: the index just past
/// it. `from` is where the previous search stopped, so that a head arriving
/// byte by byte is not scanned again from its start.
pub fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let start = from.saturating_sub(3);
    memchr::memmem::find(buf.get(start..)?, b"\r\n\r\n").map(|i| start + i + 4)
}

/// Parses a complete head (`buf` ends with the blank line). Refuses what
/// this server does not accept with the reply to send.
pub fn parse_head(buf: &[u8]) -> Result<Head, Reply> {
    let bad = |why: &str| Reply::error(400, why);
    let text = std::str::from_utf8(buf).map_err(|_| bad("the request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("malformed request line"));
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(Reply::error(505, "HTTP/1.0 or HTTP/1.1 only"));
    }
    if !target.starts_with('/') || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(bad("the request target must be a path"));
    }
    let method = match method {
        "GET" => Method::Get,
        "POST" => Method::Post,
        m if !m.is_empty() && m.bytes().all(is_token_byte) => Method::Other,
        _ => return Err(bad("malformed method")),
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        if headers.len() == MAX_HEADERS {
            return Err(Reply::error(431, "too many header fields"));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad("malformed header field"));
        };
        if name.is_empty() || !name.bytes().all(is_token_byte) {
            // Also refuses obsolete line folding (a line starting with a space).
            return Err(bad("malformed header name"));
        }
        if value.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f) {
            return Err(bad("control character in a header value"));
        }
        headers.push((
            name.to_ascii_lowercase(),
            value.trim_matches([' ', '\t']).to_string(),
        ));
    }
    let mut head = Head {
        method,
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body_len: 0,
    };
    head.body_len = body_length(&head)?;
    Ok(head)
}

/// The body's length: `Content-Length`, sent at most once (or repeated with
/// one value), at most [`MAX_BODY`]. Other framing is refused: this server's
/// only client (the page) always sends a length.
fn body_length(head: &Head) -> Result<usize, Reply> {
    if head.values("transfer-encoding").next().is_some() {
        return Err(Reply::error(
            411,
            "send the body with a Content-Length, not Transfer-Encoding",
        ));
    }
    let mut length = None;
    for v in head.values("content-length").flat_map(|v| v.split(',')) {
        let v = v.trim_matches([' ', '\t']);
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Reply::error(400, "malformed Content-Length"));
        }
        // Digits only: a value too large for usize is over the limit anyway.
        let n = v.parse::<usize>().unwrap_or(usize::MAX);
        if length.is_some_and(|l| l != n) {
            return Err(Reply::error(400, "conflicting Content-Length values"));
        }
        length = Some(n);
    }
    match length {
        Some(n) if n > MAX_BODY => Err(Reply::error(413, "request body too large")),
        n => Ok(n.unwrap_or(0)),
    }
}

/// RFC 9110 `tchar`: the bytes of a method or a header name.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(r: Result<Head, Reply>) -> u16 {
        r.map(|_| 200).unwrap_or_else(|e| e.status)
    }

    #[test]
    fn parses_a_request_head() {
        let h = parse_head(
            b"POST /api/page/1?a=b&token=x HTTP/1.1\r\nHost: 127.0.0.1:8\r\nContent-Length: 12\r\n\r\n",
        )
        .unwrap();
        assert_eq!(h.method, Method::Post);
        assert_eq!(
            (h.path.as_str(), h.query.as_str()),
            ("/api/page/1", "a=b&token=x")
        );
        assert_eq!(h.field("host"), Field::Once("127.0.0.1:8"));
        assert_eq!(h.body_len, 12);
        assert_eq!(h.query_values("token").collect::<Vec<_>>(), ["x"]);
    }

    #[test]
    fn refuses_what_it_does_not_speak() {
        let cases: [(&[u8], u16); 9] = [
            (b"GET http://evil/ HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/2\r\n\r\n", 505),
            (b"GET /  HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\n folded\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nA: \x01\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            (
                b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                400,
            ),
            (
                b"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                413,
            ),
            (b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        ];
        for (bytes, expected) in cases {
            assert_eq!(status(parse_head(bytes)), expected, "{bytes:?}");
        }
        assert_eq!(status(parse_head(b"\xff\xfe\r\n\r\n")), 400);
    }

    #[test]
    fn finds_the_end_of_a_head_arriving_in_pieces() {
        let buf = b"GET / HTTP/1.1\r\nHost: x\r\n\r\nbody";
        assert_eq!(head_end(&buf[..20], 0), None);
        assert_eq!(head_end(buf, 26), Some(27));
        assert_eq!(head_end(buf, 0), Some(27));
        assert_eq!(head_end(b"", 0), None);
    }
}
