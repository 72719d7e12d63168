//! The report as `--report-json` writes it: every field, as the data holds it.

use super::data::LoadReport;

impl LoadReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }
}
