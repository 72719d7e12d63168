//! Functions SQLite lacks that CQL2 filters need (see `crate::filter`), registered on every
//! connection: each record's point against a geometry (the DE-9IM relation, exactly),
//! `LIKE` that minds letter case, Unicode case folding, and the arithmetic operators SQLite
//! has no operator for. Deterministic, so that SQLite may evaluate them once per constant.
//!
//! Every function answers NULL for a NULL argument: a filter's comparison with a null is
//! unknown (SQL's three-valued logic), and only true selects a record.

use std::sync::Arc;

use geo::coordinate_position::{CoordPos, CoordinatePosition};
use geo::{Geometry, Intersects, Point, Relate};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Error};
use wkt::TryFromWkt;

/// The spatial relations a point can have with a geometry, by the number
/// `cql2_spatial` takes (its first argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    Intersects = 0,
    Disjoint = 1,
    Equals = 2,
    Touches = 3,
    Within = 4,
    Contains = 5,
    Overlaps = 6,
    Crosses = 7,
}

impl Relation {
    const ALL: [Relation; 8] = [
        Relation::Intersects,
        Relation::Disjoint,
        Relation::Equals,
        Relation::Touches,
        Relation::Within,
        Relation::Contains,
        Relation::Overlaps,
        Relation::Crosses,
    ];

    fn of_code(code: i64) -> Option<Relation> {
        Relation::ALL.into_iter().find(|r| *r as i64 == code)
    }

    /// Whether `a` stands in this relation to `b`, by their DE-9IM matrix.
    pub fn holds(self, a: &impl Relate<f64>, b: &impl Relate<f64>) -> bool {
        let m = a.relate(b);
        match self {
            Relation::Intersects => m.is_intersects(),
            Relation::Disjoint => m.is_disjoint(),
            Relation::Equals => m.is_equal_topo(),
            Relation::Touches => m.is_touches(),
            Relation::Within => m.is_within(),
            Relation::Contains => m.is_contains(),
            Relation::Overlaps => m.is_overlaps(),
            Relation::Crosses => m.is_crosses(),
        }
    }

    /// Whether a point stands in this relation to `g`: for the four relations a point's place
    /// decides (inside `g`, on its boundary, outside), from that place alone, which is linear
    /// in `g`'s vertices and builds nothing; for the others, by the DE-9IM matrix.
    pub fn of_point(self, p: Point, g: &Geometry) -> bool {
        let place = || position(p, g);
        match self {
            Relation::Intersects => place() != CoordPos::Outside,
            Relation::Disjoint => place() == CoordPos::Outside,
            Relation::Within => place() == CoordPos::Inside,
            Relation::Touches => place() == CoordPos::OnBoundary,
            _ => self.holds(&p, g),
        }
    }
}

/// Where a point lies on `g`. geo's `coordinate_position` counts the components whose boundary
/// holds the point and calls an even count with no interior outside; but by the mod 2 rule
/// (OGC Simple Features 6.1.15.1) such a point, the shared end of two lines of a
/// MULTILINESTRING, is on the geometry and not on its boundary: inside.
fn position(p: Point, g: &Geometry) -> CoordPos {
    match g.coordinate_position(&p.0) {
        CoordPos::Outside if g.intersects(&p) => CoordPos::Inside,
        place => place,
    }
}

pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("cql2_spatial", 4, flags, spatial)?;
    conn.create_scalar_function("cql2_like", 2, flags, like)?;
    conn.create_scalar_function("cql2_casei", 1, flags, |ctx| {
        Ok(text(ctx, 0)?.map(|t| t.to_lowercase()))
    })?;
    conn.create_scalar_function("cql2_pow", 2, flags, |ctx| {
        Ok(numbers(ctx)?
            .map(|(a, b)| a.powf(b))
            .filter(|v| v.is_finite()))
    })?;
    conn.create_scalar_function("cql2_mod", 2, flags, |ctx| {
        Ok(numbers(ctx)?.filter(|(_, b)| *b != 0.0).map(|(a, b)| a % b))
    })?;
    conn.create_scalar_function("cql2_div", 2, flags, |ctx| {
        let quotient = numbers(ctx)?.filter(|(_, b)| *b != 0.0).map(|(a, b)| a / b);
        Ok(quotient
            .map(f64::trunc)
            .filter(|q| q.abs() < 9.2e18)
            .map(|q| q as i64))
    })?;
    Ok(())
}

fn text(ctx: &Context, i: usize) -> rusqlite::Result<Option<String>> {
    match ctx.get_raw(i) {
        ValueRef::Null => Ok(None),
        ValueRef::Text(t) => Ok(Some(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Integer(n) => Ok(Some(n.to_string())),
        ValueRef::Real(r) => Ok(Some(r.to_string())),
        ValueRef::Blob(_) => Err(Error::UserFunctionError("a blob is no text".into())),
    }
}

fn number(ctx: &Context, i: usize) -> Option<f64> {
    match ctx.get_raw(i) {
        ValueRef::Integer(n) => Some(n as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        ValueRef::Null | ValueRef::Blob(_) => None,
    }
}

fn numbers(ctx: &Context) -> rusqlite::Result<Option<(f64, f64)>> {
    Ok(number(ctx, 0).zip(number(ctx, 1)))
}

/// `cql2_spatial(relation, wkt, x, y)`: whether the point (x, y) stands in `relation` to the
/// geometry written as WKT; NULL without a point.
fn spatial(ctx: &Context) -> rusqlite::Result<Option<bool>> {
    let relation = ctx.get::<i64>(0)?;
    let relation = Relation::of_code(relation)
        .ok_or_else(|| Error::UserFunctionError(format!("no relation {relation}").into()))?;
    // Read once per statement: SQLite keeps it as the argument's auxiliary data while the
    // argument stays the same.
    let geometry: Arc<Geometry> = ctx.get_or_create_aux(1, |v| -> Result<_, String> {
        let wkt = v.as_str().map_err(|e| e.to_string())?;
        Geometry::try_from_wkt_str(wkt).map_err(|e| e.to_string())
    })?;
    let Some((x, y)) = number(ctx, 2).zip(number(ctx, 3)) else {
        return Ok(None);
    };
    Ok(Some(relation.of_point(Point::new(x, y), &geometry)))
}

/// `cql2_like(value, pattern)`: CQL2's `LIKE`, minding letter case (SQLite's own ignores
/// it): `%` any run of characters, `_` any one, `\` before either (or itself) that character.
fn like(ctx: &Context) -> rusqlite::Result<Option<bool>> {
    let (Some(value), Some(pattern)) = (text(ctx, 0)?, text(ctx, 1)?) else {
        return Ok(None);
    };
    Ok(Some(like_matches(&value, &pattern)))
}

/// One token of a `LIKE` pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Any,
    One,
    Char(char),
}

fn tokens(pattern: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '%' => Token::Any,
            '_' => Token::One,
            '\\' => Token::Char(chars.next().unwrap_or('\\')),
            c => Token::Char(c),
        });
    }
    out
}

/// Whether `value` matches `pattern`, in time linear in their product at worst (the usual
/// wildcard matching, backtracking only to the last `%`).
pub fn like_matches(value: &str, pattern: &str) -> bool {
    let (v, p): (Vec<char>, Vec<Token>) = (value.chars().collect(), tokens(pattern));
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < v.len() {
        match p.get(j) {
            Some(Token::One) => (i, j) = (i + 1, j + 1),
            Some(Token::Char(c)) if *c == v[i] => (i, j) = (i + 1, j + 1),
            Some(Token::Any) => {
                star = Some((i, j));
                j += 1;
            }
            _ => match star {
                Some((si, sj)) => {
                    star = Some((si + 1, sj));
                    (i, j) = (si + 1, sj + 1);
                }
                None => return false,
            },
        }
    }
    p[j..].iter().all(|t| *t == Token::Any)
}

/// The literal text a pattern starts with, before its first wildcard.
pub fn like_prefix(pattern: &str) -> String {
    let tokens = tokens(pattern);
    let chars = tokens.iter().map_while(|t| match t {
        Token::Char(c) => Some(*c),
        _ => None,
    });
    chars.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_minds_case_wildcards_and_escapes() {
        assert!(like_matches("A406", "A4%"));
        assert!(!like_matches("a406", "A4%"));
        assert!(like_matches("A406", "A_06"));
        assert!(like_matches("A406", "%"));
        assert!(like_matches("", "%"));
        assert!(!like_matches("", "_"));
        assert!(like_matches("50%", "50\\%"));
        assert!(!like_matches("500", "50\\%"));
        assert!(like_matches("a_b", "a\\_b"));
        assert!(like_matches("abcabd", "%abd"));
        assert!(like_matches("Mühle", "M_hle"));
        assert!(!like_matches("abc", "ab"));
        assert_eq!(like_prefix("A3%x"), "A3");
        assert_eq!(like_prefix("50\\%%"), "50%");
        assert_eq!(like_prefix("%A"), "");
    }

    #[test]
    fn the_functions_answer_in_sql() {
        let db = Connection::open_in_memory().unwrap();
        register(&db).unwrap();
        let one = |sql: &str| -> Option<f64> { db.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(one("SELECT cql2_pow(2, 10)"), Some(1024.0));
        assert_eq!(one("SELECT cql2_mod(7, 2)"), Some(1.0));
        assert_eq!(one("SELECT cql2_mod(7, 0)"), None);
        assert_eq!(one("SELECT cql2_div(7, 2)"), Some(3.0));
        assert_eq!(one("SELECT cql2_div(-7, 2)"), Some(-3.0));
        assert_eq!(one("SELECT cql2_div(7, 0)"), None);
        let square = "POLYGON((0 0,2 0,2 2,0 2,0 0))";
        let relate = |rel: Relation, x: f64, y: f64| -> Option<bool> {
            let sql = "SELECT cql2_spatial(?, ?, ?, ?)";
            db.query_row(sql, rusqlite::params![rel as i64, square, x, y], |r| {
                r.get(0)
            })
            .unwrap()
        };
        assert_eq!(relate(Relation::Intersects, 1.0, 1.0), Some(true));
        assert_eq!(relate(Relation::Intersects, 2.0, 1.0), Some(true));
        assert_eq!(relate(Relation::Within, 2.0, 1.0), Some(false));
        assert_eq!(relate(Relation::Touches, 2.0, 1.0), Some(true));
        assert_eq!(relate(Relation::Disjoint, 3.0, 1.0), Some(true));
        // The shared end of two lines is inside their union (mod 2), as GEOS has it.
        let lines =
            Geometry::try_from_wkt_str("MULTILINESTRING((0 0,1 1),(1 1,2 0),(5 5,6 6))").unwrap();
        let at = |x, y| Point::new(x, y);
        assert!(Relation::Intersects.of_point(at(1.0, 1.0), &lines));
        assert!(Relation::Within.of_point(at(1.0, 1.0), &lines));
        assert!(!Relation::Touches.of_point(at(1.0, 1.0), &lines));
        assert!(Relation::Touches.of_point(at(0.0, 0.0), &lines));
        assert!(!Relation::Disjoint.of_point(at(1.0, 1.0), &lines));
        assert!(Relation::Disjoint.of_point(at(3.0, 3.0), &lines));
        let null: Option<bool> = db
            .query_row("SELECT cql2_spatial(0, ?, NULL, 1)", [square], |r| r.get(0))
            .unwrap();
        assert_eq!(null, None);
    }
}
