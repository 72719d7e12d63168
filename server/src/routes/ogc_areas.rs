//! OGC API - Features' area collections (`/ogcapi/collections/areas-{set}...`): the set
//! resolved against the latest file's sets (a `404` naming the collections for one not
//! stored), then the collection, its queryables and schema, a window of its areas or one,
//! each tagged as OGC's other answers (`tagged`), known by the set's name and SHA-256 as well
//! as the question: the sets are the latest file's, the figures the release's.

use std::sync::Arc;

use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::Value;

use super::ogc::{finished, Asked};
use super::tagged::whole_answer;
use crate::areas::{AreasOf, StoredSet};
use crate::error::ApiError;
use crate::forms::Form;
use crate::ogc::areas::{self, AreaItems, AreaPart};
use crate::ogc::items::ItemLinks;
use crate::ogc::links::{GEOJSON, JSON, SCHEMA};
use crate::ogc::{html, query as ogc_query};
use crate::release::Release;
use crate::spatial::Crs;
use crate::state::AppState;
use crate::vehicle_km::Latest;

pub async fn answer(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (name, part): (String, AreaPart),
    asked: Asked,
) -> Result<HttpResponse, ApiError> {
    let areas = Arc::new(AreasOf::new(state, &release)?);
    let found = {
        let (areas, name) = (areas.clone(), name.clone());
        web::block(move || areas.set(&name))
            .await
            .map_err(ApiError::internal)??
    };
    let Some(set) = found else {
        return Err(ApiError::NotHeld(format!(
            "No collection `{}`: no area set `{name}` is stored. The collections are listed at {}.",
            areas::collection_id(&name),
            asked.urls.ogc("/collections")
        )));
    };
    let format = asked.format;
    let features = matches!(part, AreaPart::Items | AreaPart::Item(_));
    let content_type = match (format, &part) {
        (Form::Html, _) => Form::Html.content_type(),
        (_, AreaPart::Items | AreaPart::Item(_)) => GEOJSON,
        (_, AreaPart::Queryables | AreaPart::Schema) => SCHEMA,
        _ => JSON,
    };
    let (key, make) = match part {
        AreaPart::Items => items(&set, areas, asked)?,
        AreaPart::Item(id) => item(&set, areas, asked, id)?,
        document => describe(&set, asked, document)?,
    };
    let key = format!("{key} set {} {}", set.info.name, set.info.sha256);
    let answer = whole_answer(req, state, release, key, content_type, 0, make).await?;
    Ok(finished(answer, format, features.then_some(Crs::Crs84)))
}

/// How an answer is made on the blocking pool, from the release served.
type Make = Box<dyn FnOnce(&Release) -> Result<Vec<u8>, ApiError> + Send>;

/// The collection, its queryables or its schema.
fn describe(
    set: &Arc<StoredSet>,
    asked: Asked,
    part: AreaPart,
) -> Result<(String, Make), ApiError> {
    ogc_query::document(&asked.params)?;
    let Asked {
        urls,
        format,
        frame,
        ..
    } = asked;
    let key = format!(
        "{} {part:?} {format:?} {}",
        urls.ogc(""),
        env!("CARGO_PKG_VERSION")
    );
    let set = set.clone();
    let make = move |_: &Release| {
        let (title, doc) = match part {
            AreaPart::Queryables => ("its properties", areas::queryables(&urls, &set)),
            AreaPart::Schema => (
                "the schema of its features",
                areas::feature_schema(&urls, &set),
            ),
            _ => ("the collection", areas::collection(&urls, format, &set)),
        };
        let title = format!("Areas of {}: {title}", set.info.name);
        Ok(match format {
            Form::Html => html::document(&frame, &title, &doc).into_bytes(),
            _ => doc.to_string().into_bytes(),
        })
    };
    Ok((key, Box::new(make)))
}

/// Where the set's items are, for their links.
fn links_of(asked: &Asked, set: &StoredSet) -> ItemLinks {
    let collection = (asked.urls).ogc(&format!(
        "/collections/{}",
        areas::collection_id(&set.info.name)
    ));
    ItemLinks {
        url: format!("{collection}/items"),
        collection,
        params: asked.params.clone(),
        format: asked.format,
    }
}

/// A window of the set's areas.
fn items(
    set: &Arc<StoredSet>,
    areas: Arc<AreasOf>,
    asked: Asked,
) -> Result<(String, Make), ApiError> {
    let items = AreaItems::parse(&asked.params)?;
    let links = links_of(&asked, set);
    let (key, url) = (links.key(&links.url), links.url.clone());
    let (set, frame, format) = (set.clone(), asked.frame, asked.format);
    let make = move |release: &Release| {
        let members = areas.members(&set)?;
        let latest = Latest::of(&*release.connection()?, &set, &members)?;
        let doc = areas::items((&set, &members, &latest), &items, &links);
        Ok(match format {
            Form::Html => html::area_items(&frame, &set.info.name, &doc, &url).into_bytes(),
            _ => doc.to_string().into_bytes(),
        })
    };
    Ok((key, Box::new(make)))
}

/// One area by its id; a 404 for one the set does not have.
fn item(
    set: &Arc<StoredSet>,
    areas: Arc<AreasOf>,
    asked: Asked,
    id: String,
) -> Result<(String, Make), ApiError> {
    areas::feature_params(&asked.params)?;
    let links = links_of(&asked, set);
    let key = links.key(&areas::item_url(&links.url, &id));
    let (set, frame, format) = (set.clone(), asked.frame, asked.format);
    let make = move |release: &Release| {
        let no_area = || {
            let collection = areas::collection_id(&set.info.name);
            ApiError::NotHeld(format!(
                "No feature `{id}` in the collection `{collection}`."
            ))
        };
        let index = set.index_of(&id).ok_or_else(no_area)?;
        let members = areas.members(&set)?;
        let latest = Latest::of(&*release.connection()?, &set, &members)?;
        let doc: Value = areas::item((&set, &members, &latest), &id, &links).ok_or_else(no_area)?;
        Ok(match format {
            Form::Html => {
                let title = format!("{} ({})", set.areas()[index as usize].name, id);
                html::document(&frame, &title, &doc).into_bytes()
            }
            _ => doc.to_string().into_bytes(),
        })
    };
    Ok((key, Box::new(make)))
}
