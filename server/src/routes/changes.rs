//! `<base-path>/releases/latest/changes` (`table::CHANGES_PATH`): what changed with the release
//! being served, since the file its load replaced (rows added, removed and changed per table and
//! year, count points new and retired, the largest revisions), as JSON: the report the loader
//! printed and kept in the file (`roadtraffic_catalog::changes::ChangeReport`). A mirror's own
//! path: the public service has no such endpoint.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

use crate::cache::Encoding;
use crate::error::ApiError;
use crate::state::AppState;
use crate::stream;

pub async fn latest(
    req: &HttpRequest,
    state: &AppState,
    release: std::sync::Arc<crate::release::Release>,
) -> Result<HttpResponse, ApiError> {
    // With `--compress` the compression middleware encodes the body: its tag is then weak.
    let encoding = Encoding::negotiate(req, state.config.compress);
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((
            header::ETAG,
            encoding.etag(format!("\"{}-changes\"", release.tag)),
        ));
    stream::respond(head, move |_| {
        let report = release.changes()?.ok_or_else(|| {
            ApiError::NotHeld(
                "No change report: the load that built the served file replaced no earlier file."
                    .into(),
            )
        })?;
        serde_json::to_vec(&report).map_err(ApiError::internal)
    })
    .await
}
