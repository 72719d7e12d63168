//! The byte stream of a CSV source, watched before the CSV parser sees it.
//!
//! The parser holds a whole record in memory before it hands it on, so a file with no line end
//! (1 GiB of NUL bytes, `/dev/zero` copied under a `.csv` name, a 10 MB line) would be read
//! whole. [`RecordGuard`] follows the quoting of the stream as the parser does (a quote opens a
//! quoted field only at the start of a field; `""` inside is a quote) and fails the read as soon
//! as one record passes its limit. On the way it notes what the parser accepts silently: text
//! after a closing quote, and a last line without a line end (a file cut short, perhaps).
//! It finds the bytes that matter with `memchr`, so it costs little next to the parsing itself.

use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;

use crate::error::RecordTooLong;

/// What the guard saw of the stream, read once the parser is done.
#[derive(Debug, Default, Clone)]
pub struct StreamNotes {
    /// Lines where text follows a closing quote (`"Isles of Scilly"x`): the first few.
    pub text_after_quote: Vec<u64>,
    pub text_after_quote_count: u64,
    /// The last line, when the stream does not end with a line end.
    pub unterminated_last_line: Option<u64>,
}

/// How many places of each note are kept.
const NOTED: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// Outside a quoted field: a quote at the start of a field opens one.
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: the next byte says whether it closed the field.
    QuoteInQuoted,
}

pub struct RecordGuard<R> {
    inner: R,
    max_bytes: u64,
    state: Quoting,
    /// Bytes of the current record so far.
    record_bytes: u64,
    record_line: u64,
    line: u64,
    last_byte: Option<u8>,
    notes: Rc<RefCell<StreamNotes>>,
    /// Whether the lines up to a quote are counted in one pass ([`Self::skip_short_lines`]);
    /// the tests turn it off to compare with the guard going line by line.
    skip_lines: bool,
}

impl<R: Read> RecordGuard<R> {
    /// The guard, and a handle on its notes.
    pub fn new(inner: R, max_bytes: u64) -> (Self, Rc<RefCell<StreamNotes>>) {
        let notes = Rc::new(RefCell::new(StreamNotes::default()));
        let guard = RecordGuard {
            inner,
            max_bytes,
            state: Quoting::Unquoted,
            record_bytes: 0,
            record_line: 1,
            line: 1,
            last_byte: None,
            notes: notes.clone(),
            skip_lines: true,
        };
        (guard, notes)
    }

    /// A record ends at `at`, the index in `bytes` of its line end; `start` is where it began
    /// in `bytes` (0 if in an earlier read).
    fn end_of_record(&mut self, start: usize, at: usize) -> Result<(), RecordTooLong> {
        self.check_length(self.record_bytes + (at - start) as u64)?;
        self.record_bytes = 0;
        self.state = Quoting::Unquoted;
        self.line += 1;
        self.record_line = self.line;
        Ok(())
    }

    fn check_length(&self, bytes: u64) -> Result<(), RecordTooLong> {
        if bytes > self.max_bytes {
            return Err(RecordTooLong {
                line: self.record_line,
                max_bytes: self.max_bytes,
            });
        }
        Ok(())
    }

    /// Follows the quoting through `bytes`, jumping between the bytes that can change it, and
    /// checks the length of every record as it ends (and of the one still open at the end).
    fn scan(&mut self, bytes: &[u8]) -> Result<(), RecordTooLong> {
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            if self.state == Quoting::QuoteInQuoted {
                self.state = match bytes[i] {
                    b'"' => Quoting::Quoted,
                    b',' | b'\t' | b'\n' | b'\r' => Quoting::Unquoted,
                    _ => {
                        self.note_text_after_quote();
                        Quoting::Unquoted
                    }
                };
                if bytes[i] == b'\n' {
                    self.end_of_record(start, i)?;
                    start = i + 1;
                }
                i += 1;
                continue;
            }
            if self.state == Quoting::Unquoted && self.skip_lines {
                i = self.skip_short_lines(bytes, i, &mut start);
            }
            let Some(found) = memchr::memchr2(b'"', b'\n', &bytes[i..]) else {
                break;
            };
            let at = i + found;
            let before = if at > 0 {
                Some(bytes[at - 1])
            } else {
                self.last_byte
            };
            let opens_field = matches!(before, None | Some(b',' | b'\t' | b'\n'));
            match (bytes[at], self.state) {
                (b'\n', Quoting::Quoted) => self.line += 1,
                (b'\n', _) => {
                    self.end_of_record(start, at)?;
                    start = at + 1;
                }
                (_, Quoting::Quoted) => self.state = Quoting::QuoteInQuoted,
                _ if opens_field => self.state = Quoting::Quoted,
                // A quote inside an unquoted field is an ordinary character to the parser.
                _ => self.state = Quoting::Unquoted,
            }
            i = at + 1;
        }
        self.record_bytes += (bytes.len() - start) as u64;
        self.check_length(self.record_bytes)
    }

    /// Outside quotes only a quote changes the state, so the records that end before the next
    /// quote need no look one by one while even the first of them, begun before `from`, would
    /// end within the limit: their lines are counted in one pass, in a window no longer than
    /// the limit (so that each byte is looked at a bounded number of times whatever the limit).
    /// Where to go on from: past the last line end counted, or `from` if none. A file of 1 GiB
    /// of empty lines took 17 s with a `memchr` a line.
    fn skip_short_lines(&mut self, bytes: &[u8], from: usize, start: &mut usize) -> usize {
        let room = self.max_bytes.saturating_sub(self.record_bytes);
        let end = (*start as u64).saturating_add(room).min(bytes.len() as u64) as usize;
        let window = &bytes[from..end.max(from)];
        let span = memchr::memchr(b'"', window).map_or(window, |q| &window[..q]);
        let Some(last) = memchr::memrchr(b'\n', span) else {
            return from;
        };
        self.line += span[..=last].iter().filter(|&&b| b == b'\n').count() as u64;
        self.record_line = self.line;
        self.record_bytes = 0;
        *start = from + last + 1;
        *start
    }

    fn note_text_after_quote(&mut self) {
        let mut notes = self.notes.borrow_mut();
        notes.text_after_quote_count += 1;
        if notes.text_after_quote.len() < NOTED && notes.text_after_quote.last() != Some(&self.line)
        {
            notes.text_after_quote.push(self.line);
        }
    }
}

impl<R: Read> Read for RecordGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            if self.last_byte.is_some_and(|b| b != b'\n') {
                self.notes.borrow_mut().unterminated_last_line = Some(self.line);
            }
            return Ok(0);
        }
        let bytes = &buf[..n];
        let scanned = self.scan(bytes);
        self.last_byte = bytes.last().copied();
        scanned.map_err(|too_long| io::Error::new(io::ErrorKind::InvalidData, too_long))?;
        Ok(n)
    }
}

/// The [`RecordTooLong`] inside an error of the CSV parser, if that is what stopped it.
pub fn record_too_long(e: &csv::Error) -> Option<&RecordTooLong> {
    match e.kind() {
        csv::ErrorKind::Io(io) => io.get_ref()?.downcast_ref::<RecordTooLong>(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads everything through a guard in reads of `step` bytes.
    fn run(text: &[u8], max: u64, step: usize) -> (io::Result<()>, StreamNotes) {
        let (mut guard, notes) = RecordGuard::new(text, max);
        let mut buf = vec![0u8; step];
        let result = loop {
            match guard.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(_) => {}
                Err(e) => break Err(e),
            }
        };
        let notes = notes.borrow().clone();
        (result, notes)
    }

    #[test]
    fn long_records_are_refused_at_their_line_whatever_the_reads() {
        let mut text = b"a,b\n1,2\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 5000));
        text.extend(b"\n3,4\n");
        for step in [1, 7, 64, 8192] {
            let (result, _) = run(&text, 1000, step);
            let err = result.unwrap_err();
            let inner = err
                .get_ref()
                .unwrap()
                .downcast_ref::<RecordTooLong>()
                .unwrap();
            assert_eq!(inner.line, 3, "step {step}");
        }
        let (result, _) = run(&text, 10_000, 64);
        assert!(result.is_ok());
    }

    /// Reads everything through a guard in reads of `step` bytes, line by line or not; the
    /// result's error as its line.
    fn outcome(text: &[u8], max: u64, step: usize, skip_lines: bool) -> (Option<u64>, String) {
        let (mut guard, notes) = RecordGuard::new(text, max);
        guard.skip_lines = skip_lines;
        let mut buf = vec![0u8; step];
        let failed = loop {
            match guard.read(&mut buf) {
                Ok(0) => break None,
                Ok(_) => {}
                Err(e) => {
                    let too_long = e.get_ref().unwrap().downcast_ref::<RecordTooLong>();
                    break Some(too_long.unwrap().line);
                }
            }
        };
        let notes = format!("{:?} line {}", notes.borrow(), guard.line);
        (failed, notes)
    }

    proptest::proptest! {
        #[test]
        fn lines_counted_in_one_pass_fare_as_line_by_line(
            text in proptest::collection::vec(
                proptest::sample::select(b"ab,\t\"\r\n\n\n".to_vec()), 0..200),
            max in 0u64..40,
            step in 1usize..64,
        ) {
            proptest::prop_assert_eq!(
                outcome(&text, max, step, true),
                outcome(&text, max, step, false)
            );
        }
    }

    #[test]
    fn quoted_line_ends_belong_to_the_record() {
        let mut text = b"a,b\n\"".to_vec();
        for _ in 0..100 {
            text.extend(b"line\n");
        }
        text.extend(b"\",2\n");
        let (result, _) = run(&text, 300, 16);
        assert!(result.is_err(), "one record of 500 bytes over many lines");
        let (result, notes) = run(&text, 1000, 16);
        assert!(result.is_ok());
        assert!(notes.text_after_quote.is_empty());
    }

    #[test]
    fn notes_text_after_a_closing_quote_and_a_missing_line_end() {
        let text = b"a,b\n\"Isles of Scilly\"x,1\n\"A \"\"quoted\"\" word\",2\nx\"y,3\n4,5";
        for step in [1, 3, 100] {
            let (result, notes) = run(text, 1000, step);
            assert!(result.is_ok());
            assert_eq!(notes.text_after_quote, vec![2], "step {step}");
            assert_eq!(notes.unterminated_last_line, Some(5));
        }
        let (_, notes) = run(b"a,b\n1,2\n", 1000, 4);
        assert_eq!(notes.unterminated_last_line, None);
    }
}
