//! The one route table: every path the server answers, parsed once per request into a
//! [`Route`]. That value decides the handler (`routes::dispatch`), the metric label (with the
//! path's first segment where the route has no template), and whether only GET and HEAD are
//! answered; the description and the docs page are written from
//! the table's listing endpoints. Adding an endpoint or a page is one entry here plus its
//! handler.
//!
//! In the order a path is tried: the operator's fixed paths; the listings under the legacy base
//! path (JSON only); everything under the API's base path; everything under `/ogcapi` (the OGC
//! API); the fixed paths and prefixes of the docs, downloads and site; anything else is
//! [`Route::Unknown`].

use std::borrow::Cow;
use std::collections::HashMap;

use crate::api::{Endpoint, FACETS, REVISIONS, SUMMARY, SUMMARY_FORMS};
use crate::areas::PATH as AREAS;
use crate::configuration::Config;
use crate::forms::{Envelope, Form, Offer};
use crate::ogc::areas::AreaPart;
use crate::ogc::{self, Resource};
use crate::ops::metrics::Label;
use crate::site::SitePage;

/// What a request is for.
#[derive(Debug, Clone)]
pub enum Route {
    /// The operator's endpoints: never rate limited, never a preflight.
    Health,
    Ready,
    Metrics,
    /// A listing, in its format, in the envelope of the base path it was asked under.
    Listing(Endpoint, Envelope),
    /// `<endpoint>/revisions`: each matching record's natural key, with its record in every
    /// kept release (a JSON listing whose dataset has a natural key: `Endpoint::has_revisions`).
    Revisions(Endpoint),
    /// `<endpoint>/facets`: value counts under the listing's filters (a paginated listing).
    Facets(Endpoint),
    /// `<endpoint>/summary`, `.csv`, `.ndjson`: rows per group under the listing's filters.
    Summary(Endpoint, Form),
    /// `/api/areas`: the area sets stored.
    AreaSets,
    /// `/api/areas/{set}`: a set's areas, in the envelope (JSON), as GeoJSON (`.geojson`) or as
    /// GeoParquet (`.parquet`).
    AreaSet(String, Form),
    /// `/api/areas/{set}/{id}`: one area, a GeoJSON Feature.
    Area(String, String),
    /// The API's base path itself: a person finds the docs.
    ApiHome,
    OpenApi,
    /// What changed with the release being served (or, with `since`, since another kept one).
    Changes,
    /// `/releases`: the releases kept, oldest first.
    Releases,
    /// Any other path under the API's base path: the public service's JSON 404.
    ApiUnknown,
    /// OGC API - Features: a resource under `/ogcapi`, its collection resolved.
    Ogc(Resource),
    Docs,
    /// Where the public site keeps its API documentation: sent to `/docs`.
    DocsMoved,
    DownloadsPage,
    /// A file under `/downloads/`, by the rest of its path.
    Download(String),
    Page(SitePage),
    /// A file under `/assets/`, by its served name.
    Asset(String),
    /// Nobody's: an HTML 404 for a browser, the JSON 404 for anyone else.
    Unknown,
}

/// The operator's paths, tried before any other.
const OPERATIONS: &[(&str, Route)] = &[
    ("/healthz", Route::Health),
    ("/readyz", Route::Ready),
    ("/metrics", Route::Metrics),
];

/// Exact paths outside the API's base path.
const FIXED: &[(&str, Route)] = &[
    ("/docs", Route::Docs),
    ("/docs/", Route::Docs),
    ("/docs/index.html", Route::DocsMoved),
    ("/api-documentation", Route::DocsMoved),
    ("/downloads", Route::DownloadsPage),
    ("/downloads/", Route::DownloadsPage),
];

/// The site's pages at fixed paths (a trailing `/` is the same page).
const PAGES: &[(&str, SitePage)] = &[
    ("/", SitePage::Home),
    ("/regions", SitePage::Regions),
    ("/local-authorities", SitePage::LocalAuthorities),
    ("/about", SitePage::About),
    ("/explore", SitePage::Explore),
    ("/areas", SitePage::AreaSets),
];

/// Files under `/downloads/`, by the rest of the path as it is.
const DOWNLOADS: &str = "/downloads/";

/// The site's paths under a prefix, the rest of the path making the route (a trailing `/`
/// dropped, as for its fixed paths).
const PREFIXES: &[(&str, RestOfPath)] = &[
    ("/regions/", |id| Route::Page(SitePage::Region(page_id(id)))),
    ("/local-authorities/", |id| {
        Route::Page(SitePage::LocalAuthority(page_id(id)))
    }),
    ("/manualcountpoints/", |id| {
        Route::Page(SitePage::CountPoint(page_id(id)))
    }),
    ("/assets/", |name| Route::Asset(name.to_string())),
    ("/areas/", |rest| Route::Page(SitePage::of_areas(rest))),
];

/// How the rest of a path after a prefix makes its route.
type RestOfPath = fn(&str) -> Route;

/// The path under the API's base path of what changed with the release being served.
pub const CHANGES_PATH: &str = "/releases/latest/changes";

/// Where the kept releases are listed, and under which each is served by name:
/// `/releases/{name}/api/...`, `/releases/{name}/downloads/...`, `/releases/{name}/ogcapi/...`,
/// `/releases/{name}/changes`...
pub const RELEASES: &str = "/releases";

/// Which release a request is answered from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// The latest: the `--db` file, at the paths the public service has.
    Latest,
    /// A kept release by its name, under `/releases/{name}`: its answers never change.
    Named(String),
}

/// The table, with the configured base paths and the catalogue's endpoints.
pub struct RouteTable {
    base: String,
    legacy_base: Option<String>,
    /// Every listing endpoint, in the catalogue's order.
    endpoints: Vec<Endpoint>,
    /// Each endpoint by its path under the base path.
    by_path: HashMap<String, Endpoint>,
}

impl RouteTable {
    pub fn new(config: &Config) -> RouteTable {
        let endpoints: Vec<Endpoint> = Endpoint::all().collect();
        let by_path = endpoints.iter().map(|e| (e.path(), *e)).collect();
        RouteTable {
            base: config.base_path().to_string(),
            legacy_base: config.legacy_base_path().map(str::to_string),
            endpoints,
            by_path,
        }
    }

    /// The listing endpoints, in the catalogue's order: what the description lists.
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The release and route of a request's path: under `/releases/{name}`, the rest of the
    /// path is routed as it would be for the latest (`latest` names the latest itself).
    pub fn resolve(&self, path: &str) -> (Pin, Route) {
        let Some(rest) = path.strip_prefix(RELEASES) else {
            return (Pin::Latest, self.route(path));
        };
        let Some(rest) = rest.strip_prefix('/').filter(|r| !r.is_empty()) else {
            let listing = if rest.is_empty() || rest == "/" {
                Route::Releases
            } else {
                self.route(path)
            };
            return (Pin::Latest, listing);
        };
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let pin = match name {
            "latest" => Pin::Latest,
            _ if roadtraffic_releases::check_name(name).is_ok() => Pin::Named(name.to_string()),
            _ => return (Pin::Latest, Route::Unknown),
        };
        let route = match tail.trim_end_matches('/') {
            "changes" => Route::Changes,
            _ => self.route(&format!("/{tail}")),
        };
        match route.served_by_release() {
            true => (pin, route),
            false => (Pin::Latest, Route::Unknown),
        }
    }

    /// The route of a request's path, for the latest release.
    pub fn route(&self, path: &str) -> Route {
        if let Some(route) = exact(OPERATIONS, path) {
            return route;
        }
        let legacy = self
            .legacy_base
            .as_deref()
            .and_then(|b| path.strip_prefix(b));
        if let Some(e) = legacy.and_then(|rest| self.endpoint(rest)) {
            if e.format == Form::Json {
                return Route::Listing(e, Envelope::Legacy);
            }
        }
        let under_api = path.strip_prefix(self.base.as_str());
        if let Some(rest) = under_api.filter(|r| r.is_empty() || r.starts_with('/')) {
            return self.api_route(rest);
        }
        let under_ogc = path.strip_prefix(ogc::PREFIX);
        if let Some(rest) = under_ogc.filter(|r| r.is_empty() || r.starts_with('/')) {
            return Route::Ogc(Resource::parse(rest));
        }
        if let Some(route) = exact(FIXED, path) {
            return route;
        }
        match path.strip_prefix(DOWNLOADS) {
            Some(file) => Route::Download(file.to_string()),
            None => site_route(path),
        }
    }

    /// A path under the API's base path.
    fn api_route(&self, rest: &str) -> Route {
        match rest {
            "" | "/" => Route::ApiHome,
            "/openapi.json" => Route::OpenApi,
            _ if rest.trim_end_matches('/') == CHANGES_PATH => Route::Changes,
            _ => match self.endpoint(rest) {
                Some(e) => Route::Listing(e, Envelope::Laravel),
                None => (self.revisions(rest))
                    .or_else(|| self.totals(rest))
                    .or_else(|| areas_route(rest))
                    .unwrap_or(Route::ApiUnknown),
            },
        }
    }

    /// `<endpoint>/revisions` (one trailing `/` the same), for an endpoint that has them.
    fn revisions(&self, rest: &str) -> Option<Route> {
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let listing = rest.strip_suffix(REVISIONS)?;
        let e = self.by_path.get(listing).filter(|e| e.has_revisions())?;
        Some(Route::Revisions(*e))
    }

    /// `<endpoint>/facets` and `<endpoint>/summary[.csv|.ndjson]` (one trailing `/` the
    /// same), for a paginated listing.
    fn totals(&self, rest: &str) -> Option<Route> {
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (listing, last) = rest.rsplit_once('/')?;
        let e = self.by_path.get(listing).filter(|e| e.has_totals())?;
        if last == FACETS {
            return Some(Route::Facets(*e));
        }
        let format = SUMMARY_FORMS
            .into_iter()
            .find(|f| last.strip_prefix(SUMMARY) == Some(f.suffix()))?;
        Some(Route::Summary(*e, format))
    }

    /// The endpoint at a path under a base path; one trailing `/` is the same endpoint.
    fn endpoint(&self, rest: &str) -> Option<Endpoint> {
        let rest = rest
            .strip_suffix('/')
            .filter(|p| !p.is_empty())
            .unwrap_or(rest);
        self.by_path.get(rest).copied()
    }

    /// The metric label of a route at `path`: a listing's template (at its dataset's own path,
    /// under the base path it was asked under), an operator's path, else the path's first
    /// segment (`/docs`, `/regions`), which the metrics keep only for an answer that succeeded.
    pub fn label(&self, route: &Route, path: &str) -> Label {
        match route {
            Route::Health => Label::Template(Cow::Borrowed("/healthz")),
            Route::Ready => Label::Template(Cow::Borrowed("/readyz")),
            Route::Metrics => Label::Template(Cow::Borrowed("/metrics")),
            Route::Listing(e, envelope) => {
                let base = match envelope {
                    Envelope::Legacy => self.legacy_base.as_deref().unwrap_or_default(),
                    Envelope::Laravel => &self.base,
                };
                Label::Template(Cow::Owned(format!("{base}{}", e.own_path())))
            }
            Route::Revisions(e) => Label::Template(Cow::Owned(format!(
                "{}{}{REVISIONS}",
                self.base,
                e.own_path()
            ))),
            Route::Facets(e) => Label::Template(Cow::Owned(format!(
                "{}{}/{FACETS}",
                self.base,
                e.own_path()
            ))),
            Route::Summary(e, format) => Label::Template(Cow::Owned(format!(
                "{}{}/{SUMMARY}{}",
                self.base,
                e.own_path(),
                format.suffix()
            ))),
            Route::Ogc(resource) => Label::Template(Cow::Borrowed(resource.template())),
            Route::AreaSets => Label::Template(Cow::Owned(format!("{}{AREAS}", self.base))),
            Route::AreaSet(_, form) => Label::Template(Cow::Owned(format!(
                "{}{AREAS}/{{set}}{}",
                self.base,
                form.suffix()
            ))),
            Route::Area(..) => {
                Label::Template(Cow::Owned(format!("{}{AREAS}/{{set}}/{{id}}", self.base)))
            }
            _ => Label::Section(first_segment(path)),
        }
    }
}

/// The forms of an OGC resource: JSON, or a page; of its features, GeoJSON or a page.
const OGC_FORMS: [Form; 2] = [Form::Json, Form::Html];
const OGC_FEATURE_FORMS: [Form; 2] = [Form::GeoJson, Form::Html];

/// The form of a listing with places, as `Accept` asks: JSON in its envelope, or a page of
/// GeoJSON features.
const LISTING_PAGE_FORMS: [Form; 2] = [Form::Json, Form::GeoJson];

/// The forms of a 404 of nobody's path: the public service's JSON, or a page for a browser.
const NOT_FOUND_FORMS: [Form; 2] = [Form::Json, Form::Html];

impl Route {
    /// The forms its answer can take, and what chooses among them (`forms::negotiate`).
    pub fn offer(&self) -> Offer {
        match self {
            Route::Listing(e, Envelope::Laravel) if e.pages_as_features() => {
                Offer::Accept(&LISTING_PAGE_FORMS)
            }
            Route::Listing(e, _) => Offer::Fixed(e.format),
            Route::Summary(_, form) | Route::AreaSet(_, form) => Offer::Fixed(*form),
            Route::AreaSets => Offer::Fixed(Form::Json),
            Route::Area(..) => Offer::Fixed(Form::GeoJson),
            Route::Ready | Route::Revisions(_) | Route::Facets(_) | Route::OpenApi => {
                Offer::Fixed(Form::Json)
            }
            Route::Changes | Route::Releases | Route::ApiUnknown => Offer::Fixed(Form::Json),
            Route::Ogc(Resource::Items(_) | Resource::Item(..)) => Offer::Ogc(&OGC_FEATURE_FORMS),
            Route::Ogc(Resource::Areas(_, AreaPart::Items | AreaPart::Item(_))) => {
                Offer::Ogc(&OGC_FEATURE_FORMS)
            }
            Route::Ogc(_) => Offer::Ogc(&OGC_FORMS),
            Route::Docs | Route::DownloadsPage | Route::Page(_) => Offer::Fixed(Form::Html),
            Route::Download(file) => Offer::Fixed(crate::downloads::form_of(file)),
            Route::Unknown => Offer::Accept(&NOT_FOUND_FORMS),
            Route::Health | Route::Metrics | Route::Asset(_) => Offer::Own,
            Route::ApiHome | Route::DocsMoved => Offer::Own,
        }
    }

    /// Whether only GET and HEAD are answered: everything but the redirects and the 404s.
    pub fn get_only(&self) -> bool {
        !matches!(
            self,
            Route::ApiHome
                | Route::DocsMoved
                | Route::ApiUnknown
                | Route::Unknown
                | Route::Ogc(Resource::Unknown)
        )
    }

    /// Whether the route is answered under `/releases/{name}`: the API, its description and
    /// docs, the downloads, what changed, OGC API - Features, the site's pages.
    pub fn served_by_release(&self) -> bool {
        matches!(
            self,
            Route::Listing(..)
                | Route::Revisions(_)
                | Route::Facets(_)
                | Route::Summary(..)
                | Route::AreaSets
                | Route::AreaSet(..)
                | Route::Area(..)
                | Route::ApiHome
                | Route::OpenApi
                | Route::Changes
                | Route::ApiUnknown
                | Route::Docs
                | Route::DownloadsPage
                | Route::Download(_)
                | Route::Ogc(_)
                | Route::Page(_)
                | Route::Unknown
        )
    }

    /// Whether a named release's answer on this route never changes, so that it may be kept
    /// for good: its data (OGC's features too, whose pages name no other release), not the
    /// pages that list the other releases, nor the revisions, which span every kept release
    /// and grow with the next, nor the descriptions, whose words are the server's.
    pub fn immutable_when_named(&self) -> bool {
        matches!(
            self,
            Route::Listing(..)
                | Route::Facets(_)
                | Route::Summary(..)
                | Route::Download(_)
                | Route::Changes
                | Route::Ogc(Resource::Items(_) | Resource::Item(..))
        )
    }

    /// Whether the route's errors are HTML pages (the site's); every other route's are the
    /// public service's JSON.
    pub fn errors_as_html(&self) -> bool {
        matches!(self, Route::Page(_) | Route::Asset(_))
    }

    /// Whether the route is the operator's: outside the API and its rate limit.
    pub fn is_operations(&self) -> bool {
        matches!(self, Route::Health | Route::Ready | Route::Metrics)
    }
}

/// `/areas`, `/areas/{set}[.geojson|.parquet]`, `/areas/{set}/{id}` (one trailing `/` the same; the
/// id percent-decoded).
fn areas_route(rest: &str) -> Option<Route> {
    let rest = rest.strip_prefix(AREAS)?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() {
        return Some(Route::AreaSets);
    }
    let rest = rest.strip_prefix('/')?;
    match rest.split_once('/') {
        None => {
            let suffixed = [Form::GeoJson, Form::Parquet].into_iter();
            let mut suffixed = suffixed.filter_map(|f| Some((rest.strip_suffix(f.suffix())?, f)));
            let (set, form) = suffixed.next().unwrap_or((rest, Form::Json));
            Some(Route::AreaSet(set.to_string(), form))
        }
        Some((set, id)) if !id.is_empty() && !id.contains('/') => {
            Some(Route::Area(set.to_string(), crate::query::url_decode(id)))
        }
        Some(_) => None,
    }
}

/// A path outside the API's base path that is none of the fixed ones: the site's, or nobody's.
fn site_route(path: &str) -> Route {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    if let Some((_, page)) = PAGES.iter().find(|(p, _)| *p == path) {
        return Route::Page(page.clone());
    }
    let under = |(prefix, route): &(&str, RestOfPath)| Some(route(path.strip_prefix(prefix)?));
    PREFIXES.iter().find_map(under).unwrap_or(Route::Unknown)
}

/// The route of an exact path in `table`.
fn exact(table: &[(&str, Route)], path: &str) -> Option<Route> {
    let (_, route) = table.iter().find(|(p, _)| *p == path)?;
    Some(route.clone())
}

/// A page's id: a whole number; `None` for anything else (a 404 page).
fn page_id(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|id| *id >= 0)
}

/// `/docs` of `/docs/x`, `/` of `/`.
fn first_segment(path: &str) -> String {
    format!("/{}", path.split('/').nth(1).unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn table() -> RouteTable {
        let config = Config::parse_from(["roadtraffic-serve", "--legacy-base-path", "/v2019"]);
        RouteTable::new(&config)
    }

    /// A route as its kind and what it carries, for comparing.
    fn shown(path: &str) -> String {
        match table().route(path) {
            Route::Listing(e, envelope) => format!("Listing {} {envelope:?}", e.path()),
            Route::Revisions(e) => format!("Revisions({:?})", e.path()),
            Route::Facets(e) => format!("Facets({:?})", e.path()),
            Route::Summary(e, f) => format!("Summary({:?}, {f:?})", e.path()),
            other => format!("{other:?}"),
        }
    }

    fn assert_routes(cases: &[(&str, &str)]) {
        for (path, route) in cases {
            assert_eq!(shown(path), *route, "{path}");
        }
    }

    #[test]
    fn each_api_path_has_its_route() {
        assert_routes(&[
            ("/healthz", "Health"),
            ("/healthz/", "Unknown"),
            ("/api", "ApiHome"),
            ("/api/", "ApiHome"),
            ("/apix", "Unknown"),
            ("/api/openapi.json", "OpenApi"),
            ("/api/releases/latest/changes//", "Changes"),
            ("/api/count-points", "Listing /count-points Laravel"),
            ("/api/count-points/", "Listing /count-points Laravel"),
            ("/api/count-points//", "ApiUnknown"),
            (
                "/api/count-points/revisions/",
                "Revisions(\"/count-points\")",
            ),
            (
                "/api/traffic/local-authorities/revisions",
                "Revisions(\"/traffic/local-authorities\")",
            ),
            ("/api/count-points.csv/revisions", "ApiUnknown"),
            ("/api/regions/revisions", "ApiUnknown"),
            ("/api/count-points/revisions/x", "ApiUnknown"),
            ("/api/raw-counts/facets", "Facets(\"/raw-counts\")"),
            ("/api/raw-counts/facets/", "Facets(\"/raw-counts\")"),
            ("/api/raw-counts.csv/facets", "ApiUnknown"),
            ("/api/regions/facets", "ApiUnknown"),
            ("/api/raw-counts/summary", "Summary(\"/raw-counts\", Json)"),
            (
                "/api/traffic/local-authorities/summary.csv",
                "Summary(\"/traffic/local-authorities\", Csv)",
            ),
            ("/api/aadf/summary.ndjson", "ApiUnknown"),
            (
                "/api/average-annual-daily-flow/summary.ndjson/",
                "Summary(\"/average-annual-daily-flow\", Ndjson)",
            ),
            ("/api/raw-counts/summary.parquet", "ApiUnknown"),
            ("/api/raw-counts/summaryx", "ApiUnknown"),
            ("/api/areas", "AreaSets"),
            ("/api/areas/", "AreaSets"),
            ("/api/areas/wards", "AreaSet(\"wards\", Json)"),
            ("/api/areas/wards.geojson/", "AreaSet(\"wards\", GeoJson)"),
            ("/api/areas/wards.parquet", "AreaSet(\"wards\", Parquet)"),
            ("/api/areas/wards/E05%20x/", "Area(\"wards\", \"E05 x\")"),
            ("/api/areas/wards/a/b", "ApiUnknown"),
            ("/api/areasx", "ApiUnknown"),
            (
                "/api/count-points.csv/",
                "Listing /count-points.csv Laravel",
            ),
        ]);
    }

    #[test]
    fn each_site_legacy_and_ogc_path_has_its_route() {
        assert_routes(&[
            ("/v2019/count-points", "Listing /count-points Legacy"),
            ("/v2019/count-points.csv", "Unknown"),
            ("/docs/", "Docs"),
            ("/api-documentation", "DocsMoved"),
            ("/downloads/", "DownloadsPage"),
            ("/downloads/a/b.csv/", "Download(\"a/b.csv/\")"),
            ("/", "Page(Home)"),
            ("//", "Page(Home)"),
            ("/regions/", "Page(Regions)"),
            ("/explore/", "Page(Explore)"),
            ("/regions/7/", "Page(Region(Some(7)))"),
            ("/regions/7/8", "Page(Region(None))"),
            ("/regionsx/7", "Unknown"),
            ("/areas/", "Page(AreaSets)"),
            ("/areas/wards", "Page(AreaSet(\"wards\"))"),
            ("/areas/wards/E05%2F1/", "Page(Area(\"wards\", \"E05/1\"))"),
            ("/areas/wards/a/b", "Page(Area(\"wards\", \"a/b\"))"),
            ("/manualcountpoints/-1", "Page(CountPoint(None))"),
            ("/assets/site.css/", "Asset(\"site.css\")"),
            ("/assets", "Unknown"),
            ("/ogcapi", "Ogc(Landing)"),
            ("/ogcapi/", "Ogc(Landing)"),
            ("/ogcapix", "Unknown"),
            (
                "/ogcapi/collections/regions",
                "Ogc(NoCollection(\"regions\"))",
            ),
        ]);
    }

    #[test]
    fn a_named_release_serves_ogc_and_keeps_its_features_for_good() {
        let table = table();
        let items = "/releases/2024/ogcapi/collections/count-points/items";
        let (pin, route) = table.resolve(items);
        assert_eq!(pin, Pin::Named("2024".into()));
        assert!(matches!(route, Route::Ogc(Resource::Items(_))), "{route:?}");
        assert!(route.immutable_when_named());
        let (pin, landing) = table.resolve("/releases/2024/ogcapi/");
        assert_eq!(pin, Pin::Named("2024".into()));
        assert!(
            matches!(landing, Route::Ogc(Resource::Landing)),
            "{landing:?}"
        );
        assert!(
            !landing.immutable_when_named(),
            "the definition's words are the server's"
        );
    }

    #[test]
    fn labels_are_templates_or_sections() {
        let table = table();
        let label = |path| format!("{:?}", table.label(&table.route(path), path));
        assert_eq!(label("/v2019/counts-points"), "Section(\"/v2019\")");
        let alias = label("/api/traffic/local-authorities.csv");
        assert_eq!(alias, "Template(\"/api/local-authority-traffic.csv\")");
        assert_eq!(label("/regions/3"), "Section(\"/regions\")");
        assert_eq!(
            label("/ogcapi/collections/raw-counts/items/7"),
            "Template(\"/ogcapi/collections/{collectionId}/items/{featureId}\")"
        );
    }
}
