//! The docs page's section on OGC API - Features (`#ogcapi`, where the service's landing page
//! points as its `service-doc`): what it serves, its parameters, and how GDAL and QGIS open it.

use maud::{html, Markup};

use crate::configuration::Config;
use crate::ogc::documents::CONFORMANCE;
use crate::ogc::query::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::ogc::{Collection, PREFIX};

/// The section, its examples at `--public-url`, else at the address the server is bound to
/// (the page is written once per loaded file, not per request, so it cannot name the host a
/// request came to; a server bound to every interface is shown at the loopback's).
pub fn section(config: &Config) -> Markup {
    let root = match &config.public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => format!(
            "http://{}",
            config.bind.replacen("0.0.0.0:", "127.0.0.1:", 1)
        ),
    };
    let service = format!("{root}{PREFIX}");
    let gdal = format!(
        "ogrinfo OAPIF:{service}\nogr2ogr -f GPKG count-points.gpkg OAPIF:{service} count-points -spat -3.2 51.4 -2.9 51.7"
    );
    html! {
        section id="ogcapi" {
            h2 { "OGC API - Features" }
            p { "The same data for GIS clients (QGIS, GDAL, OWSLib, ArcGIS): an OGC API - Features service, Part 1 (Core) and Part 2 (CRS by reference), at " a href=(PREFIX) { code { (PREFIX) } } ". Each dataset with places is a collection, each record a feature: a point at the record's own coordinates, the record as its properties, its id the record's id. The decimals the JSON API's records carry as strings, as the public service does (" code { "latitude" } ", " code { "longitude" } ", " code { "link_length_km" } ", " code { "link_length_miles" } "), are numbers in the features (" code { "null" } " when empty), so that GIS clients type them as reals." }
            ul {
                @for c in Collection::all() {
                    li { a href={ (PREFIX) "/collections/" (c.id()) } { code { (c.id()) } } ": " (c.dataset().about) }
                }
            }
            p { "The definition (OpenAPI 3.0) is at " a href={ (PREFIX) "/api" } { code { (PREFIX) "/api" } } "; the conformance classes met, at " a href={ (PREFIX) "/conformance" } { code { (PREFIX) "/conformance" } } ": " @for (i, class) in CONFORMANCE.iter().enumerate() { @if i > 0 { ", " } code { (class) } } "." }
            h3 { "The features' parameters" }
            ul {
                li { code { "bbox=minX,minY,maxX,maxY" } " in " code { "bbox-crs" } " (WGS 84 longitude and latitude by default, or " code { "http://www.opengis.net/def/crs/EPSG/0/27700" } ", easting and northing): the features whose point is in it. A box where no count point is matches nothing. Six numbers, " code { "minX,minY,minZ,maxX,maxY,maxZ" } " (a box with heights), are the same box: these features are 2-D points, so the heights are ignored." }
                li { code { "crs" } ": the coordinates in WGS 84 (the default) or on the British National Grid (the files' own easting and northing); the " code { "Content-Crs" } " header names it." }
                li { code { "datetime" } ": an RFC 3339 instant or interval (" code { "start/end" } ", either end " code { ".." } " or empty). A record's time is its year (AADF), the year of its latest AADF (count points), or the hour of its count (raw counts, from " code { "count_date" } " Thh:00 to the next hour, read as UTC)." }
                li { code { "limit" } " (default " (DEFAULT_LIMIT) ", at most " (MAX_LIMIT) ": a larger one is taken as " (MAX_LIMIT) ") and " code { "offset" } "; the " code { "next" } " and " code { "prev" } " links carry them, " code { "numberMatched" } " is the listing's total." }
                li { "Each of the dataset's filters by its name, as the JSON API takes it: " code { "road_name=M4&year=2019" } "; every other queryable by its name too, as " code { "name = value" } "." }
                li { code { "filter" } ", " code { "filter-lang" } " (" code { "cql2-text" } ", the default, or " code { "cql2-json" } ") and " code { "filter-crs" } ": a CQL2 filter (Part 3), as the API's listings take it; each collection's " code { "/queryables" } " lists what it may name, and its " code { "/schema" } " types the features' fields. GDAL hands its " code { "-where" } " to the server this way. " code { "sortby=-year,count_point_id" } " orders the features and " code { "properties=year,all_hgvs" } " keeps only those." }
                li { code { "f=json" } " or " code { "f=html" } ": every resource is also a page (the features' with a form, and a map of them: their points over the coast of Great Britain, drawn by the server with no script and nothing fetched, with a text alternative; the table below it lists every point); without " code { "f" } ", the form " code { "Accept" } " prefers by its q-values: a browser gets the page, a client that names neither JSON, and a form at " code { "q=0" } " is never sent." }
                li { "Any other parameter is a 400 that names it; an unknown collection or feature, a 404." }
            }
            h3 { "Releases and caching" }
            ul {
                li { "Each kept release has the same service under " code { "/releases/{name}" (PREFIX) } ", answered from that release: its links, its definition's server and its pages' links stay under that prefix. An unknown release is a 404." }
                li { "Every answer has an " code { "ETag" } " made of the release and the question (the same for the same parameters in any order: the links write them in one order), so " code { "If-None-Match" } " gets a 304 without the query being run, and " code { "HEAD" } " is answered. For that, one question is one answer byte for byte, so the features have no " code { "timeStamp" } ": Part 1 makes it optional, and where given it must be the time the answer was written (Requirement 28)." }
                li { "A named release's features never change: " code { "Cache-Control: public, max-age=31536000, immutable" } ". Its documents (the landing page, the conformance, the definition, the collections) carry the server's words and keep the revalidated caching of " code { (PREFIX) } "." }
            }
            h3 { "GDAL" }
            pre { code { (gdal) } }
            h3 { "QGIS" }
            ol {
                li { "Layer › Add Layer › Add WFS / OGC API - Features Layer." }
                li { "New: a name, the URL " code { (service) } ", version OGC API - Features (or Maximum); OK." }
                li { "Connect, choose a collection (" code { "count-points" } ", " code { "average-annual-daily-flow" } ", ...), Add." }
            }
        }
    }
}
