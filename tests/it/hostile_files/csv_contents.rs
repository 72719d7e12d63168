//! Hostile CSV contents: a 10 MB line, out-of-range and malformed values, damage the parser
//! would take silently, a file cut short, a header naming a column twice, UTF-16 spreadsheet
//! exports, and the messages a person reads about them.

use super::*;

#[test]
fn a_ten_mb_line_is_refused_at_its_line_unread() {
    let s = Sandbox::new().with_sample();
    let mut text = sample_file(RAW);
    let line = 6;
    let at: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(|l| l.len())
        .sum();
    text.splice(at..at, std::iter::repeat_n(b'9', 10 << 20));
    s.write(RAW, text);
    s.load(&[], &[])
        .refused(&[&format!("{RAW}:{line}: a record longer than 1048576 bytes")])
        .quick();
    // The limit is the operator's to set.
    s.load(&["--max-record-bytes", "4096"], &[])
        .refused(&[&format!("{RAW}:{line}:"), "4096"]);
}

// --- Nothing damaged is stored silently -----------------------------------------------------

/// Each value put in place of a good one on line 3 of a sample file is an unreadable row,
/// named with its file, line and column.
#[test]
fn out_of_range_and_malformed_values_are_unreadable_rows() {
    let raw_line3 = "501,N,2023,2023-10-23,8,";
    let cases: Vec<(&str, &[u8], Vec<u8>, &str)> = vec![
        (
            RAW,
            b"2023-10-23",
            b"2019-02-30".to_vec(),
            "count_date: value '2019-02-30'",
        ),
        (
            RAW,
            b",2023,",
            b",0,".to_vec(),
            "year: value '0' is not a four-digit year",
        ),
        (RAW, b",2023,", b",99999,".to_vec(), "year: value '99999'"),
        (RAW, b",2023,", b",-1,".to_vec(), "year: value '-1'"),
        (RAW, b",2023,", b",209,".to_vec(), "year: value '209'"),
        (RAW, b",2023,", b",1e3,".to_vec(), "year: value '1e3'"),
        (RAW, b",2023,", b",,".to_vec(), "year: no value"),
        (RAW, b",8,4,", b",25,4,".to_vec(), "hour: value '25'"),
        (
            RAW,
            b"51.57731861",
            b"1e400".to_vec(),
            "latitude: value '1e400'",
        ),
        (
            RAW,
            b"51.57731861",
            b"NaN".to_vec(),
            "latitude: value 'NaN'",
        ),
        (
            RAW,
            b"51.57731861",
            b"inf".to_vec(),
            "latitude: value 'inf'",
        ),
        (
            RAW,
            b"51.57731861",
            b"0x10".to_vec(),
            "latitude: value '0x10'",
        ),
        (
            RAW,
            b"51.57731861",
            b"\"1,000\"".to_vec(),
            "latitude: value '1,000'",
        ),
        (
            RAW,
            b",1.37,",
            b",0.9g,".to_vec(),
            "link_length_miles: value '0.9g'",
        ),
        (
            RAW,
            b"Newport",
            b"New\0port".to_vec(),
            "local_authority_name: value 'New\\u{0}port'",
        ),
        (AADF, b",2019,", b",0,".to_vec(), "year: value '0'"),
        (LA, b",2019,", b",0,".to_vec(), "year: value '0'"),
        (
            LA,
            b"1743.16",
            b"99999999999999999999".to_vec(),
            "link_length_km: value '99999999999999999999'",
        ),
    ];
    assert!(String::from_utf8(sample_file(RAW))
        .unwrap()
        .lines()
        .nth(2)
        .unwrap()
        .starts_with(raw_line3));
    for (file, from, to, needle) in cases {
        let s = Sandbox::new().with_sample();
        s.write(file, on_line(&sample_file(file), 3, from, &to));
        let out = s.load(&[], &[]);
        out.refused(&[&format!("{file}:3: {needle}")]);
        // The same row is skipped, and listed, with --skip-bad-rows.
        s.load(&["--skip-bad-rows"], &[]).loaded();
    }
}

/// Damage the parser would take silently: kept, but reported with file and line.
#[test]
fn silent_damage_is_reported_with_its_place() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            LA,
            on_line(
                &sample_file(LA),
                2,
                b"\"Glasgow City\"",
                b"\"Glasgow City\"x",
            ),
            "local_authority_traffic.csv:2",
        ),
        (
            LA,
            on_line(
                &sample_file(LA),
                3,
                b"\"North Lanarkshire\"",
                b"\"\"North Lanarkshire\"",
            ),
            "local_authority_traffic.csv:3",
        ),
        (
            LA,
            on_line(&sample_file(LA), 4, b"\",", b"\xff\xfe\xc3(\","),
            "local_authority_traffic.csv:4",
        ),
        (
            RAW,
            on_line(&sample_file(RAW), 5, b",Major,", b",Mi'or,"),
            "dft_traffic_counts_raw_counts.csv:5: road_type: 'Mi'or'",
        ),
    ];
    let kinds = [
        "text after a closing quote",
        "a quote character inside a field",
        "not UTF-8",
        "outside their column's known codes",
    ];
    for ((file, text, place), kind) in cases.into_iter().zip(kinds) {
        let s = Sandbox::new().with_sample();
        s.write(file, text);
        let report = s.root.join("report.json");
        let run = run_loader(
            &[
                "--db".into(),
                s.db.clone().into(),
                "--report-json".into(),
                report.clone().into(),
                s.inputs.clone().into(),
            ],
            &s.tmp,
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(
            run.stderr.contains(kind) && run.stderr.contains(place),
            "{kind}, {place}:\n{}",
            run.stderr
        );
        let json = std::fs::read_to_string(&report).unwrap();
        assert!(json.contains(place), "{json}");
    }
}

#[test]
fn a_file_cut_short_is_refused_or_reported() {
    let s = Sandbox::new().with_sample();
    let text = sample_file(RAW);
    // Cut inside the last field of a row: loads, with a warning naming the place.
    let row_end = text[..text.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    let cut = row_end - 2;
    let line = text[..cut].iter().filter(|&&b| b == b'\n').count() + 1;
    s.write(RAW, &text[..cut]);
    let out = s.load(&["--allow-shrink"], &[]);
    out.loaded()
        .says(&[&format!("{RAW}:{line}"), "may have been cut short"]);
    // Cut mid-row: refused at that line.
    let cut = row_end - 40;
    let out = Sandbox::new().with_sample();
    out.write(RAW, &text[..cut]);
    out.load(&[], &[])
        .refused(&[&format!("{RAW}:{line}: expected")]);
}

#[test]
fn a_header_naming_a_column_twice_is_refused_with_both_positions() {
    let s = Sandbox::new().with_sample();
    let text = sample_file(RAW);
    let header_twice = on_line(&text, 1, b"local_authority_name,", b"region_name,");
    s.write(RAW, header_twice);
    s.load(&[], &[]).refused(&[
        &format!("{RAW}:1:"),
        "region_name twice",
        "columns 7 and 10",
    ]);
    // Twice under two aliases of one column.
    let aliased = on_line(
        &text,
        1,
        b"local_authority_code,",
        b"local_authoirty_ons_code,",
    );
    let aliased = on_line(&aliased, 1, b"region_ons_code,", b"local_authority_code,");
    s.write(RAW, aliased);
    s.load(&[], &[]).refused(&[
        &format!("{RAW}:1:"),
        "local_authority_code twice",
        "column 8",
        "column 11",
    ]);
}

#[test]
fn utf16_spreadsheet_exports_load_as_the_utf8_file_does() {
    let s = Sandbox::new();
    let text = String::from_utf8(sample_file(LA)).unwrap();
    let rows = text.lines().count() - 1;
    let utf16 = |t: &str| -> Vec<u8> {
        let mut out = vec![0xff, 0xfe];
        out.extend(t.encode_utf16().flat_map(u16::to_le_bytes));
        out
    };
    let comma = s.write("la16.csv", utf16(&text));
    // "Unicode text" as spreadsheets save it: UTF-16 with a BOM, tab-separated, CRLF.
    let tabbed = text.replace(',', "\t").replace('\n', "\r\n");
    let tabs = s.write("la16.txt.csv", utf16(&tabbed));
    for file in [&comma, &tabs] {
        let db = s.root.join("served/la.db");
        let out = s.load_into(&db, &[], &[file]);
        assert_eq!(out.run.code, Some(0), "{}", out.run.stderr);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM local_authority_traffic", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, rows as i64);
        let name: String = conn
            .query_row(
                "SELECT local_authority_name FROM local_authority_traffic WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(name, "Glasgow City");
        drop(conn);
        std::fs::remove_file(db).unwrap();
    }
}

/// A header of 100,015 columns over rows of 15 fields (a hostile file of 1 MB): each row is
/// refused for its width, in about the time the same rows take under a header of their own
/// width. The header's names were each compared with every later one (50 s for this file,
/// twice per load); a row's refusal never grew with the header.
#[test]
fn a_header_of_a_hundred_thousand_columns_costs_what_a_narrow_one_does() {
    let text = sample_file("count_points.csv");
    let (header, rows) = text.split_at(text.iter().position(|&b| b == b'\n').unwrap());
    let rows: Vec<u8> = rows[1..].repeat(300);
    let row_count = rows.iter().filter(|&&b| b == b'\n').count();
    let refuse = |extra: &str, columns: usize| {
        let s = Sandbox::new();
        let file = s.write(
            "count_points.csv",
            [header, extra.as_bytes(), b"\n", &rows].concat(),
        );
        let started = Instant::now();
        s.load(&[], &[&file]).refused(&[
            &format!("count_points.csv:2: expected {columns} fields as in the header, found 19"),
            &format!("load refused: {row_count} unreadable row(s)"),
        ]);
        started.elapsed()
    };
    let wide: String = (0..100_000).map(|i| format!(",c{i:x}")).collect();
    let narrow = refuse(",a,b", 21);
    let wide = refuse(&wide, 100_019);
    assert!(
        wide < narrow * 3 + Duration::from_secs(3),
        "100,019 columns took {wide:?}, 21 columns {narrow:?}"
    );
}

// --- Messages a person reads ----------------------------------------------------------------

#[test]
fn messages_are_short_plain_and_capped() {
    let s = Sandbox::new();
    for i in 0..3000 {
        s.write(&format!("empty{i:04}.csv"), "");
    }
    let out = s.load(&[], &[]);
    out.refused(&["empty0000.csv", "... and 2980 more"]);
    assert!(out.run.stderr.lines().count() < 30, "{}", out.run.stderr);

    let s = Sandbox::new().with_sample();
    let huge = "7".repeat(1_000_000);
    s.write(
        LA,
        on_line(&sample_file(LA), 2, b"1901.85", huge.as_bytes()),
    );
    let out = s.load(&[], &[]);
    out.refused(&["local_authority_traffic.csv:2: link_length_km"]);
    assert!(
        out.run.stderr.len() < 2000,
        "{} bytes of stderr",
        out.run.stderr.len()
    );

    let s = Sandbox::new().with_sample();
    let run = run_loader(
        &["--db".into(), s.db.clone().into(), s.inputs.clone().into()],
        &s.tmp,
    );
    assert_eq!(run.code, Some(0));
    for debug in ["TotalMismatch", "MissingColumn", "Int(", "Text(", "Some("] {
        assert!(!run.stderr.contains(debug), "{debug} in:\n{}", run.stderr);
    }
}

/// The first row of the first table read refused, with every table of the sample beside it:
/// from then on no row is kept (the load is bound to fail), and each table's loader ended
/// holding an empty batch buffer, dropped with it; the seventh table waited for ever for one
/// of the six. Refused at once, naming the row.
#[test]
fn a_refused_first_row_leaves_every_table_a_batch_buffer() {
    let s = Sandbox::new().with_sample();
    let text = sample_file(RAW);
    let second = text.split(|&b| b == b'\n').nth(1).unwrap();
    let cut = second.iter().rposition(|&b| b == b',').unwrap();
    s.write(RAW, on_line(&text, 2, second, &second[..cut]));
    s.load(&[], &[])
        .refused(&[
            &format!("{RAW}:2: expected 35 fields as in the header, found 34"),
            "load refused: 1 unreadable row(s)",
        ])
        .quick();
}
