//! Which page of rows a listing asks for, and its arithmetic: a page number of any size, the
//! page's rows, `from` and `to`.

use roadtraffic_catalog::json;

/// A requested page number: any positive integer. One past `i64::MAX` can only be past the
/// last page; its digits are kept so that the envelope writes it, and the page before it,
/// back exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageNumber {
    Small(i64),
    /// Decimal digits, no leading zero, greater than `i64::MAX`.
    Huge(String),
}

impl PageNumber {
    /// From decimal digits (any number of them); `None` for zero.
    pub fn from_digits(digits: &str) -> Option<PageNumber> {
        let digits = digits.trim_start_matches('0');
        if digits.is_empty() {
            return None;
        }
        Some(match digits.parse::<i64>() {
            Ok(n) => PageNumber::Small(n),
            Err(_) => PageNumber::Huge(digits.to_string()),
        })
    }

    /// The number, or `i64::MAX` for one beyond it (every page arithmetic saturates).
    pub fn value(&self) -> i64 {
        match self {
            PageNumber::Small(n) => *n,
            PageNumber::Huge(_) => i64::MAX,
        }
    }

    /// The page before this one, if any.
    pub fn previous(&self) -> Option<PageNumber> {
        match self {
            PageNumber::Small(n) => (*n > 1).then(|| PageNumber::Small(n - 1)),
            PageNumber::Huge(digits) => PageNumber::from_digits(&decrement(digits)),
        }
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            PageNumber::Small(n) => json::int(out, *n),
            PageNumber::Huge(digits) => out.extend_from_slice(digits.as_bytes()),
        }
    }
}

impl std::fmt::Display for PageNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageNumber::Small(n) => write!(f, "{n}"),
            PageNumber::Huge(digits) => f.write_str(digits),
        }
    }
}

/// A positive decimal number minus one, in decimal.
fn decrement(digits: &str) -> String {
    let mut out: Vec<u8> = digits.bytes().collect();
    for d in out.iter_mut().rev() {
        if *d == b'0' {
            *d = b'9';
        } else {
            *d -= 1;
            break;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// One page of a listing, as the envelope describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub number: PageNumber,
    pub size: i64,
    pub total: i64,
}

impl Page {
    pub fn last_page(&self) -> i64 {
        ((self.total + self.size - 1) / self.size).max(1)
    }
    /// 0-based position of the first record of the page.
    pub fn offset(&self) -> i64 {
        (self.number.value() - 1).saturating_mul(self.size)
    }
    /// `from` and `to`: 1-based positions of the first and last record, when there are any.
    pub fn range(&self) -> Option<(i64, i64)> {
        let first = self.offset().saturating_add(1);
        (first <= self.total).then(|| {
            (
                first,
                self.offset().saturating_add(self.size).min(self.total),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let page = |number: i64, total: i64| Page {
            number: PageNumber::Small(number),
            size: 10,
            total,
        };
        assert_eq!(
            (page(3, 25).last_page(), page(3, 25).range()),
            (3, Some((21, 25)))
        );
        assert_eq!(page(4, 25).range(), None);
        assert_eq!((page(1, 0).last_page(), page(1, 0).range()), (1, None));
    }

    #[test]
    fn page_numbers_of_any_size() {
        let huge = PageNumber::from_digits("0009223372036854775808").unwrap();
        assert_eq!(huge, PageNumber::Huge("9223372036854775808".into()));
        assert_eq!(huge.previous(), Some(PageNumber::Small(i64::MAX)));
        let more = PageNumber::from_digits("100000000000000000000000").unwrap();
        assert_eq!(
            more.previous().unwrap().to_string(),
            "99999999999999999999999"
        );
        assert_eq!(PageNumber::from_digits("000"), None);
        let page = Page {
            number: more,
            size: 250,
            total: 1000,
        };
        assert_eq!(page.range(), None);
    }
}
