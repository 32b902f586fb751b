//! What `train` shows while it runs: the pages being prepared, then each
//! stage (cross-validation, baseline, ablation, final fit) and each fold
//! as it ends, with an estimate of the time left. On a terminal, as bars;
//! otherwise (a log, a pipe) as plain lines; nothing with `--quiet`.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use dechrome::train::TrainProgress;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// indicatif bars on standard error (a terminal), notes as lines.
    Bars,
    /// Plain lines on standard error: one per stage and fold, and notes.
    Lines,
    /// Nothing (`--quiet`).
    Nothing,
}

/// The stage under way.
struct Stage {
    name: String,
    folds: usize,
    done: usize,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
}

/// A [`TrainProgress`] for the command line.
pub struct Progress {
    show: Show,
    pages: Mutex<Option<indicatif::ProgressBar>>,
    stage: Mutex<Option<Stage>>,
}

impl Progress {
    /// Progress shown as `show` says.
    pub fn new(show: Show) -> Self {
        Progress {
            show,
            pages: Mutex::new(None),
            stage: Mutex::new(None),
        }
    }

    /// A line on standard error, above any bar.
    fn line(&self, line: &str) {
        if self.show == Show::Nothing {
            return;
        }
        let stage = self.stage.lock().unwrap_or_else(|e| e.into_inner());
        match stage.as_ref().and_then(|s| s.bar.as_ref()) {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

/// `d` in words: `42 s`, `3 min 5 s`, `1 h 2 min`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// The time left when `done` of `total` steps took `elapsed`.
pub fn estimate(elapsed: Duration, done: usize, total: usize) -> Option<Duration> {
    (done > 0 && done <= total).then(|| elapsed.mul_f64((total - done) as f64 / done as f64))
}

/// A bar for a stage of `folds` folds (a spinner when 0).
fn stage_bar(name: &str, folds: usize) -> indicatif::ProgressBar {
    let (bar, template) = if folds > 0 {
        (
            indicatif::ProgressBar::new(folds as u64),
            format!("{{spinner}} {name}: fold {{pos}}/{{len}} [{{bar:20}}] {{elapsed}}, about {{eta}} left"),
        )
    } else {
        (
            indicatif::ProgressBar::new_spinner(),
            format!("{{spinner}} {name} {{elapsed}}"),
        )
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

impl TrainProgress for Progress {
    fn preparing(&self, pages: usize) {
        self.line(&format!("preparing {pages} pages"));
        if self.show == Show::Bars {
            *self.pages.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(super::progress(pages as u64, "pages"));
        }
    }

    fn page_done(&self) {
        if let Some(bar) = self
            .pages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            bar.inc(1);
        }
    }

    fn prepared(&self) {
        if let Some(bar) = self.pages.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
    }

    fn note(&self, line: &str) {
        self.line(line);
    }

    fn stage(&self, name: &str, folds: usize) {
        if self.show == Show::Nothing {
            return;
        }
        if self.show == Show::Lines {
            match folds {
                0 => eprintln!("{name}: started"),
                _ => eprintln!("{name}: {folds} folds"),
            }
        }
        let bar = (self.show == Show::Bars).then(|| stage_bar(name, folds));
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = Some(Stage {
            name: name.to_string(),
            folds,
            done: 0,
            start: Instant::now(),
            bar,
        });
    }

    fn fold_done(&self) {
        let mut stage = self.stage.lock().unwrap_or_else(|e| e.into_inner());
        let Some(s) = stage.as_mut() else { return };
        s.done += 1;
        if let Some(bar) = &s.bar {
            bar.inc(1);
            return;
        }
        let elapsed = s.start.elapsed();
        let left = match estimate(elapsed, s.done, s.folds) {
            Some(left) if s.done < s.folds => format!(", about {} left", duration(left)),
            _ => String::new(),
        };
        eprintln!(
            "{}: fold {}/{} done after {}{left}",
            s.name,
            s.done,
            s.folds,
            duration(elapsed)
        );
    }

    fn stage_done(&self) {
        let Some(s) = self.stage.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        if let Some(bar) = &s.bar {
            bar.finish_and_clear();
        }
        eprintln!("{}: done in {}", s.name, duration(s.start.elapsed()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_and_durations_read_as_words() {
        assert_eq!(
            estimate(Duration::from_secs(40), 2, 5),
            Some(Duration::from_secs(60))
        );
        assert_eq!(estimate(Duration::from_secs(40), 0, 5), None);
        assert_eq!(duration(Duration::from_secs(42)), "42 s");
        assert_eq!(duration(Duration::from_secs(185)), "3 min 5 s");
        assert_eq!(duration(Duration::from_secs(3720)), "1 h 2 min");
    }
}
