//! The progress bar on stderr while the rows are read: bytes read, rows, rows per second, ETA.
//! Drawn only when asked (a terminal, not `--quiet`).

use std::cell::Cell;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on stderr: bytes read, rows, rows per second, ETA.
pub struct Progress {
    bar: Option<ProgressBar>,
    done_bytes: Cell<u64>,
    rows: Cell<u64>,
    started: Instant,
}

impl Progress {
    pub fn new(enabled: bool, total_bytes: u64) -> Self {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total_bytes),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            done_bytes: Cell::new(0),
            rows: Cell::new(0),
            started: Instant::now(),
        }
    }

    /// `new_rows` more rows read, and the reader is this far into the current source.
    pub fn update(&self, bytes_in_source: u64, new_rows: u64) {
        self.rows.set(self.rows.get() + new_rows);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done_bytes.get() + bytes_in_source);
            let rows = self.rows.get();
            let rate = rows as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{rows} rows, {rate:.0} rows/s"));
        }
    }

    /// A source of `source_bytes` read to its end.
    pub fn source_done(&self, source_bytes: u64) {
        self.done_bytes.set(self.done_bytes.get() + source_bytes);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done_bytes.get());
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
