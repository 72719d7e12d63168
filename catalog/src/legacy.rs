//! The 2019-2020 form of the public API, which the mirror also serves at a second base path for
//! the clients written for it: the record fields it had that today's records lack.

use crate::{Dataset, AADF, AADF_BY_DIRECTION, RAW_COUNTS};

/// Fields a dataset's 2019-2020 records had and releases no longer hold. The legacy envelope
/// writes them as null right after the field `after`: where the published files of that era
/// had them (`..., link_length_miles, sequence, ramp, ...`). Clients of the era select them by
/// name (the R package trafficr drops them with `select(-sequence, -ramp)`, which stops when they
/// are missing), so their place only has to be a sensible one.
#[derive(Debug)]
pub struct RetiredFields {
    pub dataset: &'static Dataset,
    pub after: &'static str,
    pub names: &'static [&'static str],
}

const SEQUENCE_AND_RAMP: &[&str] = &["sequence", "ramp"];

pub static RETIRED_FIELDS: &[RetiredFields] = &[
    RetiredFields {
        dataset: &AADF,
        after: "link_length_miles",
        names: SEQUENCE_AND_RAMP,
    },
    RetiredFields {
        dataset: &AADF_BY_DIRECTION,
        after: "link_length_miles",
        names: SEQUENCE_AND_RAMP,
    },
    RetiredFields {
        dataset: &RAW_COUNTS,
        after: "link_length_miles",
        names: SEQUENCE_AND_RAMP,
    },
];

/// The retired fields of a dataset's legacy records, if it has any.
pub fn retired_fields(d: &Dataset) -> Option<&'static RetiredFields> {
    RETIRED_FIELDS.iter().find(|r| std::ptr::eq(r.dataset, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retired_fields_follow_a_stored_column_and_are_no_column() {
        for r in RETIRED_FIELDS {
            let d = r.dataset;
            assert!(d.column(r.after).is_some_and(|c| c.stored), "{}", d.table);
            for name in r.names {
                assert!(d.column(name).is_none(), "{}.{name}", d.table);
            }
        }
        assert!(retired_fields(&AADF).is_some());
        assert!(retired_fields(&crate::COUNT_POINTS).is_none());
    }
}
