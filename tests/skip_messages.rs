//! The messages of ignored tests name what they need relative to the
//! repository (`../shared/corpora`), never a path of one machine.

mod common;

/// The `#[ignore = "..."]` reasons in the Rust files under `dir`.
fn ignore_reasons(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            ignore_reasons(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("#[ignore = \"") {
                    out.push((path.display().to_string(), rest.to_string()));
                }
            }
        }
    }
}

#[test]
fn skip_messages_name_paths_relative_to_the_repository() {
    let mut reasons = Vec::new();
    for dir in ["tests", "src"] {
        ignore_reasons(&common::root().join(dir), &mut reasons);
    }
    assert!(reasons.len() > 5, "{reasons:?}");
    for (file, reason) in &reasons {
        let absolute = ["/work/", "/home/", "/Users/", "/tmp/", "C:\\"]
            .iter()
            .any(|p| reason.contains(p));
        assert!(!absolute, "{file}: {reason}");
        if reason.contains("corpora") {
            assert!(reason.contains("../shared/corpora"), "{file}: {reason}");
        }
    }
}
