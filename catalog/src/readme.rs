//! The README's tables written from the catalogue, its endpoints and filters and its tables of
//! totals: the tests `readme_endpoint_table_follows_the_catalogue` and
//! `readme_tables_of_totals_follow_the_catalogue` fail when the README's copy differs.

use crate::{Dataset, DATASETS};

/// Between these markers in the README stands [`endpoint_table`]`("/api")`.
pub const START: &str = "<!-- endpoint table: written from the catalogue -->";
pub const END: &str = "<!-- end of the endpoint table -->";

fn paths(d: &Dataset, base: &str) -> String {
    let mut paths = d.paths.iter().map(|p| format!("`{base}{p}`"));
    let first = paths.next().unwrap_or_default();
    let others: Vec<String> = paths.collect();
    if others.is_empty() {
        first
    } else {
        format!("{first} (also {})", others.join(", "))
    }
}

/// A markdown table of every endpoint: its path(s), whether it is paginated, its filters (also
/// its sorts, `count_method` aside).
pub fn endpoint_table(base: &str) -> String {
    let mut out =
        String::from("| Path | Paginated | Filters (sorts: the same but count_method) |\n");
    out.push_str("|---|---|---|\n");
    for d in DATASETS {
        let paginated = if d.paginated {
            "yes"
        } else {
            "no: a JSON array"
        };
        out.push_str(&format!(
            "| {} | {paginated} | {} |\n",
            paths(d, base),
            d.filters.join(", ")
        ));
    }
    out
}

/// Between these markers in the README stands [`totals_table`].
pub const TOTALS_START: &str = "<!-- tables of totals: written from the catalogue -->";
pub const TOTALS_END: &str = "<!-- end of the tables of totals -->";

/// A markdown table of the tables of totals the loader keeps (`Dataset::rollups`): each one's
/// name and the columns it is kept by.
pub fn totals_table() -> String {
    let mut out = String::from("| Table | One row per combination of |\n|---|---|\n");
    for (table, rollup) in DATASETS.iter().flat_map(|d| d.rollup_tables()) {
        out.push_str(&format!("| `{table}` | {} |\n", rollup.by.join(", ")));
    }
    out
}

/// Checks that the README section between `start` and `end` is `wanted`; with
/// `UPDATE_README=1` writes it there instead. For the tests of sections written from code.
pub fn check_section(
    readme: &std::path::Path,
    start: &str,
    end: &str,
    wanted: &str,
) -> Result<(), String> {
    let text = std::fs::read_to_string(readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let (Some(from), Some(to)) = (text.find(start), text.find(end)) else {
        return Err(format!(
            "{} lacks the markers {start} and {end}",
            readme.display()
        ));
    };
    let written = &text[from + start.len()..to];
    let wanted = format!("\n{wanted}");
    if written == wanted {
        return Ok(());
    }
    if std::env::var("UPDATE_README").is_ok_and(|v| v == "1") {
        let updated = format!("{}{wanted}{}", &text[..from + start.len()], &text[to..]);
        return std::fs::write(readme, updated).map_err(|e| e.to_string());
    }
    Err(format!(
        "{}: the section after {start} differs from the code's; `UPDATE_README=1 cargo test` \
         rewrites it. It should be:\n{wanted}",
        readme.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_endpoint_table_follows_the_catalogue() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        check_section(&path, START, END, &endpoint_table("/api")).unwrap();
    }

    #[test]
    fn readme_tables_of_totals_follow_the_catalogue() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        check_section(&path, TOTALS_START, TOTALS_END, &totals_table()).unwrap();
    }
}
