//! Rows in flight between a file's reader thread and the merge: batches of values encoded
//! back to back (a tag byte, then the value), so that a batch is two allocations, equal values
//! are equal bytes, and keys compare in SQLite's order.

use std::cmp::Ordering;
use std::ops::Range;

use rusqlite::types::ValueRef;

/// Rows travel from a reader to the merge in batches of this many.
pub const BATCH_ROWS: usize = 4096;

const NULL: u8 = 0;
const INTEGER: u8 = 1;
const REAL: u8 = 2;
const TEXT: u8 = 3;
const BLOB: u8 = 4;

/// Rows of `width` values each.
#[derive(Debug, Default)]
pub struct Batch {
    bytes: Vec<u8>,
    /// Where each value ends in `bytes`, row after row.
    ends: Vec<u32>,
    width: usize,
}

impl Batch {
    pub fn new(width: usize) -> Self {
        Batch {
            bytes: Vec::with_capacity(BATCH_ROWS * width * 10),
            ends: Vec::with_capacity(BATCH_ROWS * width),
            width,
        }
    }

    pub fn rows(&self) -> usize {
        self.ends.len().checked_div(self.width).unwrap_or(0)
    }

    pub fn is_full(&self) -> bool {
        self.rows() >= BATCH_ROWS
    }

    /// Appends one value (rows are `width` values one after another).
    pub fn push(&mut self, value: ValueRef<'_>) {
        match value {
            ValueRef::Null => self.bytes.push(NULL),
            ValueRef::Integer(i) => {
                self.bytes.push(INTEGER);
                self.bytes.extend_from_slice(&i.to_le_bytes());
            }
            ValueRef::Real(f) => {
                self.bytes.push(REAL);
                self.bytes.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            ValueRef::Text(t) => {
                self.bytes.push(TEXT);
                self.bytes.extend_from_slice(t);
            }
            ValueRef::Blob(b) => {
                self.bytes.push(BLOB);
                self.bytes.extend_from_slice(b);
            }
        }
        self.ends.push(self.bytes.len() as u32);
    }

    /// The encoded values, for equality.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// Appends a value already encoded (of this batch or another).
    pub fn push_encoded(&mut self, value: Value<'_>) {
        self.bytes.extend_from_slice(value.0);
        self.ends.push(self.bytes.len() as u32);
    }

    /// Appends a whole row of another batch of the same width.
    pub fn copy_row(&mut self, from: &Batch, row: usize) {
        for c in 0..self.width {
            self.push_encoded(from.value(row, c));
        }
    }

    /// Row `row`, value `column`, encoded.
    pub fn value(&self, row: usize, column: usize) -> Value<'_> {
        let at = row * self.width + column;
        let start = match at {
            0 => 0,
            _ => self.ends[at - 1] as usize,
        };
        Value(&self.bytes[start..self.ends[at] as usize])
    }
}

/// One encoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value<'a>(&'a [u8]);

impl<'a> Value<'a> {
    fn tag(&self) -> u8 {
        self.0.first().copied().unwrap_or(NULL)
    }

    fn payload(&self) -> &'a [u8] {
        self.0.get(1..).unwrap_or_default()
    }

    fn eight(&self) -> [u8; 8] {
        self.payload().try_into().unwrap_or_default()
    }

    pub fn as_int(&self) -> Option<i64> {
        (self.tag() == INTEGER).then(|| i64::from_le_bytes(self.eight()))
    }

    fn as_number(&self) -> Option<f64> {
        match self.tag() {
            INTEGER => Some(i64::from_le_bytes(self.eight()) as f64),
            REAL => Some(f64::from_bits(u64::from_le_bytes(self.eight()))),
            _ => None,
        }
    }

    /// SQLite's order of types: null, numbers, text, blobs.
    fn rank(&self) -> u8 {
        match self.tag() {
            INTEGER | REAL => 1,
            TEXT => 2,
            BLOB => 3,
            _ => 0,
        }
    }

    /// As JSON, for the report (a key's values).
    pub fn to_json(self) -> serde_json::Value {
        match self.tag() {
            INTEGER => self.as_int().into(),
            REAL => self.as_number().into(),
            TEXT | BLOB => String::from_utf8_lossy(self.payload()).into_owned().into(),
            _ => serde_json::Value::Null,
        }
    }
}

impl Ord for Value<'_> {
    /// As SQLite orders values with the BINARY collation.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.tag(), other.tag()) {
            (INTEGER, INTEGER) => self.as_int().cmp(&other.as_int()),
            (INTEGER | REAL, INTEGER | REAL) => {
                let (a, b) = (self.as_number(), other.as_number());
                a.partial_cmp(&b).unwrap_or(Ordering::Equal)
            }
            (a, b) if a == b => self.payload().cmp(other.payload()),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Value<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares the values `columns` of two rows, as `ORDER BY` them does.
pub fn compare_keys(a: (&Batch, usize), b: (&Batch, usize), columns: Range<usize>) -> Ordering {
    columns
        .map(|c| a.0.value(a.1, c).cmp(&b.0.value(b.1, c)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_order_as_sqlite() {
        let mut b = Batch::new(3);
        for v in [
            ValueRef::Integer(-5),
            ValueRef::Text(b"N"),
            ValueRef::Null,
            ValueRef::Integer(7),
            ValueRef::Text(b"E"),
            ValueRef::Real(6.5),
        ] {
            b.push(v);
        }
        assert_eq!(b.rows(), 2);
        assert_eq!(b.value(0, 0).as_int(), Some(-5));
        assert_eq!(b.value(1, 1).to_json(), serde_json::json!("E"));
        assert!(b.value(0, 2) < b.value(1, 2), "null before numbers");
        assert!(b.value(1, 2) < b.value(1, 0), "6.5 before 7");
        assert!(b.value(1, 0) < b.value(0, 1), "numbers before text");
        assert_eq!(compare_keys((&b, 0), (&b, 1), 0..1), Ordering::Less);
        assert_eq!(compare_keys((&b, 0), (&b, 0), 0..3), Ordering::Equal);
        let mut c = Batch::new(3);
        c.copy_row(&b, 1);
        assert_eq!(compare_keys((&b, 1), (&c, 0), 0..3), Ordering::Equal);
    }
}
