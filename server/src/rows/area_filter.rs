//! `filter[area]={set}:{id}[,{id}...]`: the rows whose count point is in any of a set's areas.
//! The rows know nothing of sets: whoever reads a request's filters hands them an
//! [`AreaLookup`] (the areas room's, over the release being served), which turns the set and
//! its ids into the count points they hold, or a 400 naming what is not there.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::ApiError;

/// The parameter's name, under `filter[...]`, on a dataset with places.
pub const AREA: &str = "area";

/// The count points of some areas of one set, as a filter holds them.
#[derive(Debug, Clone)]
pub struct AreaFilter {
    pub set: String,
    /// The set's SHA-256: a replaced set is another filter.
    pub sha256: String,
    /// The areas' ids, sorted, no repeats.
    pub ids: Vec<String>,
    /// Their count points as a JSON array, ascending: the argument of
    /// `count_point_id IN (SELECT value FROM json_each(?))`, written once.
    pub count_points: Arc<str>,
}

impl AreaFilter {
    /// The filter in a canonical form: the set, its version and its areas.
    pub fn key(&self) -> String {
        format!("{:?} {} {:?}", self.set, self.sha256, self.ids)
    }
}

/// A set's areas and their count points, for the totals by area (`group_by=area:{set}`).
#[derive(Debug, Clone)]
pub struct AreaGrouping {
    pub set: String,
    /// The set's SHA-256: a replaced set is another question.
    pub sha256: String,
    /// Each area's name, by id.
    pub names: Arc<HashMap<String, String>>,
    /// Each (area id, count point) the release holds, a JSON array of pairs: the argument of
    /// a join with `json_each(?)`.
    pub pairs: Arc<str>,
    /// The tables of totals by area (`<table>_totals_area`, `roadtraffic_areas::totals`) of
    /// the file served that hold this set: the latest file's, assigned by the same rule from
    /// the same count points (none for an older release, whose file holds no sets).
    pub totals_tables: Arc<[String]>,
}

/// Finds the count points of a set's areas for a request's filters and totals.
pub trait AreaLookup {
    /// The count points of the areas `ids` of `set`, together; a 400 naming an unknown set or
    /// id.
    fn area_filter(&self, set: &str, ids: &[&str]) -> Result<AreaFilter, ApiError>;

    /// Every area of `set` with its count points; a 400 naming an unknown set.
    fn grouping(&self, set: &str) -> Result<AreaGrouping, ApiError>;
}

/// No sets: every `filter[area]` is a 400 (for what reads filters where no release is at
/// hand, as the tests of the parameters).
pub struct NoAreas;

impl AreaLookup for NoAreas {
    fn area_filter(&self, set: &str, _: &[&str]) -> Result<AreaFilter, ApiError> {
        Err(unknown_set(set, &[]))
    }

    fn grouping(&self, set: &str) -> Result<AreaGrouping, ApiError> {
        Err(unknown_set(set, &[]))
    }
}

/// The 400 of a set that is not stored, naming those that are.
pub fn unknown_set(set: &str, known: &[&str]) -> ApiError {
    ApiError::BadRequest(format!(
        "There is no area set `{set}`: the sets are `{}` (see /api/areas).",
        known.join(", ")
    ))
}

/// The 400 of area ids a set does not have.
pub fn unknown_areas(set: &str, ids: &[&str]) -> ApiError {
    ApiError::BadRequest(format!(
        "The area set `{set}` has no area(s) `{}`.",
        ids.join(", ")
    ))
}

/// `{set}:{id}[,{id}...]` read: the set and its ids (trimmed, no empty ones); a 400 for
/// anything else. `None` when empty (it keeps every row, as any empty filter).
pub fn parse(text: &str) -> Result<Option<(&str, Vec<&str>)>, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let shape = || {
        ApiError::BadRequest(format!(
            "filter[area] must be a set's name, a colon and one or more of its areas' ids \
             separated by commas (`constituencies:E14001063,E14001064`), not `{text}`."
        ))
    };
    let (set, ids) = text.split_once(':').ok_or_else(shape)?;
    let ids = super::params::list(ids);
    if set.trim().is_empty() || ids.is_empty() {
        return Err(shape());
    }
    Ok(Some((set.trim(), ids)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_and_its_ids_are_read_and_anything_else_is_a_400() {
        assert_eq!(parse("w:a, b,").unwrap(), Some(("w", vec!["a", "b"])));
        assert_eq!(parse(" ").unwrap(), None);
        for bad in ["w", "w:", ":a", "w: , "] {
            assert!(matches!(parse(bad), Err(ApiError::BadRequest(_))), "{bad}");
        }
        // An id may hold a colon: only the first one ends the set's name.
        assert_eq!(parse("w:a:b").unwrap(), Some(("w", vec!["a:b"])));
    }
}
