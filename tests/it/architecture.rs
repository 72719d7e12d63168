//! The shape of the code, checked so that it stays as the README's Architecture section draws
//! it: inside each crate, dependencies between top-level modules point one way (a `mod.rs` and
//! its own children may refer to each other, being one module), and no source file is longer
//! than a reader can hold.
//!
//! A module's references are read from its text: `crate::x`, `crate::{x, y::z}` and `super::`
//! paths, in `use` lines and in code. That is what a reader follows too; a path spelt through
//! a re-export of the crate's root is the root's, which is above every module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::{repo_path, shared};

/// The crates whose modules are checked, by their source folders: every member of the
/// workspace (`Cargo.toml`), which [`every_crate_of_the_workspace_is_checked`] holds to.
const CRATES: &[&str] = &[
    "catalog/src",
    "areas/src",
    "releases/src",
    "downloads/src",
    "loader/src",
    "server/src",
    "bench/synth/src",
    "src",
];

/// The one file allowed past [`MAX_LINES`]: the catalogue, one description per dataset.
const LONG_FILE: &str = "catalog/src/datasets.rs";
const MAX_LINES: usize = 1000;

#[test]
fn dependencies_between_top_level_modules_point_one_way() {
    let mut cycles = Vec::new();
    for src in CRATES {
        let graph = Graph::of(&repo_path(src));
        for cycle in graph.cycles() {
            cycles.push(format!("{src}: {}", graph.describe(&cycle)));
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles between top-level modules:\n{}",
        cycles.join("\n")
    );
}

/// The same rule by the measure the project's issues are written with (`../shared/hooks/
/// mod_cycles.py`: files reaching each other through `crate::`, `super::`, `self::` and child
/// paths, re-exports resolved to where a name is defined): no cycle of files spans two
/// top-level modules.
#[test]
fn no_file_cycle_spans_two_top_level_modules() {
    let Some(script) = shared("hooks/mod_cycles.py", "the shared measure of import cycles") else {
        return;
    };
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(CRATES.iter().map(|src| repo_path(src)))
        .output()
        .expect("python3");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && report.lines().count() == CRATES.len(),
        "{report}"
    );
    for line in report.lines() {
        let spans = line
            .split("widest cycle spans ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok());
        assert!(spans.is_some_and(|n| n <= 1), "{line}");
    }
}

/// A crate added to the workspace is checked too: [`CRATES`] names every member's `src`.
#[test]
fn every_crate_of_the_workspace_is_checked() {
    let manifest = std::fs::read_to_string(repo_path("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|l| l.strip_prefix("members = ["))
        .expect("the workspace's members, on one line");
    let mut folders: Vec<String> = members
        .trim_end_matches(']')
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| match m {
            "." => "src".to_string(),
            m => format!("{m}/src"),
        })
        .collect();
    let mut checked: Vec<String> = CRATES.iter().map(|c| c.to_string()).collect();
    folders.sort();
    checked.sort();
    assert_eq!(checked, folders);
}

/// The server's top-level modules in their layers, highest first, as `server/src/lib.rs` and
/// the README draw them: a module imports only those of its own layer (no cycle, as above) or
/// below.
const SERVER_LAYERS: &[&[&str]] = &[
    &["startup", "shutdown"],
    &["routes"],
    &[
        "api",
        "site",
        "downloads",
        "description",
        "ogc",
        "totals",
        "ops",
        "areas",
        "vehicle_km",
    ],
    &["forms"],
    &["rows"],
    &["filter"],
    &["spatial", "state"],
    &[
        "release",
        "comparisons",
        "cache",
        "html",
        "assets",
        "stream",
        "ranged",
        "wire",
        "conditional",
        "query",
        "ratelimit",
        "configuration",
        "sql_functions",
        "error",
    ],
];

#[test]
fn the_server_s_modules_import_only_their_layer_and_those_below() {
    let src = repo_path("server/src");
    let layer = |m: &str| SERVER_LAYERS.iter().position(|l| l.contains(&m));
    let mut unplaced: Vec<String> = top_level_modules(&src)
        .into_iter()
        .filter(|m| layer(m).is_none())
        .collect();
    unplaced.sort();
    assert!(
        unplaced.is_empty(),
        "modules in no layer of SERVER_LAYERS: {unplaced:?}"
    );
    let graph = Graph::of(&src);
    let upwards: Vec<String> = (graph.edges.iter())
        .filter(|((from, to), _)| layer(to) < layer(from))
        .map(|((from, to), place)| format!("{from} -> {to} (at {place})"))
        .collect();
    assert!(
        upwards.is_empty(),
        "imports of a higher layer:\n{}",
        upwards.join("\n")
    );
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for dir in CRATES.iter().chain(&["tests", "bench/synth/tests"]) {
        for file in rust_files(&repo_path(dir)) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            let name = file.strip_prefix(repo_path("")).unwrap_or(&file).to_owned();
            if lines > MAX_LINES && name != Path::new(LONG_FILE) {
                long.push(format!("{}: {lines} lines", name.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// Which top-level module refers to which, each edge with the first place that makes it.
struct Graph {
    edges: BTreeMap<(String, String), String>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let modules = top_level_modules(src);
        let mut edges = BTreeMap::new();
        for file in rust_files(src) {
            let path = module_path(src, &file);
            let Some(from) = path.first() else { continue };
            let text = std::fs::read_to_string(&file).unwrap();
            for (line_no, line) in code_lines(&text) {
                for to in referenced_top_modules(&line, &path, &modules) {
                    if &to != from {
                        let place = format!("{}:{line_no}", file.display());
                        edges.entry((from.clone(), to)).or_insert(place);
                    }
                }
            }
        }
        Graph { edges }
    }

    fn successors(&self, node: &str) -> impl Iterator<Item = &str> {
        let node = node.to_string();
        self.edges
            .keys()
            .filter(move |(f, _)| *f == node)
            .map(|(_, t)| t.as_str())
    }

    /// One cycle through each group of modules that reach each other.
    fn cycles(&self) -> Vec<Vec<String>> {
        let nodes: BTreeSet<&str> = self.edges.keys().map(|(f, _)| f.as_str()).collect();
        let mut seen = BTreeSet::new();
        let mut cycles = Vec::new();
        for start in nodes {
            if seen.contains(start) {
                continue;
            }
            if let Some(cycle) = self.path_back(start) {
                seen.extend(cycle.iter().cloned());
                cycles.push(cycle);
            }
        }
        cycles
    }

    /// A shortest path from `start` back to itself, if any (breadth first).
    fn path_back(&self, start: &str) -> Option<Vec<String>> {
        let mut came_from: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.to_string()]);
        while let Some(node) = queue.pop_front() {
            for next in self.successors(&node) {
                if next == start {
                    let mut cycle = vec![node.clone()];
                    while let Some(prev) = came_from.get(cycle.last().unwrap()) {
                        cycle.push(prev.clone());
                    }
                    cycle.reverse();
                    return Some(cycle);
                }
                if !came_from.contains_key(next) && next != start {
                    came_from.insert(next.to_string(), node.clone());
                    queue.push_back(next.to_string());
                }
            }
        }
        None
    }

    /// `a -> b (at file:line) -> a (at file:line)`.
    fn describe(&self, cycle: &[String]) -> String {
        let mut text = cycle[0].clone();
        for (i, from) in cycle.iter().enumerate() {
            let to = &cycle[(i + 1) % cycle.len()];
            let place = &self.edges[&(from.clone(), to.clone())];
            text.push_str(&format!(" -> {to} (at {place})"));
        }
        text
    }
}

/// Every `.rs` file below `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The names of a crate's top-level modules: `x.rs` or `x/mod.rs` beside its root.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    rust_files(src)
        .iter()
        .filter_map(|f| module_path(src, f).first().cloned())
        .collect()
}

/// A file's module path: `api/plan.rs` is `[api, plan]`, `api/mod.rs` is `[api]`, the crate's
/// root (`lib.rs`, `main.rs`, `bin/*`) is `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") || parts == ["lib"] || parts == ["main"] {
        return Vec::new();
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The lines of code, numbered from 1, without comments; a `use` spread over lines is joined
/// into one, numbered by its first.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut open_use = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("//") {
            continue;
        }
        match lines.last_mut() {
            Some((_, joined)) if open_use => joined.push_str(line),
            _ => lines.push((i + 1, line.to_string())),
        }
        let starts_use = line.starts_with("use ") || line.starts_with("pub use ");
        open_use = (open_use || starts_use) && !line.contains(';');
    }
    lines
}

/// The top-level modules a line refers to through `crate::` or `super::` paths.
fn referenced_top_modules(line: &str, here: &[String], modules: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        let preceded = line[..at].chars().last();
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` in a macro, or a longer name
        }
        found.extend(first_segments(&line[at + "crate::".len()..]));
    }
    if let Some(at) = line.find("super::") {
        let mut rest = &line[at..];
        let mut base = here.to_vec();
        while let Some(after) = rest.strip_prefix("super::") {
            base.pop();
            rest = after;
        }
        if base.is_empty() {
            found.extend(first_segments(rest));
        } else {
            found.push(base[0].clone());
        }
    }
    found.retain(|m| modules.contains(m));
    found
}

/// The first path segment of `x::y` (`[x]`), or of each item of `{x, y::z}` (`[x, y]`).
fn first_segments(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(ident(&group[start..i]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(ident(&group[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}
