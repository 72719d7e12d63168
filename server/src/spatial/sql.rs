//! The SQL of an area: which count points the spatial index finds in it, then each row's own
//! coordinates checked exactly (see `roadtraffic_catalog::places`). A box's numbers are bound
//! as arguments, so that every box asks one statement, prepared once per connection; a radius's
//! are written into the SQL, since its centre is also in the ORDER BY and the select list
//! (`distance_squared`), which take no arguments of their own: finite `f64`s, written so that
//! they read back exactly.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::places::{
    Places, EASTING, INDEX_TABLE, LATITUDE, LONGITUDE, NORTHING, PLACE_KEY,
};

use super::area::{Area, Crs};
use super::grid::GridPoint;

/// A number as SQL reads it back exactly (`{:?}` writes `1.0`, not `1`: a REAL).
fn lit(v: f64) -> String {
    format!("{v:?}")
}

/// How a term's numbers go into its SQL, in the order they appear in it.
enum Numbers<'a> {
    /// As `?`, their values pushed onto the query's arguments.
    Bound(&'a mut Vec<SqlValue>),
    Written,
}

impl Numbers<'_> {
    fn put(&mut self, v: f64) -> String {
        match self {
            Numbers::Bound(args) => {
                args.push(SqlValue::Real(v));
                "?".to_string()
            }
            Numbers::Written => lit(v),
        }
    }
}

/// The WHERE term that keeps the rows of `places` in `area`, its arguments pushed onto
/// `args`. `column` names a column as the query reads it (qualified by its table's alias).
pub fn term(
    places: &Places,
    area: &Area,
    column: &dyn Fn(&str) -> String,
    args: &mut Vec<SqlValue>,
) -> String {
    let key = match places.key_is_id() {
        true => column("id"),
        false => column(PLACE_KEY),
    };
    let (index_dims, exact) = match area {
        Area::Box { crs, min, max } => box_term(*crs, *min, *max, column, Numbers::Bound(args)),
        Area::Near { centre, radius } => {
            let (min, max) = (
                [centre.easting - radius, centre.northing - radius],
                [centre.easting + radius, centre.northing + radius],
            );
            let index = index_box(["e", "n"], min, max, &mut Numbers::Written);
            let within = format!(
                "{} <= {}",
                distance_squared(centre, column),
                lit(radius * radius)
            );
            (index, within)
        }
    };
    format!("{key} IN (SELECT {PLACE_KEY} FROM {INDEX_TABLE} WHERE {index_dims}) AND {exact}")
}

/// The index's test (its entries that overlap the box) and the exact test of a row, their
/// numbers put in that order. A WGS 84 box across the antimeridian (minimum longitude above
/// the maximum) takes the longitudes from its minimum east to 180 and from -180 to its maximum.
fn box_term(
    crs: Crs,
    min: [f64; 2],
    max: [f64; 2],
    column: &dyn Fn(&str) -> String,
    mut n: Numbers,
) -> (String, String) {
    let (dims, [x, y]) = match crs {
        Crs::Crs84 => (
            ["lon", "lat"],
            [LONGITUDE, LATITUDE].map(|c| format!("CAST(NULLIF({}, '') AS REAL)", column(c))),
        ),
        Crs::BritishNationalGrid => (["e", "n"], [EASTING, NORTHING].map(column)),
    };
    let [a, b] = dims;
    let wraps = min[0] > max[0];
    let index = match wraps {
        true => format!(
            "(max_{a} >= {} OR min_{a} <= {}) AND max_{b} >= {} AND min_{b} <= {}",
            n.put(min[0]),
            n.put(max[0]),
            n.put(min[1]),
            n.put(max[1])
        ),
        false => index_box(dims, min, max, &mut n),
    };
    // The x test's numbers before the y test's: they are put in the order they are written.
    let x_exact = match wraps {
        true => format!("({x} >= {} OR {x} <= {})", n.put(min[0]), n.put(max[0])),
        false => format!("{x} BETWEEN {} AND {}", n.put(min[0]), n.put(max[0])),
    };
    let exact = format!(
        "{x_exact} AND {y} BETWEEN {} AND {}",
        n.put(min[1]),
        n.put(max[1])
    );
    (index, exact)
}

/// The R*Tree entries that overlap a box in two of its dimensions.
fn index_box(dims: [&str; 2], min: [f64; 2], max: [f64; 2], n: &mut Numbers) -> String {
    let [a, b] = dims;
    format!(
        "max_{a} >= {} AND min_{a} <= {} AND max_{b} >= {} AND min_{b} <= {}",
        n.put(min[0]),
        n.put(max[0]),
        n.put(min[1]),
        n.put(max[1])
    )
}

/// A row's squared distance from `centre` on the grid, in square metres (NULL without an
/// easting and northing). Squared, so that SQLite needs no square root to sort by it.
pub fn distance_squared(centre: &GridPoint, column: &dyn Fn(&str) -> String) -> String {
    let (e, n) = (column(EASTING), column(NORTHING));
    let (ce, cn) = (lit(centre.easting), lit(centre.northing));
    format!("(({e} - {ce}) * ({e} - {ce}) + ({n} - {cn}) * ({n} - {cn}))")
}

/// The distance in metres a squared distance stands for, to the decimetre (the grid's values
/// are whole metres; a finer figure would be noise).
pub fn metres(squared: f64) -> f64 {
    (squared.max(0.0).sqrt() * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::{schema, DATASETS};

    /// Every dataset with places: each kind of area makes SQL that SQLite takes, and that the
    /// planner answers through the index rather than a scan of the table.
    #[test]
    fn every_area_is_valid_sql_that_seeks_through_the_index() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        for s in schema::create_all_tables() {
            db.execute_batch(&s).unwrap();
        }
        let areas = [
            Area::parse_bbox("b", "-2,52,-1,53").unwrap(),
            Area::parse_box("b", "400000,200000,410000,210000", Crs::BritishNationalGrid).unwrap(),
            Area::parse_near("n", "-1.5,52.5,5000").unwrap(),
            Area::parse_ogc_box("bbox", "170,50,-1,53", Crs::Crs84).unwrap(),
        ];
        for d in DATASETS {
            for s in schema::create_indexes(d) {
                db.execute_batch(&s).unwrap();
            }
            let Some(places) = Places::of(d) else {
                continue;
            };
            let source = match places.in_runs {
                true => d.runs_table().unwrap(),
                false => d.table.to_string(),
            };
            for area in &areas {
                let mut args = Vec::new();
                let term = term(&places, area, &|c| format!("t.{c}"), &mut args);
                assert_eq!(args.len(), term.matches('?').count(), "{term}");
                let sql = format!("EXPLAIN QUERY PLAN SELECT * FROM {source} t WHERE {term}");
                let plan: Vec<String> = db
                    .prepare(&sql)
                    .unwrap()
                    .query_map(rusqlite::params_from_iter(&args), |r| r.get::<_, String>(3))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let plan = plan.join("\n");
                assert!(!plan.contains("SCAN t"), "{source}: {plan}");
                assert!(plan.contains("VIRTUAL TABLE INDEX"), "{source}: {plan}");
            }
        }
    }

    #[test]
    fn distances_are_to_the_decimetre() {
        assert_eq!(metres(2.0), 1.4);
        assert_eq!(metres(100.0), 10.0);
        assert_eq!(metres(-0.0), 0.0);
    }
}
