//! Requests pipelined on one kept-alive connection (RFC 9112, section 9.3.2) are each answered
//! as if asked alone, in order. Answers built on the blocking pool finish after the requests
//! behind them are read; actix-http 3.20 then encoded each answer by the request read last, so
//! that a `GET` followed by a `HEAD` lost its body (the client waited for bytes that never
//! came) and a `HEAD` followed by a `GET` closed the connection. `vendor/actix-http` is patched
//! for it (`vendor/README.md`).

use std::io::{Read, Write};

use crate::support::*;

const PAGE: &str = "/api/raw-counts?page%5Bsize%5D=3";
const OTHER: &str = "/api/average-annual-daily-flow?page%5Bsize%5D=2&page%5Bnumber%5D=2";
const FILE: &str = "/downloads/dft_traffic_counts_aadf.csv";

/// A server that builds every page afresh (no response cache), so each takes a trip through the
/// blocking pool while the requests behind it are read.
fn uncached() -> TestServer {
    serve(
        sample_db(),
        &["--response-cache-mb", "0", "--lazy-downloads"],
    )
}

#[test]
fn each_pipelined_answer_is_the_answer_to_its_own_request() {
    let server = uncached();
    let (page, other, file) = (
        raw_get(&server, PAGE.as_bytes()),
        raw_get(&server, OTHER.as_bytes()),
        raw_get(&server, FILE.as_bytes()),
    );
    let mut stream = connect_raw(&server);
    let asked = [
        pipelined("GET", PAGE, ""),
        pipelined("HEAD", PAGE, ""),
        pipelined("GET", OTHER, ""),
        pipelined("HEAD", FILE, ""),
        pipelined("GET", FILE, ""),
        pipelined("HEAD", OTHER, ""),
        pipelined("GET", PAGE, ""),
    ];
    stream.write_all(asked.concat().as_bytes()).unwrap();
    for (i, expected) in [
        Some(&page),
        None,
        Some(&other),
        None,
        Some(&file),
        None,
        Some(&page),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = read_reply(&mut stream, expected.is_none());
        assert_eq!(reply.status, 200, "answer {i}");
        match expected {
            Some(alone) => assert!(reply.body == alone.body, "answer {i}: {}", reply.text()),
            None => assert!(reply.header("content-type").is_some(), "answer {i}: a head"),
        }
    }
    // Nothing follows the seventh answer: no body of a HEAD was sent after all.
    stream
        .set_read_timeout(Some(std::time::Duration::from_millis(300)))
        .unwrap();
    let mut more = [0u8; 1];
    assert!(
        stream.read(&mut more).is_err(),
        "bytes after the last answer"
    );
}

#[test]
fn a_pipelined_connection_close_ends_the_connection_after_its_own_answer() {
    let server = uncached();
    let mut stream = connect_raw(&server);
    let asked = [
        pipelined("GET", PAGE, ""),
        pipelined("GET", OTHER, "Connection: close\r\n"),
    ];
    stream.write_all(asked.concat().as_bytes()).unwrap();
    let first = read_reply(&mut stream, false);
    assert_eq!(first.status, 200);
    assert_ne!(
        first.header("connection"),
        Some("close"),
        "the first stays open"
    );
    let second = read_reply(&mut stream, false);
    assert_eq!(second.status, 200);
    assert_eq!(second.json()["data"].as_array().map(Vec::len), Some(2));
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "closed after the second answer");
}
