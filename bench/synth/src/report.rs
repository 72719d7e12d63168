//! What a run wrote: rows and bytes of each file, as `roadtraffic-synth` prints them.

/// Rows and bytes written to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    pub file_name: String,
    pub rows: u64,
    pub bytes: u64,
}

/// What [`crate::generate`] wrote, in a fixed file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthSummary {
    pub files: Vec<FileSummary>,
}

impl SynthSummary {
    pub fn rows(&self, file_name: &str) -> Option<u64> {
        self.files
            .iter()
            .find(|f| f.file_name == file_name)
            .map(|f| f.rows)
    }
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

impl std::fmt::Display for SynthSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for file in &self.files {
            writeln!(
                f,
                "{:>10} rows {:>14} bytes  {}",
                file.rows, file.bytes, file.file_name
            )?;
        }
        write!(f, "{:>10}      {:>14} bytes  total", "", self.total_bytes())
    }
}
