//! OGC's `datetime` parameter: an RFC 3339 date-time, or an interval of two with either end
//! open (`..` or empty), made into a range over what gives a collection's records their time
//! (see [`Timing`]). A record matches when its time and the parameter's share an instant: a
//! year when any part of it is in the interval, an hour of a count likewise.
//!
//! Beside RFC 3339 date-times, a bare date (`2019-05-14`) is taken as that whole day (UTC),
//! as clients that filter on dates write it. Offsets are honoured: `2019-01-01T00:30:00+01:00`
//! is 23:30 UTC on the last day of 2018.

use roadtraffic_catalog::dates;
use rusqlite::types::Value as SqlValue;

use super::collection::{Collection, Timing};
use crate::rows::{Condition, Range};

/// The parameter's name, for messages.
const NAME: &str = "datetime";

/// Seconds since 1970-01-01T00:00:00Z (before it, negative).
type Seconds = i64;

/// A span of time, both ends included, either open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: Option<Seconds>,
    pub end: Option<Seconds>,
}

/// Which end of a span a date-time bounds: a bare date starts at its first second and ends
/// at its last.
#[derive(Clone, Copy)]
enum End {
    Start,
    End,
}

impl Span {
    /// The parameter's text, or a message saying what is wrong with it.
    pub fn parse(text: &str) -> Result<Span, String> {
        let Some((from, to)) = text.split_once('/') else {
            return Ok(Span {
                start: Some(instant(text, End::Start)?),
                end: Some(instant(text, End::End)?),
            });
        };
        let open = |t: &str| t.is_empty() || t == "..";
        if open(from) && open(to) {
            return Err(format!(
                "{NAME} `{text}`: an interval needs at least one end (`start/..` or `../end`)."
            ));
        }
        let bound = |t: &str, end| match open(t) {
            true => Ok(None),
            false => instant(t, end).map(Some),
        };
        let span = Span {
            start: bound(from, End::Start)?,
            end: bound(to, End::End)?,
        };
        if let (Some(s), Some(e)) = (span.start, span.end) {
            if s > e {
                return Err(format!(
                    "{NAME} `{text}`: the interval ends before it starts."
                ));
            }
        }
        Ok(span)
    }

    /// The condition that keeps the records of `collection` whose time shares an instant with
    /// the span; `None` for a collection whose records have no time (each matches any span).
    pub fn condition(&self, collection: &Collection) -> Option<Condition> {
        let (columns, at): (_, fn(Seconds) -> Vec<SqlValue>) = match collection.timing()? {
            Timing::Year(year) => (vec![year], |t| vec![SqlValue::Integer(civil(t).0)]),
            // The hour that holds the instant: a record's hour shares an instant with the
            // span exactly when it is from the hour of its start to the hour of its end.
            Timing::Hour { date, hour } => (vec![date, hour], |t| {
                let (y, m, d) = civil(t);
                vec![
                    SqlValue::Text(format!("{y:04}-{m:02}-{d:02}")),
                    SqlValue::Integer(t.rem_euclid(86_400) / 3_600),
                ]
            }),
        };
        let d = collection.dataset();
        let or_null = !(columns[0].filled || d.natural_key.contains(&columns[0].name));
        Some(Condition::Range(Range {
            columns,
            low: self.start.map(at),
            high: self.end.map(at),
            or_null,
        }))
    }
}

/// One end of the parameter: an RFC 3339 date-time (`2019-05-14T08:30:00Z`, any offset,
/// fractions of a second), or a bare date as the first or last second of its day.
fn instant(text: &str, end: End) -> Result<Seconds, String> {
    let bad = |why: &str| format!("{NAME} `{text}` is not an RFC 3339 date-time ({why}).");
    let (date, time) = match text.find(['T', 't']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let days = date_days(date).ok_or_else(|| bad("the date must be YYYY-MM-DD"))?;
    let seconds = match (time, end) {
        (Some(time), _) => time_seconds(time).ok_or_else(|| {
            bad("the time must be hh:mm:ss, with a fraction if any, then Z or an offset ±hh:mm")
        })?,
        (None, End::Start) => 0,
        (None, End::End) => 86_399,
    };
    Ok(days * 86_400 + seconds)
}

/// `YYYY-MM-DD`, a real calendar day: days since 1970-01-01.
fn date_days(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let shaped = b.len() == 10 && b[4] == b'-' && b[7] == b'-';
    if !shaped {
        return None;
    }
    let (y, m, d) = (
        digits(&text[0..4])?,
        digits(&text[5..7])?,
        digits(&text[8..10])?,
    );
    ((1..=12).contains(&m) && (1..=dates::days_in_month(y, m)).contains(&d))
        .then(|| dates::days_from_civil(y, m, d))
}

/// `hh:mm:ss[.fraction](Z|±hh:mm)`: seconds after the day's UTC midnight (negative, or a day
/// and more, when the offset takes it to another day). A leap second reads as the next.
fn time_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, m, s) = (
        digits(&text[0..2])?,
        digits(&text[3..5])?,
        digits(&text[6..8])?,
    );
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    let mut rest = &text[8..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        rest = &fraction[len..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => offset_seconds(rest)?,
    };
    Some(h * 3_600 + m * 60 + s - offset)
}

/// `+hh:mm` or `-hh:mm`: seconds ahead of UTC.
fn offset_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 6 || b[3] != b':' {
        return None;
    }
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, m) = (digits(&text[1..3])?, digits(&text[4..6])?);
    (h <= 23 && m <= 59).then_some(sign * (h * 3_600 + m * 60))
}

/// ASCII digits only (no sign, no blank) as a number.
fn digits(text: &str) -> Option<i64> {
    let all = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    all.then(|| text.parse().ok()).flatten()
}

/// The UTC calendar date (year, month, day) of an instant.
fn civil(t: Seconds) -> (i64, i64, i64) {
    dates::civil_from_days(t.div_euclid(86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Seconds {
        instant(text, End::Start).unwrap()
    }

    #[test]
    fn date_times_are_read_to_utc() {
        assert_eq!(at("1970-01-01T00:00:00Z"), 0);
        assert_eq!(at("2019-05-14T08:30:00Z"), 1_557_822_600);
        assert_eq!(at("2019-05-14t08:30:00.999z"), 1_557_822_600);
        assert_eq!(at("2019-05-14T09:30:00+01:00"), 1_557_822_600);
        assert_eq!(civil(at("2019-01-01T00:30:00+01:00")), (2018, 12, 31));
        assert_eq!(civil(at("2000-02-29T12:00:00Z")), (2000, 2, 29));
        assert_eq!(civil(at("1969-12-31T23:59:59Z")), (1969, 12, 31));
        assert_eq!(
            instant("2019-05-14", End::End).unwrap(),
            at("2019-05-14T23:59:59Z")
        );
    }

    #[test]
    fn anything_else_is_refused_with_what_is_wrong() {
        for text in [
            "2019",
            "2019-02-29T00:00:00Z",
            "2019-05-14T24:00:00Z",
            "2019-05-14T08:30:00",
            "2019-05-14T08:30Z",
            "2019-05-14T08:30:00+0100",
            "2019-05-14T08:30:00.Z",
            "+019-05-14T08:30:00Z",
            "2019-05-14T08:30:00Z/2019-05-13T00:00:00Z",
            "../..",
            "/",
            "2019-05-14T08:30:00Z/2019-05-15T00:00:00Z/..",
        ] {
            let refused = Span::parse(text).expect_err(text);
            assert!(refused.starts_with("datetime `"), "{refused}");
        }
    }

    #[test]
    fn intervals_have_open_ends() {
        let t = at("2019-05-14T08:30:00Z");
        let open_start = Span::parse("../2019-05-14T08:30:00Z").unwrap();
        assert_eq!((open_start.start, open_start.end), (None, Some(t)));
        let open_end = Span::parse("2019-05-14T08:30:00Z/").unwrap();
        assert_eq!((open_end.start, open_end.end), (Some(t), None));
        let instant = Span::parse("2019-05-14T08:30:00Z").unwrap();
        assert_eq!((instant.start, instant.end), (Some(t), Some(t)));
    }

    #[test]
    fn a_year_or_an_hour_matches_when_it_shares_an_instant() {
        let raw_counts = Collection::find("raw-counts").unwrap();
        let span = Span::parse("2018-12-31T23:30:00-01:00/2019-05-14T08:00:00Z").unwrap();
        let Some(Condition::Range(range)) = span.condition(&raw_counts) else {
            panic!("a range")
        };
        let text = |v: &Option<Vec<SqlValue>>| format!("{v:?}");
        assert_eq!(
            text(&range.low),
            r#"Some([Text("2019-01-01"), Integer(0)])"#
        );
        assert_eq!(
            text(&range.high),
            r#"Some([Text("2019-05-14"), Integer(8)])"#
        );
        assert!(!range.or_null);
        let count_points = Collection::find("count-points").unwrap();
        let Some(Condition::Range(range)) = span.condition(&count_points) else {
            panic!("a range")
        };
        assert_eq!(text(&range.low), "Some([Integer(2019)])");
        assert!(
            range.or_null,
            "a count point without a year matches any span"
        );
    }
}
