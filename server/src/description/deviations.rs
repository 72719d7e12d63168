//! Where the mirror answers differently from the public service.

/// Where the mirror answers differently from the public service, as the docs page and the
/// README say it (`readme_deviations_follow_the_description`).
pub const DEVIATIONS: &[&str] = &[
    "A bad `page[size]` or `page[number]` (not an integer, out of range) is a `400` that says what is wrong; the public service silently falls back to a default.",
    "Every data response has an `ETag` that changes with each load and not with how the request is encoded; `If-None-Match` (compared weakly: `W/\"x\"` matches `\"x\"`) gets `304`. An encoded (gzip, br, deflate) body's `ETag` is weak.",
    "Compression (br, gzip, deflate) only with `--compress`; by default bodies are plain JSON, as the public service sends them (some clients keep the raw bytes).",
    "Rate limiting is off by default; with `--rate-limit N`, `x-ratelimit-limit` and `x-ratelimit-remaining` are sent on every response and the N+1th request in a minute gets `429` with `retry-after`.",
    "`count_method` (`counted`, `estimated`): on AADF it matches `estimation_method`; raw counts are all manual counts, so `counted` matches every raw count and `estimated` none.",
    "`/api/countries`, `/api/regions` and `/api/local-authorities` accept `filter[id]` and `filter[name]` (and `sort`, `fields`).",
    "`sort`: ties are broken by id, in the direction of the last sort key (so one index scan, forwards or backwards, gives the order).",
    "A plain `page=3` next to `page[size]` is ignored rather than replacing it (PHP would let it).",
    "Ids are assigned 1..N in file order by the loader (count points: id = count_point_id), so they match the public service's ids only when the same files are loaded in the same order.",
    "Countries, regions and local authorities are derived from the data files: country ids come from the bundled `data/countries.csv` (England 1, Scotland 2, Wales 3); a local authority's `ita_id` is null (no published CSV carries it).",
    "Where (the mirror's own): on AADF, AADF by direction, count points and raw counts, `filter[bbox]=minLon,minLat,maxLon,maxLat` keeps the records whose own longitude and latitude are in that WGS 84 box (edges included), and `filter[near]=lon,lat,radius_m` those within the radius (at most 100 km), measured on the British National Grid from their easting and northing, nearest first unless `sort` is given, each record gaining `distance_m` as its last field. Both combine with every other filter, `sort`, `fields`, the page and the CSV, NDJSON and GeoJSON forms; a malformed one (wrong count, not a number, minimum above maximum, outside Great Britain's grid, radius above the cap) is a `400` that says which part.",
    "The same four listings are served as GeoJSON (RFC 7946): whole at `<endpoint>.geojson`, or a page with `Accept: application/geo+json` (a FeatureCollection with `numberMatched`, `numberReturned` and `links`; those responses say `Vary: Accept`). Each record is a feature's `properties`, at a `Point` of its longitude and latitude (7 decimals), or `\"geometry\": null` without them.",
    "Kept releases (the mirror's own): every release loaded with `--release NAME` is served by name under `/releases/{name}/` (the API, the 2019-2020 listings, the downloads, the site), its answers immutable; `/releases` lists them; `<endpoint>/revisions` gives each matching record's natural key with its record in every kept release and the fields that changed; `/releases/{new}/changes?since={old}` compares any two.",
    "Totals (the mirror's own): every paginated listing also answers `<endpoint>/facets?facet=year&facet=road_category` (each column's values, with how many records hold each) and `<endpoint>/summary?group_by=year&sum=all_motor_vehicles` (also `.csv` and `.ndjson`: a row per group with its count and the sums, averages, minima and maxima asked), under the listing's own filters, answered from tables of totals kept at load time where they can be.",
    "Every listing is also served whole as CSV (`<endpoint>.csv`) and NDJSON (`<endpoint>.ndjson`), with the same filters, sort and fields; the OpenAPI description is at `<base-path>/openapi.json`.",
];
