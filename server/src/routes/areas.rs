//! `/api/areas`, `/api/areas/{set}[.geojson|.parquet]`, `/api/areas/{set}/{id}`: the sets of the latest
//! file, over the count points of the release served. Each answer is tagged by the release
//! and its question, which names every set's SHA-256 it reads: replacing a set changes the tag.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse};

use super::tagged::whole_answer;
use crate::areas::{parquet, written, AreasOf, StoredSet};
use crate::error::ApiError;
use crate::forms::Form;
use crate::query::{php, Query};
use crate::release::Release;
use crate::rows::{self, Page};
use crate::state::AppState;

/// `/api/areas`: every set, as a JSON array.
pub async fn sets(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
) -> Result<HttpResponse, ApiError> {
    let sets = AreasOf::new(state, &release)?.sets()?;
    let versions: Vec<String> = (sets.sets.iter())
        .map(|s| format!("{:?} {}", s.info.name, s.info.sha256))
        .collect();
    let key = format!("areas {versions:?}");
    let make = move |_: &Release| written::sets(&sets);
    whole_answer(req, state, release, key, Form::Json.content_type(), 0, make).await
}

/// `/api/areas/{set}`: a page of its areas in the envelope; `.geojson`: all of them as a
/// FeatureCollection; `.parquet`: all of them as GeoParquet. A 404 for a set not stored.
pub async fn set(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    (name, form): (&str, Form),
) -> Result<HttpResponse, ApiError> {
    let areas = AreasOf::new(state, &release)?;
    let set = areas.set(name)?.ok_or_else(|| ApiError::no_route(req))?;
    let content_type = form.content_type();
    // The members are assigned on the blocking pool, the first time only.
    if form == Form::GeoJson {
        let key = format!("areas {} collection", version(&set));
        let make = move |_: &Release| written::collection(&set, &*areas.members(&set)?);
        return whole_answer(req, state, release, key, content_type, 0, make).await;
    }
    if form == Form::Parquet {
        let key = format!("areas {} geoparquet", version(&set));
        let make = move |_: &Release| parquet::file(&set, &*areas.members(&set)?);
        return whole_answer(req, state, release, key, content_type, 0, make).await;
    }
    let params = query.php();
    let (number, size) = rows::page_asked(params, state.config.max_page_size)?;
    let path = format!(
        "{}{}",
        state.config.public_base(req),
        req.path().trim_end_matches('/')
    );
    let key = format!(
        "areas {} {path}?{}",
        version(&set),
        php::page_query(params, &number)
    );
    let page = Page {
        number,
        size,
        total: set.areas().len() as i64,
    };
    let params = params.clone();
    let make = move |_: &Release| {
        let members = areas.members(&set)?;
        written::page((&set, &members), page, (path, params))
    };
    whole_answer(req, state, release, key, content_type, size, make).await
}

/// `/api/areas/{set}/{id}`: one area as a GeoJSON Feature; a 404 for a set or an id not
/// stored.
pub async fn area(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (name, id): (&str, &str),
) -> Result<HttpResponse, ApiError> {
    let areas = AreasOf::new(state, &release)?;
    let set = areas.set(name)?.ok_or_else(|| ApiError::no_route(req))?;
    let index = set.index_of(id).ok_or_else(|| ApiError::no_route(req))?;
    let key = format!("areas {} area {id:?}", version(&set));
    let make = move |_: &Release| {
        let members = areas.members(&set)?;
        let feature = written::feature(&set, &members, index as usize);
        serde_json::to_vec(&feature).map_err(ApiError::internal)
    };
    whole_answer(
        req,
        state,
        release,
        key,
        Form::GeoJson.content_type(),
        0,
        make,
    )
    .await
}

/// A set as its answers' keys name it: its name and its file's SHA-256.
fn version(set: &StoredSet) -> String {
    format!("{:?} {}", set.info.name, set.info.sha256)
}
