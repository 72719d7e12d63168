//! What a fetch shows while it works: a bar per file on a terminal (size, rate, ETA), a line
//! per file and per retry otherwise, nothing with `--quiet`.

use std::time::Duration;

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// A progress bar per file (stderr is a terminal).
    Bar,
    /// A line per file and per retry.
    Lines,
    Nothing,
}

/// One file's progress.
pub struct FileProgress {
    show: Show,
    name: String,
    bar: Option<ProgressBar>,
}

impl FileProgress {
    pub fn new(show: Show, name: &str) -> Self {
        let bar = (show == Show::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
            bar.set_prefix(name.to_string());
            bar
        });
        FileProgress {
            show,
            name: name.to_string(),
            bar,
        }
    }

    /// A body starts, `from` bytes in, of `total` if known.
    pub fn start(&self, from: u64, total: Option<u64>) {
        let Some(bar) = &self.bar else { return };
        let template = match total {
            Some(_) => "{prefix} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            None => "{prefix} {spinner} {bytes} {binary_bytes_per_sec}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_length(total.unwrap_or(0));
        bar.reset_eta();
        bar.set_position(from);
    }

    pub fn advance(&self, held: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(held);
        }
    }

    pub fn retrying(&self, why: &str, wait: Duration) {
        self.say(&format!(
            "{}: {why}; trying again in {:.0} s",
            self.name,
            wait.as_secs_f64()
        ));
    }

    /// The file is done: the bar gives way to a line saying how it went.
    pub fn done(&self, line: &str) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        self.say(line);
    }

    fn say(&self, line: &str) {
        match (&self.bar, self.show) {
            (Some(bar), _) => bar.suspend(|| eprintln!("{line}")),
            (None, Show::Lines) => eprintln!("{line}"),
            _ => {}
        }
    }
}

/// `12.3 MiB in 4.1 s (3.0 MiB/s)`
pub fn transfer(bytes: u64, seconds: f64) -> String {
    let rate = bytes as f64 / seconds.max(1e-3);
    format!(
        "{} in {seconds:.1} s ({}/s)",
        HumanBytes(bytes),
        HumanBytes(rate as u64)
    )
}
