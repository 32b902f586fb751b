//! Throughput measurement: the whole pipeline against its floor, html5ever
//! parsing the same pages into our arena DOM.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::extract::Extractor;
use crate::parse::{self, charset};

/// What the timed extraction produces from each page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchOutput {
    /// The main text (what `extract` writes by default).
    Text,
    /// Markdown: the structure is recorded and rendered.
    Markdown,
    /// Clean HTML: the structure is recorded and rendered.
    Html,
}

/// Timings of one benchmark run over a set of pages.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Pages timed.
    pub pages: usize,
    /// Bytes of HTML (after gunzip).
    pub bytes: u64,
    /// Rounds over the pages (the best round is reported).
    pub rounds: usize,
    /// Seconds of the best round of html5ever parsing alone.
    pub parse_seconds: f64,
    /// Seconds of the best round of end-to-end extraction.
    pub extract_seconds: f64,
    /// What the extraction produced.
    pub output: BenchOutput,
    /// Seconds of the best round of plain-text extraction, timed in rounds
    /// alternating with the structured output's (Markdown, HTML), so that
    /// the machine's load weighs on both alike.
    pub text_seconds: Option<f64>,
    /// Pages that failed to extract.
    pub failures: usize,
    /// Peak resident memory of the process in bytes (Linux `VmHWM`), if known.
    pub peak_rss_bytes: Option<u64>,
}

/// Peak resident set size of this process (Linux: `VmHWM` in
/// `/proc/self/status`); `None` elsewhere.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl BenchReport {
    /// End-to-end time over parse-only time.
    pub fn ratio(&self) -> f64 {
        self.extract_seconds / self.parse_seconds.max(1e-12)
    }

    /// A plain-text summary.
    pub fn table(&self) -> String {
        let mb = self.bytes as f64 / 1e6;
        let line = |name: &str, s: f64| {
            format!(
                "{name:<22} {s:>9.3} s {:>9.1} pages/s {:>8.1} MB/s\n",
                self.pages as f64 / s.max(1e-12),
                mb / s.max(1e-12)
            )
        };
        let mut out = format!(
            "{} pages, {:.1} MB of HTML, best of {} rounds, one thread\n",
            self.pages, mb, self.rounds
        );
        out.push_str(&line("html5ever parse only", self.parse_seconds));
        let name = match self.output {
            BenchOutput::Text => "dechrome extract",
            BenchOutput::Markdown => "extract to Markdown",
            BenchOutput::Html => "extract to HTML",
        };
        out.push_str(&line(name, self.extract_seconds));
        if let Some(t) = self.text_seconds {
            out.push_str(&line("text, alternating", t));
            out.push_str(&format!(
                "cost over text         {:+.1}%\n",
                100.0 * (self.extract_seconds / t.max(1e-12) - 1.0)
            ));
        }
        out.push_str(&format!("ratio extract / parse  {:.2}\n", self.ratio()));
        if let Some(rss) = self.peak_rss_bytes {
            out.push_str(&format!(
                "peak RSS               {:.1} MB (pages held in memory included)\n",
                rss as f64 / 1e6
            ));
        }
        if self.failures > 0 {
            out.push_str(&format!("{} pages failed\n", self.failures));
        }
        out
    }
}

/// Decodes pages once (gunzip, charset) so that timing covers parsing and
/// extraction only; returns the decoded HTML strings.
pub fn decode_pages(raw: &[Vec<u8>], max_bytes: usize) -> Vec<String> {
    raw.iter()
        .map(|b| {
            let bytes = if charset::is_gzip(b) {
                charset::gunzip_bounded(b, max_bytes).0
            } else {
                b.clone()
            };
            charset::decode(&bytes, None).0.into_owned()
        })
        .collect()
}

/// Times html5ever parsing alone and the whole extraction over `pages`, on
/// the calling thread, `rounds` times each; keeps the best round of each.
pub fn run(extractor: &Extractor, pages: &[String], rounds: usize) -> BenchReport {
    run_with(extractor, pages, rounds, BenchOutput::Text, None)
}

/// Like [`run`], producing `output` from each page; Markdown and HTML need
/// an extractor that records the structure
/// ([`ExtractorConfig::structure`](crate::ExtractorConfig::structure)).
/// With `text`, an extractor that does not, plain-text extraction is timed
/// too, in rounds alternating with the others.
pub fn run_with(
    extractor: &Extractor,
    pages: &[String],
    rounds: usize,
    output: BenchOutput,
    text: Option<&Extractor>,
) -> BenchReport {
    let rounds = rounds.max(1);
    let mut best_parse = Duration::MAX;
    let mut best_extract = Duration::MAX;
    let mut best_text = Duration::MAX;
    let mut failures = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let mut nodes = 0usize;
        for p in pages {
            nodes += parse::parse_only(p);
        }
        std::hint::black_box(nodes);
        best_parse = best_parse.min(t.elapsed());

        let t = Instant::now();
        failures = 0;
        for p in pages {
            match extractor.extract_str(p) {
                Ok(e) => {
                    let n = match output {
                        BenchOutput::Text => e.text.len(),
                        BenchOutput::Markdown => e.markdown().map_or(0, |m| m.len()),
                        BenchOutput::Html => e.html().map_or(0, |h| h.len()),
                    };
                    std::hint::black_box(n);
                }
                Err(_) => failures += 1,
            }
        }
        best_extract = best_extract.min(t.elapsed());

        if let Some(text) = text {
            let t = Instant::now();
            for p in pages {
                if let Ok(e) = text.extract_str(p) {
                    std::hint::black_box(e.text.len());
                }
            }
            best_text = best_text.min(t.elapsed());
        }
    }
    BenchReport {
        pages: pages.len(),
        bytes: pages.iter().map(|p| p.len() as u64).sum(),
        rounds,
        parse_seconds: best_parse.as_secs_f64(),
        extract_seconds: best_extract.as_secs_f64(),
        output,
        text_seconds: text.map(|_| best_text.as_secs_f64()),
        failures,
        peak_rss_bytes: peak_rss_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_times_both_and_reports_memory() {
        let ex = Extractor::kmeans(crate::ExtractorConfig::default()).unwrap();
        let pages = vec![
            "<p>one two three</p>".to_string(),
            "<div>four</div>".to_string(),
        ];
        let r = run(&ex, &pages, 2);
        assert_eq!((r.pages, r.rounds, r.failures), (2, 2, 0));
        assert!(r.parse_seconds > 0.0 && r.extract_seconds > 0.0);
        if cfg!(target_os = "linux") {
            assert!(r.peak_rss_bytes.unwrap() > 0);
        }
        assert!(r.table().contains("pages/s"));
    }
}
