//! The change report between two kept releases (`roadtraffic_releases::diff::compare`), for
//! `/releases/{new}/changes?since={old}`: computed once per pair, and kept with the newer
//! release (a new file starts with none). A comparison reads both releases whole (seconds, and
//! a core per side, on full-size data), so one runs at a time in the whole server, on the
//! blocking pool; a request for a report being made waits for it rather than making another.

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use roadtraffic_releases::{diff, KeptRelease, Storage};

use crate::error::ApiError;
use crate::release::Release;

/// The reports made for one release, as JSON, by the id of the older release compared.
#[derive(Default)]
struct Reports(Mutex<HashMap<String, Arc<Vec<u8>>>>);

impl Reports {
    fn get(&self, old: &str) -> Option<Arc<Vec<u8>>> {
        let reports = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        reports.get(old).cloned()
    }

    fn keep(&self, old: &str, report: Arc<Vec<u8>>) {
        let mut reports = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        reports.insert(old.to_string(), report);
    }
}

/// The turn to compare: one comparison at a time.
fn turn() -> &'static tokio::sync::Mutex<()> {
    static TURN: OnceLock<tokio::sync::Mutex<()>> = OnceLock::new();
    TURN.get_or_init(|| tokio::sync::Mutex::new(()))
}

/// The report of what changed from `old` to `new` (both kept beside `db`) as JSON, kept with
/// `served`, the newer release opened.
pub async fn report(
    db: &Path,
    old: &KeptRelease,
    new: &KeptRelease,
    served: &Release,
) -> Result<Arc<Vec<u8>>, ApiError> {
    let made = served
        .kept
        .get_or_make(|| Ok::<_, Infallible>(Reports::default()));
    let reports = made.unwrap_or_else(|never| match never {});
    if let Some(report) = reports.get(&old.id) {
        return Ok(report);
    }
    let _turn = turn().lock().await;
    // Made while this request waited its turn.
    if let Some(report) = reports.get(&old.id) {
        return Ok(report);
    }
    let (before, after) = (Storage::of(db, old), Storage::of(db, new));
    let report = actix_web::rt::task::spawn_blocking(move || {
        let report = diff::compare(&before, &after).map_err(ApiError::internal)?;
        serde_json::to_vec(&report).map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)??;
    let report = Arc::new(report);
    reports.keep(&old.id, report.clone());
    Ok(report)
}
