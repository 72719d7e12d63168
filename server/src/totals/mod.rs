//! Totals: "how much, by what" answered from the release, never by a client paging through
//! the listing. Two questions of every paginated listing, with its own filters:
//!
//! - `<endpoint>/facets?facet=year&facet=road_category`: each column's values with how many
//!   records hold them, largest first (`facets`);
//! - `<endpoint>/summary?group_by=year&sum=all_motor_vehicles` (and `.csv`, `.ndjson`): one row
//!   per group with its count and the sums, averages, minima and maxima asked (`summary`).
//!
//! A question flows one way: checked against the catalogue (`question`), given the smallest source
//! that answers it exactly (`read_from`: a table of totals kept at load time, the runs table, or
//! the listing's own SQL), run under the query time limit, written (`write`). What may be
//! grouped and added up is the catalogue's (`roadtraffic_catalog::totals`).

mod by_area;
mod facets;
mod question;
mod read_from;
mod summary;
mod write;

pub use facets::write_json as facets_json;
pub use question::{
    Facets, Measure, Stat, Summary, AVG_DECIMALS, DECIMAL_TEXT_DECIMALS, DEFAULT_FACET_SIZE,
    DERIVED_DECIMALS, MAX_FACET_SIZE, MAX_GROUP_BY, MAX_SUMMARY_LIMIT, MAX_SUMMARY_OFFSET,
    MAX_SUMMARY_ROWS,
};
pub use read_from::{ReadFrom, Rollups};
pub use summary::{SummaryCell, SummaryRows};
pub use write::write as write_summary;
