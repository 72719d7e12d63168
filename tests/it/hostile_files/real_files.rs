//! The shared real files damaged: chosen mutations of a real raw count file, and random damage
//! to it (a property test), each refused or reported at its line.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;
use crate::support::*;

// --- The shared real files, damaged -----------------------------------------------------------

/// A real raw count file's first 300 lines: the base of the mutations below.
fn real_raw_head() -> Option<Vec<u8>> {
    let dir = real_data()?;
    let text =
        std::fs::read(dir.join("raw_counts/dft_rawcount_local_authority_id_31__williamjones7.csv"))
            .unwrap();
    let end = text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(299)
        .map(|(i, _)| i + 1)
        .unwrap();
    Some(text[..end].to_vec())
}

/// The real file served, then a damaged copy of it loaded over it.
fn real_sandbox(base: &[u8]) -> Sandbox {
    let built = scratch_dir().join("real.db");
    let file = built.with_file_name("raw.csv");
    std::fs::write(&file, base).unwrap();
    load_ok(&built, &["--quiet"], &[&file]);
    Sandbox::serving(&std::fs::read(&built).unwrap())
}

#[test]
fn real_files_damaged_are_refused_or_reported() {
    let Some(base) = real_raw_head() else { return };
    let s = real_sandbox(&base);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            on_line(&base, 10, b"\"Perth & Kinross\"", b"\"Perth & Kin\0ross\""),
            "raw.csv:10: local_authority_name",
        ),
        (on_line(&base, 20, b",2009,", b",209,"), "raw.csv:20: year"),
        (base[..base.len() - 300].to_vec(), "raw.csv:"),
    ];
    for (text, needle) in cases {
        s.write("raw.csv", text);
        s.load(&[], &[&s.input("raw.csv")]).refused(&[needle]);
    }
}

// --- Random damage to a real file -----------------------------------------------------------

/// A damage that a careful loader can always see: bytes that are not data (NUL, bytes that
/// are not UTF-8, a stray quote) put in place of others, a line end taken out (two rows
/// become one), or the file cut off mid-line.
#[derive(Debug, Clone)]
enum Damage {
    Byte { at: usize, to: u8 },
    JoinLines { nth: usize },
    Cut { at: usize },
}

fn damage_strategy(len: usize, header: usize) -> impl Strategy<Value = Damage> {
    prop_oneof![
        (
            header..len,
            prop::sample::select(vec![0u8, 0xff, 0x80, b'"'])
        )
            .prop_map(|(at, to)| Damage::Byte { at, to }),
        (1usize..250).prop_map(|nth| Damage::JoinLines { nth }),
        (header..len - 1).prop_map(|at| Damage::Cut { at }),
    ]
}

/// Applies the damage; gives the new bytes and the line it is on (1-based), or None when the
/// damage turned out to change nothing a reader could see.
fn apply(base: &[u8], damage: &Damage) -> Option<(Vec<u8>, usize)> {
    let line_of = |at: usize| base[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    match *damage {
        Damage::Byte { at, to } if base[at] != to && base[at] != b'\n' && base[at] != b'\r' => {
            let mut out = base.to_vec();
            out[at] = to;
            Some((out, line_of(at)))
        }
        Damage::JoinLines { nth } => {
            let at = base
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .nth(nth)?
                .0;
            (at + 1 < base.len()).then(|| ([&base[..at], &base[at + 1..]].concat(), line_of(at)))
        }
        // A cut just after a line end leaves a whole, shorter file: nothing to see there.
        Damage::Cut { at } if base[at - 1] != b'\n' && base[at] != b'\n' => {
            Some((base[..at].to_vec(), line_of(at)))
        }
        _ => None,
    }
}

/// The file the random damage is done to: the real raw counts, else the sample's.
fn damage_base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| real_raw_head().unwrap_or_else(|| sample_file(RAW)))
}

fn any_damage() -> impl Strategy<Value = Damage> {
    let base = damage_base();
    let header = base.iter().position(|&b| b == b'\n').unwrap() + 1;
    damage_strategy(base.len(), header)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever the damage, the loader never panics, never hangs, and either refuses naming
    /// the damaged line or loads and reports it (the report names that line).
    #[test]
    fn random_damage_to_a_real_file_is_refused_or_reported(damage in any_damage()) {
        let Some((text, line)) = apply(damage_base(), &damage) else { return Ok(()) };
        let dir = scratch_dir();
        let file = dir.join("damaged.csv");
        std::fs::write(&file, &text).unwrap();
        let report = dir.join("report.json");
        let run = run_loader(
            &[
                "--db".into(), dir.join("t.db").into(),
                "--report-json".into(), report.clone().into(),
                file.clone().into(),
            ],
            &dir,
        );
        prop_assert!(run.signal.is_none() && matches!(run.code, Some(0 | 1)), "{:?}: {}", damage, run.stderr);
        prop_assert!(run.max_rss_kb < MAX_RSS_KB);
        let place = format!("damaged.csv:{line}");
        match run.code {
            Some(1) => prop_assert!(run.stderr.contains(&place), "{:?}: expected {} in:\n{}", damage, place, run.stderr),
            _ => {
                let json = std::fs::read_to_string(&report).unwrap();
                prop_assert!(json.contains(&place), "{:?}: loaded, and the report does not name {}:\n{}", damage, place, json);
            }
        }
        let mut left: Vec<String> = std::fs::read_dir(&dir).unwrap().flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !["damaged.csv", "report.json", "t.db", "t.db.downloads"].contains(&n.as_str()))
            .collect();
        left.sort();
        prop_assert!(left.is_empty(), "left behind: {:?}", left);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
