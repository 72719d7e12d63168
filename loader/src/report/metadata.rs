//! What the new file's `metadata` table keeps of the report: row counts, sources, what was
//! fetched, the release and the versions that built it, for the server and the next load.

use roadtraffic_catalog::schema::{self, metadata};

use super::data::LoadReport;

impl LoadReport {
    /// Key/value rows of the metadata table.
    pub fn metadata(&self) -> Vec<(&'static str, String)> {
        let counts: serde_json::Map<String, serde_json::Value> = self
            .rows
            .iter()
            .map(|t| (t.table.clone(), t.rows.into()))
            .collect();
        let mut rows = vec![
            (metadata::SCHEMA_VERSION, schema::version()),
            (metadata::RELEASE, self.release.clone().unwrap_or_default()),
            (
                metadata::LOADED_AT,
                humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            ),
            (
                metadata::LOADER_VERSION,
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            (
                metadata::ROW_COUNTS,
                serde_json::Value::Object(counts).to_string(),
            ),
            (
                metadata::SOURCES,
                serde_json::to_string(&self.sources).expect("sources serialise"),
            ),
        ];
        if !self.fetched.is_empty() {
            let fetched = serde_json::to_string(&self.fetched).expect("fetched files serialise");
            rows.push((metadata::FETCHED, fetched));
        }
        if !self.rendered_records.is_empty() {
            let tags = serde_json::to_string(&self.rendered_records).expect("tags serialise");
            rows.push((metadata::RENDERED_RECORDS, tags));
        }
        rows
    }
}
