//! The probes' answers. Liveness (`/healthz`) says only that the process answers, so a
//! supervisor restarts a wedged process and nothing else. Readiness (`/readyz`) says whether
//! requests should be sent here: the release in service still answers a query (on a
//! connection of its own, so the probe never waits behind the API's queries). A stopping
//! server closes its listener, so both then fail to connect. Both are JSON; readiness names
//! the release, so a rollout can see which replica serves which file.

use actix_web::http::header;
use actix_web::{web, HttpResponse, HttpResponseBuilder};

use roadtraffic_catalog::json;

use crate::error::ApiError;
use crate::release::{Listing, Release};
use crate::state::AppState;

/// `/healthz`: the process answers.
pub fn alive() -> HttpResponse {
    no_store(HttpResponse::Ok()).body(r#"{"status":"ok"}"#)
}

/// `/readyz`: 200 with the release in service, or 503 with why not.
pub async fn readiness(state: &AppState) -> Result<HttpResponse, ApiError> {
    let release = state.current.get()?;
    let checked = release.clone();
    let answers = web::block(move || checked.check())
        .await
        .map_err(ApiError::internal)?;
    match answers {
        Ok(()) => {
            let listing = state.named.listing()?;
            Ok(no_store(HttpResponse::Ok()).body(describe(&release, &listing)))
        }
        Err(e) => {
            log::error!("not ready: the release in service does not answer: {e}");
            Ok(not_ready())
        }
    }
}

fn not_ready() -> HttpResponse {
    no_store(HttpResponse::ServiceUnavailable())
        .insert_header((header::RETRY_AFTER, "5"))
        .body(r#"{"status":"failing"}"#)
}

fn no_store(mut head: HttpResponseBuilder) -> HttpResponseBuilder {
    head.insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    head
}

/// The release in service: `{"status":"ready","release":..,"id":..,"loaded_at":..,
/// "serving_since":..,"schema_version":..,"rows":{table: rows, ..},"releases":[name, ..]}`: the
/// last of `releases` (those served under `/releases/{name}`, oldest first) is this one.
fn describe(release: &Release, kept: &Listing) -> Vec<u8> {
    let about = &release.about;
    let time = |t| humantime::format_rfc3339_seconds(t).to_string();
    let mut out = br#"{"status":"ready","release":"#.to_vec();
    json::opt_string(&mut out, about.label.as_deref());
    out.extend_from_slice(br#","id":"#);
    json::string(&mut out, &about.id);
    out.extend_from_slice(br#","loaded_at":"#);
    json::opt_string(&mut out, about.loaded_at.map(time).as_deref());
    out.extend_from_slice(br#","serving_since":"#);
    json::string(&mut out, &time(about.serving_since));
    out.extend_from_slice(br#","schema_version":"#);
    json::string(&mut out, &about.schema_version);
    out.extend_from_slice(br#","rows":{"#);
    for (i, (table, rows)) in release.table_rows().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(&mut out, table);
        out.push(b':');
        json::int(&mut out, rows);
    }
    out.extend_from_slice(br#"},"releases":["#);
    for (i, r) in kept.releases.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(&mut out, &r.name);
    }
    out.extend_from_slice(b"]}");
    out
}
