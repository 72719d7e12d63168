//! Calendar dates of the raw counts: how they are written, and which day of the week they are.

use roadtraffic_catalog::dates::days_from_civil;

use crate::text::push_i64;

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    pub year: i64,
    pub month: i64,
    pub day: i64,
}

/// `YYYY-MM-DD`.
pub fn push_date(buf: &mut Vec<u8>, date: Date) {
    push_i64(buf, date.year);
    for part in [date.month, date.day] {
        buf.push(b'-');
        if part < 10 {
            buf.push(b'0');
        }
        push_i64(buf, part);
    }
}

/// 0 = Monday .. 6 = Sunday.
pub fn weekday(y: i64, m: i64, d: i64) -> i64 {
    (days_from_civil(y, m, d) + 3).rem_euclid(7)
}
