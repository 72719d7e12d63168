//! The stored files (national CSV and Parquet on the sample) as RFC 9110 asks of a server that
//! offers byte ranges: each part's bytes are the same bytes as the whole file's, at the place
//! its `Content-Range` says.

use crate::support::*;

const RAW_CSV: &str = "/downloads/dft_traffic_counts_raw_counts.csv";
const AADF_PARQUET: &str = "/downloads/dft_traffic_counts_aadf.parquet";

/// The whole file, checked to be a stored file's answer, and its strong ETag.
fn whole(server: &TestServer, target: &str) -> (Reply, String) {
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}");
    assert_eq!(reply.header("accept-ranges"), Some("bytes"), "{target}");
    let length = reply.body.len().to_string();
    assert_eq!(reply.header("content-length"), Some(length.as_str()));
    assert!(reply.header("last-modified").is_some(), "{target}");
    let etag = reply.header("etag").unwrap().to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2,
        "{target}: a strong ETag, not {etag}"
    );
    (reply, etag)
}

fn ranged(server: &TestServer, target: &str, range: &str) -> Reply {
    request(server, "GET", target, &[("Range", range)])
}

/// Asserts a `206` of the one range `first..=last` of `full`.
fn assert_part(reply: &Reply, full: &[u8], first: usize, last: usize, what: &str) {
    assert_eq!(reply.status, 206, "{what}");
    let content_range = format!("bytes {first}-{last}/{}", full.len());
    assert_eq!(
        reply.header("content-range"),
        Some(content_range.as_str()),
        "{what}"
    );
    let length = (last - first + 1).to_string();
    assert_eq!(reply.header("content-length"), Some(length.as_str()));
    assert!(reply.body == full[first..=last], "{what}: other bytes");
}

#[test]
fn single_ranges_of_a_national_csv() {
    let server = sample_server();
    let (full, _) = whole(server, RAW_CSV);
    let full = full.body;
    let len = full.len();
    assert!(len > 10_000, "the sample's raw counts are {len} bytes");
    let cases = [
        ("bytes=0-99".to_string(), 0, 99),
        ("bytes=1000-4999".to_string(), 1000, 4999),
        ("bytes=-500".to_string(), len - 500, len - 1),
        (format!("bytes={}-", len - 300), len - 300, len - 1),
        // An end past the file is the file's end.
        (
            format!("bytes={}-{}", len - 10, len + 1000),
            len - 10,
            len - 1,
        ),
        // A suffix longer than the file is the whole file, as a 206.
        (format!("bytes=-{}", len * 2), 0, len - 1),
        ("bytes=7-7".to_string(), 7, 7),
    ];
    for (range, first, last) in cases {
        let reply = ranged(server, RAW_CSV, &range);
        assert_part(&reply, &full, first, last, &range);
        assert_eq!(
            reply.header("content-type"),
            Some("text/csv; charset=utf-8"),
            "{range}"
        );
    }
}

#[test]
fn ranges_past_the_end_are_416_with_the_length() {
    let server = sample_server();
    let len = whole(server, RAW_CSV).0.body.len();
    let star = format!("bytes */{len}");
    for range in [
        format!("bytes={len}-"),
        format!("bytes={}-{}", len + 10, len + 20),
        format!("bytes={len}-{len},{}-", len + 5),
    ] {
        let reply = ranged(server, RAW_CSV, &range);
        assert_eq!(reply.status, 416, "{range}");
        assert_eq!(
            reply.header("content-range"),
            Some(star.as_str()),
            "{range}"
        );
        assert!(reply.body.is_empty(), "{range}: {}", reply.text());
    }
    // One satisfiable range among unsatisfiable ones is answered alone.
    let reply = ranged(server, RAW_CSV, &format!("bytes={len}-,0-4"));
    assert_part(&reply, &whole(server, RAW_CSV).0.body, 0, 4, "one of two");
}

/// A `multipart/byteranges` body's parts: each one's `Content-Range` (first, last, length)
/// and bytes. Each part's bytes are taken by its `Content-Range`, then the boundary must
/// follow them: a part of another length than it says fails.
pub(super) fn parts(reply: &Reply) -> Vec<((usize, usize, usize), Vec<u8>)> {
    let content_type = reply.header("content-type").unwrap();
    let boundary = content_type
        .strip_prefix("multipart/byteranges; boundary=")
        .unwrap_or_else(|| panic!("not multipart: {content_type}"));
    let delimiter = format!("\r\n--{boundary}");
    let mut rest = reply.body.as_slice();
    let mut found = Vec::new();
    loop {
        rest = rest
            .strip_prefix(delimiter.as_bytes())
            .unwrap_or_else(|| panic!("no boundary at {:?}", String::from_utf8_lossy(rest)));
        if rest == b"--\r\n" {
            return found;
        }
        let end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        let range = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Range: bytes "))
            .unwrap_or_else(|| panic!("a part without its range: {head}"));
        let (span, len) = range.split_once('/').unwrap();
        let (first, last) = span.split_once('-').unwrap();
        let (first, last): (usize, usize) = (first.parse().unwrap(), last.parse().unwrap());
        rest = &rest[end + 4..];
        found.push((
            (first, last, len.parse().unwrap()),
            rest[..=last - first].to_vec(),
        ));
        rest = &rest[last - first + 1..];
    }
}

#[test]
fn several_ranges_are_multipart_merged_where_they_touch() {
    let server = sample_server();
    for target in [RAW_CSV, AADF_PARQUET] {
        let full = whole(server, target).0.body;
        let len = full.len();
        // 50-120 overlaps 100-199, 300-309 touches 310-319, and the parts come in file order.
        let range = "bytes=300-309,100-199,0-9,50-120,310-319,-20";
        let reply = ranged(server, target, range);
        assert_eq!(reply.status, 206, "{target}");
        assert_eq!(reply.header("content-range"), None, "{target}");
        let want = [(0, 9), (50, 199), (300, 319), (len - 20, len - 1)];
        let got = parts(&reply);
        assert_eq!(got.len(), want.len(), "{target}");
        for (((first, last, total), bytes), (want_first, want_last)) in got.iter().zip(want) {
            assert_eq!((*first, *last, *total), (want_first, want_last, len));
            assert!(bytes[..] == full[*first..=*last], "{target} {first}-{last}");
        }
        let length = reply.body.len().to_string();
        assert_eq!(reply.header("content-length"), Some(length.as_str()));
    }
}

#[test]
fn more_than_64_ranges_get_the_whole_file() {
    let server = sample_server();
    let full = whole(server, RAW_CSV).0.body;
    let spaced = |n: usize| (0..n).map(|i| format!("{}-{}", i * 10, i * 10 + 1));
    let many = format!("bytes={}", spaced(65).collect::<Vec<_>>().join(","));
    let reply = ranged(server, RAW_CSV, &many);
    assert_eq!(reply.status, 200);
    assert!(reply.body == full);
    let most = format!("bytes={}", spaced(64).collect::<Vec<_>>().join(","));
    let reply = ranged(server, RAW_CSV, &most);
    assert_eq!(reply.status, 206);
    assert_eq!(parts(&reply).len(), 64);
}

/// How a query engine reads a Parquet file in place: its last 8 bytes (the footer's length
/// and the magic), then the footer, by ranges.
#[test]
fn a_parquet_footer_read_by_ranges() {
    let server = sample_server();
    let full = whole(server, AADF_PARQUET).0.body;
    let len = full.len();
    let tail = ranged(server, AADF_PARQUET, "bytes=-8");
    assert_part(&tail, &full, len - 8, len - 1, "the tail");
    assert_eq!(&tail.body[4..], b"PAR1");
    assert_eq!(&full[..4], b"PAR1");
    let footer = u32::from_le_bytes(tail.body[..4].try_into().unwrap()) as usize;
    assert!(footer > 100 && footer < len, "a footer of {footer} bytes");
    let range = format!("bytes={}-{}", len - 8 - footer, len - 9);
    let reply = ranged(server, AADF_PARQUET, &range);
    assert_part(&reply, &full, len - 8 - footer, len - 9, "the footer");
    assert_eq!(
        reply.header("content-type"),
        Some("application/vnd.apache.parquet")
    );
}

#[test]
fn if_range_honours_only_the_current_validator() {
    let server = sample_server();
    for target in [RAW_CSV, AADF_PARQUET] {
        let (full, etag) = whole(server, target);
        let date = full.header("last-modified").unwrap().to_string();
        let with = |if_range: &str| {
            request(
                server,
                "GET",
                target,
                &[("Range", "bytes=10-19"), ("If-Range", if_range)],
            )
        };
        assert_part(&with(&etag), &full.body, 10, 19, "If-Range: the ETag");
        assert_part(&with(&date), &full.body, 10, 19, "If-Range: the date");
        // A stale tag, a weak one (If-Range compares strongly), an earlier date: all of it.
        let weak = format!("W/{etag}");
        for stale in [
            "\"0123456789abcdef\"",
            &weak,
            "Tue, 01 Jan 2019 00:00:00 GMT",
        ] {
            let reply = with(stale);
            assert_eq!(reply.status, 200, "{target}: If-Range: {stale}");
            assert_eq!(reply.header("content-range"), None);
            assert!(reply.body == full.body, "{target}: If-Range: {stale}");
        }
    }
}

#[test]
fn conditional_requests_on_a_stored_file() {
    let server = sample_server();
    let (full, etag) = whole(server, AADF_PARQUET);
    let conditional = |name: &str, value: &str| {
        request(
            server,
            "GET",
            AADF_PARQUET,
            &[(name, value), ("Range", "bytes=0-3")],
        )
    };
    let not_modified = conditional("If-None-Match", &etag);
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.body.is_empty());
    assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    let weak = format!("W/{etag}");
    assert_eq!(conditional("If-None-Match", &weak).status, 304, "weakly");
    let changed = conditional("If-None-Match", "\"0123456789abcdef\"");
    assert_part(&changed, &full.body, 0, 3, "If-None-Match: another");
    assert_eq!(conditional("If-Match", "\"0123456789abcdef\"").status, 412);
    assert_part(
        &conditional("If-Match", &etag),
        &full.body,
        0,
        3,
        "If-Match",
    );
    let date = full.header("last-modified").unwrap();
    assert_eq!(conditional("If-Modified-Since", date).status, 304);
    let before = "Tue, 01 Jan 2019 00:00:00 GMT";
    assert_eq!(conditional("If-Unmodified-Since", before).status, 412);
}

/// The headers a client decides on, as a HEAD or GET gives them.
fn described(reply: &Reply) -> Vec<(&str, Option<&str>)> {
    [
        "content-length",
        "content-type",
        "etag",
        "last-modified",
        "accept-ranges",
        "content-disposition",
        "content-range",
    ]
    .into_iter()
    .map(|h| (h, reply.header(h)))
    .collect()
}

#[test]
fn head_is_get_without_the_body() {
    let server = sample_server();
    for target in [RAW_CSV, AADF_PARQUET] {
        let (full, _) = whole(server, target);
        let head = request(server, "HEAD", target, &[]);
        assert_eq!(head.status, 200, "{target}");
        assert!(head.body.is_empty());
        assert_eq!(described(&head), described(&full), "{target}");
        // Range is defined for GET alone, and ignored on any other method (RFC 9110 §14.2).
        let ranged_head = request(server, "HEAD", target, &[("Range", "bytes=5-14")]);
        assert_eq!(ranged_head.status, 200, "{target}");
        assert_eq!(described(&ranged_head), described(&full), "{target}");
    }
}

#[test]
fn a_stored_file_is_the_same_bytes_each_time() {
    let server = sample_server();
    let zip = "/downloads/dft_traffic_counts_aadf.zip";
    let split = "/downloads/rawcount/region_id/dft_rawcount_region_id_4.parquet";
    for target in [RAW_CSV, AADF_PARQUET, zip, split] {
        let (first, etag) = whole(server, target);
        let (again, etag_again) = whole(server, target);
        assert!(first.body == again.body, "{target}");
        assert_eq!(etag, etag_again, "{target}");
        assert_eq!(first.header("last-modified"), again.header("last-modified"));
        let name = target.rsplit('/').next().unwrap();
        let disposition = format!("attachment; filename=\"{name}\"");
        assert_eq!(
            first.header("content-disposition"),
            Some(disposition.as_str())
        );
    }
}

/// A range as `curl -r 0-9` sends it, read off the socket: the status line, the length and
/// the bytes on the wire, with no client library between.
#[test]
fn a_range_on_the_wire() {
    let server = sample_server();
    let full = whole(server, RAW_CSV).0.body;
    let reply = raw_request(server, RAW_CSV.as_bytes(), "Range: bytes=0-9\r\n");
    assert_part(&reply, &full, 0, 9, "on the wire");
    assert_eq!(reply.header("transfer-encoding"), None);
    assert!(full.starts_with(b"count_poin"));
}

#[test]
fn streamed_listings_take_no_ranges() {
    let server = sample_server();
    for target in [
        "/api/average-annual-daily-flow.csv?filter%5Byear%5D=2019",
        "/api/average-annual-daily-flow.parquet?filter%5Byear%5D=2019",
    ] {
        let full = get(server, target);
        assert_eq!(full.status, 200, "{target}");
        assert_eq!(full.header("accept-ranges"), Some("none"), "{target}");
        // A Range is ignored: the whole listing, as a 200.
        let reply = ranged(server, target, "bytes=0-9");
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(reply.header("content-range"), None, "{target}");
        assert!(reply.body == full.body, "{target}");
    }
}

/// The national files of a second release: new bytes have a new ETag, and the old ETag no
/// longer matches (If-None-Match, If-Range).
#[test]
fn a_new_release_has_new_etags() {
    let dir = scratch_dir();
    let aadf = repo_path("data/sample/dft_traffic_counts_aadf.csv");
    let text = std::fs::read_to_string(&aadf).unwrap();
    let fewer = dir.join("dft_traffic_counts_aadf.csv");
    std::fs::write(
        &fewer,
        text.lines().take(21).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let db = dir.join("live.db");
    load_ok(&db, &["--quiet"], &[&fewer]);
    let server = serve(&db, &[]);
    let target = "/downloads/dft_traffic_counts_aadf.parquet";
    let (old, old_etag) = whole(&server, target);
    load_ok(&db, &["--quiet"], &[&aadf]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while get(&server, target).body == old.body {
        assert!(std::time::Instant::now() < deadline, "no new release");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (new, new_etag) = whole(&server, target);
    assert_ne!(old_etag, new_etag);
    let stale = request(&server, "GET", target, &[("If-None-Match", &old_etag)]);
    assert_eq!(stale.status, 200);
    assert!(stale.body == new.body);
    let stale_range = [("Range", "bytes=0-3"), ("If-Range", old_etag.as_str())];
    let reply = request(&server, "GET", target, &stale_range);
    assert_eq!(reply.status, 200);
    assert!(reply.body == new.body);
}
