//! The website: server-rendered HTML pages at the public site's paths, readable with scripts
//! off; one script adds the map. Everything a page needs is served by this binary. Their
//! layout, shared with every HTML page of the server, is `crate::html`.
//!
//! - `assets`: serving the embedded files (`crate::assets`) and the map's point data;
//! - `view`: what a page is rendered from;
//! - `frame`: which kept release a page is of, and the same page in each other (its picker);
//! - `overview`: what is learnt once per loaded file (the map's points, areas, headline figures);
//! - `chart`: line charts drawn on the server as SVG (`bars`: bar charts);
//! - `format`: numbers, units and road categories as people read them;
//! - `pages`: one module per kind of page, each a query on the blocking pool and a template.

pub mod assets;
mod bars;
mod chart;
mod format;
pub mod frame;
pub mod overview;
mod pages;
mod view;

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use maud::Markup;

use crate::areas::AreasOf;
use crate::cache::Encoding;
use crate::error::ApiError;
use crate::html;
use crate::query::Query;
use crate::release::Release;
use crate::rows::{AreaLookup, NoAreas};
use crate::state::{AppState, Served};
use frame::Releases;

pub use overview::Overview;
pub use view::View;

/// The answer to a request for a page of the site (its assets are `assets::serve`'s).
pub async fn respond(
    req: &HttpRequest,
    state: &AppState,
    served: &Served,
    page: SitePage,
    query: &Query,
) -> HttpResponse {
    let query = query.clone();
    let releases = frame::of(req, state, served);
    // The page's header lists the kept releases: a page kept is one of that listing.
    let key = format!(
        "site {}?{} releases {}",
        req.path(),
        query.raw(),
        releases.key
    );
    let frame = releases.frame.clone();
    // The area sets are the latest file's: a page that shows them is known by it too.
    let areas = AreasOf::new(state, &served.release).ok().map(Arc::new);
    let key = match (page.shows_areas(), state.current.get()) {
        (true, Ok(latest)) => format!("{key} areas of {}", latest.tag),
        _ => key,
    };
    let rows = page.rows_read(&served.release, &query, areas.clone()).await;
    let result = render(state, served, (key, rows), releases, move |view| {
        page.render(view, &query, areas.as_deref())
    })
    .await;
    let mut response = result.unwrap_or_else(|e| html::error_page_in(&frame, &e));
    let found = response.status().is_success();
    if let Some(link) = canonical(req, state.config.public_url.as_deref()).filter(|_| found) {
        response.headers_mut().insert(header::LINK, link);
    }
    response
}

/// Behind a reverse proxy (`--public-url`), where a page lives for the world: a `Link` header
/// with `rel="canonical"`, so that a search engine or a shared link names the public address,
/// not the proxy's view of the server.
fn canonical(req: &HttpRequest, public_url: Option<&str>) -> Option<header::HeaderValue> {
    let base = public_url?.trim_end_matches('/');
    let mut path = req.path().to_string();
    if !req.query_string().is_empty() {
        path = format!("{path}?{}", req.query_string());
    }
    header::HeaderValue::from_str(&format!("<{base}{path}>; rel=\"canonical\"")).ok()
}

/// A 404 page for a browser that asked for a path nobody answers (API clients keep the API's
/// JSON 404), in the release `served`: its picker leads to the same path in the others.
pub fn not_found_page(req: &HttpRequest, state: &AppState, served: &Served) -> HttpResponse {
    let not_found = ApiError::NotFound(req.path().to_string());
    html::error_page_in(&frame::of(req, state, served).frame, &not_found)
}

/// The site's pages (their paths are parsed in `crate::routes::table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SitePage {
    Home,
    Regions,
    /// `None`: a path under `/regions/` that names no id.
    Region(Option<i64>),
    LocalAuthorities,
    LocalAuthority(Option<i64>),
    CountPoint(Option<i64>),
    About,
    /// Any summary of the API, asked with a form.
    Explore,
    /// `/areas`: the area sets stored.
    AreaSets,
    /// `/areas/{set}`: a set's areas.
    AreaSet(String),
    /// `/areas/{set}/{id}`: an area (its id percent-decoded).
    Area(String, String),
}

/// A page drawn, and its status: 200, or 400 for a page that shows what was wrong with the
/// question it was asked (the Explore page's), which is not kept.
pub struct Drawn {
    pub status: StatusCode,
    pub markup: Markup,
}

impl From<Markup> for Drawn {
    fn from(markup: Markup) -> Drawn {
        Drawn {
            status: StatusCode::OK,
            markup,
        }
    }
}

impl SitePage {
    /// The page of a path under `/areas/`: a set, or an area of one.
    pub fn of_areas(rest: &str) -> SitePage {
        match rest.split_once('/') {
            None => SitePage::AreaSet(crate::query::url_decode(rest)),
            Some((set, id)) => {
                SitePage::Area(crate::query::url_decode(set), crate::query::url_decode(id))
            }
        }
    }

    /// Whether the page shows the area sets (which are the latest file's).
    fn shows_areas(&self) -> bool {
        matches!(
            self,
            SitePage::AreaSets | SitePage::AreaSet(_) | SitePage::Area(..) | SitePage::Explore
        )
    }

    fn render(
        self,
        view: &View,
        query: &Query,
        areas: Option<&AreasOf>,
    ) -> Result<Drawn, ApiError> {
        let missing = || ApiError::NotFound(String::new());
        let areas_of = || areas.ok_or_else(|| ApiError::internal("the areas, not found"));
        let markup = match self {
            SitePage::Explore => return pages::explore::render(view, query, areas),
            SitePage::AreaSets => pages::area::sets(view, areas_of()?),
            SitePage::AreaSet(set) => pages::area::set(view, areas_of()?, &set, query),
            SitePage::Area(set, id) => pages::area::one(view, areas_of()?, (&set, &id), query),
            SitePage::Home => pages::home::render(view, query),
            SitePage::Regions => pages::regions::list(view),
            SitePage::Region(id) => pages::regions::one(view, id.ok_or_else(missing)?),
            SitePage::LocalAuthorities => pages::local_authority::list(view),
            SitePage::LocalAuthority(id) => {
                pages::local_authority::one(view, id.ok_or_else(missing)?, query)
            }
            SitePage::CountPoint(id) => pages::count_point::render(view, id.ok_or_else(missing)?),
            SitePage::About => pages::about::render(view),
        };
        markup.map(Drawn::from)
    }

    /// The rows of a table the page reads (the Explore page's question may read many, as the
    /// API's summary may), for a heavy permit; asked on the blocking pool, as it may learn the
    /// release's tables of totals.
    async fn rows_read(
        &self,
        release: &Arc<Release>,
        query: &Query,
        areas: Option<Arc<AreasOf>>,
    ) -> i64 {
        if *self != SitePage::Explore {
            return 0;
        }
        let (release, query) = (release.clone(), query.clone());
        let rows = web::block(move || {
            let areas: &dyn AreaLookup = match areas.as_deref() {
                Some(areas) => areas,
                None => &NoAreas,
            };
            pages::explore::rows_read(&release, &query, areas)
        });
        rows.await.unwrap_or(0)
    }
}

/// Renders a page on the blocking pool, where SQLite runs, and sends it; a page is a pure
/// function of the loaded file, its path and query and the kept releases (`key`), so it is
/// kept in the file's response cache and rendered once while it stays there (but a 400).
/// One that reads more than a few of a table's `rows` waits for a heavy permit first.
async fn render<F>(
    state: &AppState,
    served: &Served,
    (key, rows): (String, i64),
    releases: Releases,
    page: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(&View) -> Result<Drawn, ApiError> + Send + 'static,
{
    let release = served.release.clone();
    let prefix = served.prefix.clone();
    let responses = state.responses(&release);
    if let Some(kept) = responses.get(&key, Encoding::Identity) {
        return Ok(html::send_page(kept));
    }
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let api_base = state.config.base_path().to_string();
    let max_page_size = state.config.max_page_size;
    let named = state.named.clone();
    let permit = state.heavy_permit(rows).await?;
    let drawn = web::block(move || {
        let _permit = permit;
        // Learnt once per release, outside the time limit; kept, it needs no connection.
        let overview = match release.kept.get::<Overview>() {
            Some(kept) => kept,
            None => overview::of(&release, &*release.connection()?)?,
        };
        let conn = release.timed_connection(time_limit)?;
        let compared = match (&releases.shown, &releases.previous) {
            (Some(shown), Some(previous)) => Some(view::Compared {
                shown,
                previous,
                named: &named,
                time_limit,
            }),
            _ => None,
        };
        let view = View {
            release: &release,
            conn: &conn,
            overview: &overview,
            api_base: &api_base,
            max_page_size,
            prefix: &prefix,
            frame: &releases.frame,
            compared,
        };
        page(&view)
    })
    .await
    .map_err(ApiError::internal)??;
    if !drawn.status.is_success() {
        return Ok(html::send(drawn.status, drawn.markup));
    }
    let page = drawn.markup.into_string().into_bytes();
    let (page, _) = responses.keep(key, page, Encoding::Identity);
    Ok(html::send_page(page))
}

/// The summary of the release being served, learnt now if it was not yet.
pub async fn current_overview(state: &AppState) -> Result<(Arc<Release>, Arc<Overview>), ApiError> {
    let release = state.current.get()?;
    if let Some(summary) = release.kept.get::<Overview>() {
        return Ok((release.clone(), summary));
    }
    let summary = web::block(move || {
        let conn = release.pool.get()?;
        overview::of(&release, &conn).map(|s| (release.clone(), s))
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(summary)
}
