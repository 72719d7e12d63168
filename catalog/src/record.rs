//! A dataset's JSON record as the public service writes it: the fields asked for, in record
//! order, each value straight from its SQLite column. The server writes records this way per
//! request; the loader, given `--rendered-records`, writes each record once with the same
//! layout and keeps its bytes in a table of their own (see [`rendered_table`]), which the server
//! then copies instead of writing the record field by field.

use crate::legacy::RetiredFields;
use crate::{json, Column, Dataset};

/// The bytes around a record's values.
pub struct RecordLayout {
    /// Each field's key, with what comes before it: `{"id":`, `,"year":`.
    keys: Vec<Vec<u8>>,
    /// What closes a record: `}`, after the retired fields if any.
    close: Vec<u8>,
}

impl RecordLayout {
    /// The layout of `fields`, with `retired` fields written as null when given (the 2019-2020
    /// records): right after the field they followed, or last when that field is not asked for,
    /// since the clients of that era select them by name whatever fields they asked for.
    pub fn new(fields: &[&'static Column], retired: Option<&RetiredFields>) -> Self {
        let mut keys: Vec<Vec<u8>> = fields
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut k = if i == 0 { b"{".to_vec() } else { b",".to_vec() };
                json::string(&mut k, c.name);
                k.push(b':');
                k
            })
            .collect();
        let mut close = Vec::new();
        if let Some(retired) = retired {
            let mut nulls = Vec::new();
            for name in retired.names {
                nulls.push(b',');
                json::string(&mut nulls, name);
                nulls.extend_from_slice(b":null");
            }
            if keys.is_empty() {
                nulls.remove(0); // the record is opened bare, with no field before these
            }
            let after = fields.iter().position(|c| c.name == retired.after);
            match after.and_then(|i| keys.get_mut(i + 1)) {
                Some(next) => drop(next.splice(0..0, nulls)),
                None => close = nulls,
            }
        }
        close.push(b'}');
        RecordLayout { keys, close }
    }

    /// Every field of today's records: the layout of rendered records.
    pub fn whole(dataset: &Dataset) -> Self {
        let fields: Vec<&'static Column> = dataset.stored_columns().collect();
        Self::new(&fields, None)
    }

    /// Writes a row whose columns are the layout's fields, in order.
    pub fn write(&self, out: &mut Vec<u8>, row: &rusqlite::Row) -> rusqlite::Result<()> {
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(key);
            json::value(out, row.get_ref(i)?);
        }
        if self.keys.is_empty() {
            out.push(b'{');
        }
        out.extend_from_slice(&self.close);
        Ok(())
    }

    /// What tells this layout apart from any other: kept beside rendered records, so that a
    /// server whose catalogue lays records out otherwise (a column added since the load) writes
    /// them from the columns instead of copying stale ones.
    pub fn tag(&self) -> String {
        let mut bytes = self.keys.concat();
        bytes.extend_from_slice(&self.close);
        // The record writer's own version: bump it when the bytes of a value change.
        bytes.extend_from_slice(b" php-json 1");
        format!(
            "{:016x}",
            crate::stable_hash(&String::from_utf8_lossy(&bytes))
        )
    }
}

/// The table of a dataset's rendered records: `id` (the row's) and `record` (its JSON bytes).
pub fn rendered_table(dataset: &Dataset) -> String {
    format!("{}_records", dataset.table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{legacy::retired_fields, AADF, COUNT_POINTS};

    fn opening(layout: &RecordLayout) -> String {
        String::from_utf8(layout.keys.concat()).unwrap() + &String::from_utf8_lossy(&layout.close)
    }

    #[test]
    fn retired_fields_follow_theirs_or_close_the_record() {
        let fields: Vec<&'static Column> = ["id", "link_length_miles", "pedal_cycles"]
            .iter()
            .map(|n| AADF.column(n).unwrap())
            .collect();
        let legacy = RecordLayout::new(&fields, retired_fields(&AADF));
        assert_eq!(
            opening(&legacy),
            r#"{"id":,"link_length_miles":,"sequence":null,"ramp":null,"pedal_cycles":}"#
        );
        let legacy = RecordLayout::new(&fields[..1], retired_fields(&AADF));
        assert_eq!(opening(&legacy), r#"{"id":,"sequence":null,"ramp":null}"#);
        let bare = RecordLayout::new(&[], retired_fields(&AADF));
        assert_eq!(opening(&bare), r#""sequence":null,"ramp":null}"#);
    }

    #[test]
    fn tags_differ_with_the_fields() {
        let whole = RecordLayout::whole(&AADF);
        assert_eq!(whole.tag(), RecordLayout::whole(&AADF).tag());
        assert_ne!(whole.tag(), RecordLayout::whole(&COUNT_POINTS).tag());
        let fewer: Vec<&'static Column> = AADF.stored_columns().skip(1).collect();
        assert_ne!(whole.tag(), RecordLayout::new(&fewer, None).tag());
    }
}
