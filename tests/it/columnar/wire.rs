//! Stored files go from the file to the socket by `sendfile` (issue 36, part 2): on one kept-alive
//! connection, pipelined requests of ranges, several ranges, a `HEAD`, a JSON page and a whole
//! file each get their own answer in order, byte for byte; a client that reads slowly gets
//! every byte; and the metrics count the bytes sent, not the bytes that passed the process.

use std::io::{Read, Write};
use std::time::Duration;

use super::big::{big_db, big_server};
use super::download;
use crate::support::*;

const CSV: &str = "/downloads/dft_traffic_counts_raw_counts.csv";

#[test]
fn pipelined_requests_on_one_connection_each_get_their_bytes() {
    let server = big_server();
    let full = download(server, CSV);
    let len = full.len();
    assert!(len > 1 << 20, "a file of several chunks: {len}");
    let page = get(server, "/api/raw-counts?page[size]=2");
    let mut stream = connect_raw(server);
    let requests = [
        pipelined("GET", CSV, "Range: bytes=0-65535\r\n"),
        pipelined(
            "GET",
            CSV,
            &format!("Range: bytes=10-19,{}-{}\r\n", len - 100, len - 91),
        ),
        pipelined("HEAD", CSV, ""),
        pipelined("GET", "/api/raw-counts?page[size]=2", ""),
        pipelined("GET", CSV, ""),
        pipelined("GET", CSV, &format!("Range: bytes={}-\r\n", len - 5)),
    ];
    stream.write_all(requests.concat().as_bytes()).unwrap();

    let first = read_reply(&mut stream, false);
    assert_eq!(first.status, 206);
    assert!(first.body == full[..65_536], "the first range");
    let multipart = read_reply(&mut stream, false);
    assert_eq!(multipart.status, 206);
    let text = String::from_utf8_lossy(&multipart.body).into_owned();
    let tail = String::from_utf8_lossy(&full[len - 100..len - 90]).into_owned();
    assert!(text.contains(&String::from_utf8_lossy(&full[10..20]).into_owned()));
    assert!(text.contains(&format!(
        "Content-Range: bytes {}-{}/{len}\r\n\r\n{tail}",
        len - 100,
        len - 91
    )));
    let head = read_reply(&mut stream, true);
    assert_eq!(
        (head.status, head.header("content-length")),
        (200, Some(&*len.to_string()))
    );
    let json = read_reply(&mut stream, false);
    assert_eq!(json.status, 200, "a JSON page between files");
    let data = &json.json()["data"];
    assert_eq!(data, &page.json()["data"], "a JSON page between files");
    let whole = read_reply(&mut stream, false);
    assert!(whole.body == full, "the whole file");
    let last = read_reply(&mut stream, false);
    assert!(last.body == full[len - 5..], "the last range");
    assert_eq!(
        last.header("content-range"),
        Some(&*format!("bytes {}-{}/{len}", len - 5, len - 1))
    );
}

#[test]
fn a_slow_client_gets_every_byte_and_the_connection_goes_on() {
    let server = big_server();
    let full = download(server, CSV);
    let mut stream = connect_raw(server);
    let requests = [
        pipelined("GET", CSV, ""),
        pipelined("GET", CSV, "Range: bytes=0-99\r\n"),
    ];
    stream.write_all(requests.concat().as_bytes()).unwrap();
    // Nothing read for a while: the server's socket fills and `sendfile` waits for room.
    std::thread::sleep(Duration::from_millis(300));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let mut body = Vec::with_capacity(full.len());
    let mut piece = [0u8; 7_919];
    while body.len() < full.len() {
        let want = piece.len().min(full.len() - body.len());
        let n = stream.read(&mut piece[..want]).unwrap();
        assert!(n > 0, "the connection closed after {} bytes", body.len());
        body.extend_from_slice(&piece[..n]);
        if body.len() % 16 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert!(body == full, "the same bytes, read slowly");
    let next = read_reply(&mut stream, false);
    assert_eq!(next.status, 206);
    assert!(next.body == full[..100]);
}

#[test]
fn a_client_gone_in_the_middle_of_a_file_leaves_the_server_answering() {
    // A file of megabytes: the socket's buffer holds a small part of it when the client goes.
    // A server of its own: its requests in flight are this test's alone.
    let server = &serve(big_db(), &["--lazy-downloads"]);
    let full = download(server, CSV);
    assert!(full.len() > 1 << 20);
    for _ in 0..20 {
        let mut stream = connect_raw(server);
        let asked = [pipelined("GET", CSV, ""), pipelined("GET", CSV, "")];
        stream.write_all(asked.concat().as_bytes()).unwrap();
        let mut some = [0u8; 1_000];
        stream.read_exact(&mut some).unwrap();
        drop(stream);
    }
    let reply = request(server, "GET", CSV, &[("Range", "bytes=5-104")]);
    assert_eq!((reply.status, &reply.body[..]), (206, &full[5..105]));
    // The gone clients' answers are over: only the request for the metrics is in flight.
    wait_for("every request to be done", || {
        let metrics = get(server, "/metrics").text();
        metrics.contains("roadtraffic_http_requests_in_flight 1\n")
    });
}

/// `roadtraffic_http_response_bytes_total` of the downloads' label, from `/metrics`.
fn bytes_counted(server: &TestServer) -> f64 {
    let metrics = get(server, "/metrics").text();
    (metrics.lines())
        .filter(|l| {
            l.starts_with("roadtraffic_http_response_bytes_total") && l.contains("downloads")
        })
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

#[test]
fn the_metrics_count_the_bytes_sent() {
    // A server of its own: no other test's downloads counted.
    let server = serve(sample_db(), &["--lazy-downloads"]);
    let len = download(&server, CSV).len();
    let before = bytes_counted(&server);
    let reply = request(&server, "GET", CSV, &[("Range", "bytes=100-10099")]);
    assert_eq!(reply.body.len(), 10_000);
    download(&server, CSV);
    let counted = bytes_counted(&server) - before;
    assert_eq!(counted, (10_000 + len) as f64);
}
