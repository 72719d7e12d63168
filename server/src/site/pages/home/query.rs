//! What the home page's search finds: count points by id or road name, roads by the start of
//! their name, local authorities and regions by a part of their name.

use roadtraffic_catalog::COUNT_POINTS;

use crate::error::ApiError;
use crate::site::overview::AdminArea;
use crate::site::View;

/// Results of each kind shown at most.
pub const MOST: usize = 100;

/// A count point found, as a search result shows it.
pub struct SearchHit {
    pub id: i64,
    pub road: String,
    pub category: String,
    pub local_authority: i64,
}

/// What a search found.
pub struct Search<'a> {
    /// The count point of that id, then those on the road of that name (up to `MOST + 1` of
    /// each, so that a page can say there are more).
    pub points: Vec<SearchHit>,
    /// Other roads whose name starts with the search, with their number of count points.
    pub roads: Vec<(String, i64)>,
    pub authorities: Vec<&'a AdminArea>,
    pub regions: Vec<&'a AdminArea>,
}

impl Search<'_> {
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
            && self.roads.is_empty()
            && self.authorities.is_empty()
            && self.regions.is_empty()
    }
}

pub fn search<'a>(view: &View<'a>, q: &str) -> Result<Search<'a>, ApiError> {
    let mut points = Vec::new();
    if let Ok(id) = q.trim_start_matches('#').parse::<i64>() {
        points.extend(count_points(view, "count_point_id = ?1", &[&id])?);
    }
    points.extend(count_points(view, "road_name = ?1", &[&q])?);
    let roads = roads_starting(view, q)?;
    let needle = q.to_lowercase();
    let matching = |list: &'a [AdminArea]| -> Vec<&'a AdminArea> {
        list.iter()
            .filter(|a| a.name.to_lowercase().contains(&needle))
            .take(MOST)
            .collect()
    };
    Ok(Search {
        points,
        roads,
        authorities: matching(&view.overview.local_authorities),
        regions: matching(&view.overview.regions),
    })
}

fn count_points(
    view: &View,
    condition: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<SearchHit>, ApiError> {
    let sql = format!(
        "SELECT count_point_id, road_name, road_category, local_authority_id FROM {} \
         WHERE {condition} ORDER BY count_point_id LIMIT {}",
        COUNT_POINTS.table,
        MOST + 1
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let rows = stmt.query_map(params, |r| {
        Ok(SearchHit {
            id: r.get(0)?,
            road: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            category: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            local_authority: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Road names that start with `q` (ignoring case), other than `q` itself, with their number
/// of count points: a range of the road name index.
fn roads_starting(view: &View, q: &str) -> Result<Vec<(String, i64)>, ApiError> {
    let sql = format!(
        "SELECT road_name, count(*) FROM {} WHERE road_name > ?1 AND road_name < ?2 \
         GROUP BY road_name ORDER BY road_name LIMIT 60",
        COUNT_POINTS.table
    );
    let end = format!("{q}\u{10FFFF}");
    let mut stmt = view.conn.prepare(&sql)?;
    let rows = stmt.query_map([q, end.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
