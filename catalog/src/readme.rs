//! The README's table of endpoints and filters, written from the catalogue: the test
//! `readme_endpoint_table_follows_the_catalogue` fails when the README's copy differs.

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The README beside the workspace; `UPDATE_README=1` writes the table into it.
    #[test]
    fn readme_endpoint_table_follows_the_catalogue() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let (Some(start), Some(end)) = (readme.find(START), readme.find(END)) else {
            panic!("{} lacks the markers of the endpoint table", path.display());
        };
        let written = &readme[start + START.len()..end];
        let wanted = format!("\n{}", endpoint_table("/api"));
        if written == wanted {
            return;
        }
        if std::env::var("UPDATE_README").is_ok_and(|v| v == "1") {
            let updated = format!(
                "{}{wanted}{}",
                &readme[..start + START.len()],
                &readme[end..]
            );
            std::fs::write(&path, updated).unwrap();
            return;
        }
        panic!(
            "README.md's endpoint table differs from the catalogue's; run \
             `UPDATE_README=1 cargo test -p roadtraffic-catalog readme` to rewrite it. It \
             should be:\n{wanted}"
        );
    }
}
