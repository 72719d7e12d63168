//! The website: server-rendered HTML pages at the public site's paths, readable with scripts
//! off; one script adds the map. Everything a page needs is served by this binary. Their
//! layout, shared with every HTML page of the server, is `crate::html`.
//!
//! - `assets`: the stylesheet, the map's script and outline, embedded, with hashed names;
//! - `summary`: what is learnt once per loaded file (the map's points, areas, headline figures);
//! - `chart`: line charts drawn on the server as SVG;
//! - `format`: numbers, units and road categories as people read them;
//! - `pages`: one module per kind of page, each a query on the blocking pool and a template.

pub mod assets;
mod chart;
mod format;
mod pages;
pub mod summary;

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse};
use maud::Markup;

use crate::cache::Form;
use crate::error::ApiError;
use crate::html;
use crate::release::Release;
use crate::startup::AppState;

pub use summary::Summary;

/// The answer to a request for a page of the site, or `None` when the path is not the site's.
pub async fn respond(req: &HttpRequest, state: &AppState) -> Option<HttpResponse> {
    let page = Page::of(req.path())?;
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Some(html::error_page(&ApiError::MethodNotAllowed(
            req.method().to_string(),
        )));
    }
    if let Page::Asset(name) = &page {
        return Some(assets::serve(req, state, name).await);
    }
    let query = req.query_string().to_string();
    let key = format!("site {}?{query}", req.path());
    let result = render(state, key, move |view| page.render(view, &query)).await;
    let mut response = result.unwrap_or_else(|e| html::error_page(&e));
    let found = response.status().is_success();
    if let Some(link) = canonical(req, state.config.public_url.as_deref()).filter(|_| found) {
        response.headers_mut().insert(header::LINK, link);
    }
    Some(response)
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
/// JSON 404).
pub fn not_found_for_browser(req: &HttpRequest) -> Option<HttpResponse> {
    let accepts = req.headers().get(header::ACCEPT)?.to_str().ok()?;
    accepts
        .contains("text/html")
        .then(|| html::error_page(&ApiError::NotFound(req.path().to_string())))
}

/// The site's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Page {
    Home,
    Regions,
    Region(Option<i64>),
    LocalAuthorities,
    LocalAuthority(Option<i64>),
    CountPoint(Option<i64>),
    About,
    Asset(String),
}

impl Page {
    fn of(path: &str) -> Option<Page> {
        let trimmed = path.strip_suffix('/').filter(|p| !p.is_empty());
        let path = trimmed.unwrap_or(path);
        let id = |s: &str| s.parse::<i64>().ok().filter(|id| *id >= 0);
        Some(match path {
            "/" => Page::Home,
            "/regions" => Page::Regions,
            "/local-authorities" => Page::LocalAuthorities,
            "/about" => Page::About,
            _ => {
                let (kind, rest) = path[1..].split_once('/')?;
                match kind {
                    "regions" => Page::Region(id(rest)),
                    "local-authorities" => Page::LocalAuthority(id(rest)),
                    "manualcountpoints" => Page::CountPoint(id(rest)),
                    "assets" => Page::Asset(rest.to_string()),
                    _ => return None,
                }
            }
        })
    }

    fn render(self, view: &View, query: &str) -> Result<Markup, ApiError> {
        let missing = || ApiError::NotFound(String::new());
        match self {
            Page::Home => pages::home::render(view, query),
            Page::Regions => pages::regions::list(view),
            Page::Region(id) => pages::regions::one(view, id.ok_or_else(missing)?),
            Page::LocalAuthorities => pages::local_authority::list(view),
            Page::LocalAuthority(id) => {
                pages::local_authority::one(view, id.ok_or_else(missing)?, query)
            }
            Page::CountPoint(id) => pages::count_point::render(view, id.ok_or_else(missing)?),
            Page::About => pages::about::render(view),
            Page::Asset(_) => Err(missing()),
        }
    }
}

/// What a page is rendered from: the loaded file, a connection to it (with the query time
/// limit), and what was learnt of it once.
pub struct View<'a> {
    pub release: &'a Release,
    pub conn: &'a rusqlite::Connection,
    pub summary: &'a Summary,
    /// The API's base path (`/api`), for links to its listings.
    pub api_base: &'a str,
}

/// Renders a page on the blocking pool, where SQLite runs, and sends it; a page is a pure
/// function of the loaded file and its path and query (`key`), so it is kept in the file's
/// response cache and rendered once while it stays there.
async fn render<F>(state: &AppState, key: String, page: F) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(&View) -> Result<Markup, ApiError> + Send + 'static,
{
    let release = state.current.get()?;
    if let Some(kept) = release.responses.get(&key, Form::Identity) {
        return Ok(html::send_page(kept));
    }
    let cache = release.clone();
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let api_base = state.config.base_path().to_string();
    let markup = web::block(move || {
        let conn = release.pool.get()?;
        let summary = summary::of(&release, &conn)?;
        let started = Instant::now();
        conn.progress_handler(10_000, Some(move || started.elapsed() > time_limit))?;
        let view = View {
            release: &release,
            conn: &conn,
            summary: &summary,
            api_base: &api_base,
        };
        let result = page(&view);
        // The connection goes back to the pool without the handler, whatever happened.
        conn.progress_handler(0, None::<fn() -> bool>)?;
        result
    })
    .await
    .map_err(ApiError::internal)??;
    let (page, _) = cache
        .responses
        .keep(key, markup.into_string().into_bytes(), Form::Identity);
    Ok(html::send_page(page))
}

/// The summary of the release being served, learnt now if it was not yet.
pub async fn current_summary(state: &AppState) -> Result<(Arc<Release>, Arc<Summary>), ApiError> {
    let release = state.current.get()?;
    if let Some(summary) = release.site.get() {
        return Ok((release.clone(), summary.clone()));
    }
    let summary = web::block(move || {
        let conn = release.pool.get()?;
        summary::of(&release, &conn).map(|s| (release.clone(), s))
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(summary)
}
