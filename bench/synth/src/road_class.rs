//! The road classes of the seed's templates: a count point draws its flows and its hourly shape
//! from the templates of its road's class.

/// Flow classes of the seed templates, by index.
pub const CLASSES: [&str; 4] = ["A", "B", "CU", "M"];
pub const CLASS_A: usize = 0;
const CLASS_B: usize = 1;
const CLASS_CU: usize = 2;
const CLASS_M: usize = 3;

/// The class of a road by its name and category: motorways (`M`), other major roads (`A`), B
/// roads, and the rest (C and unclassified).
pub fn flow_class(road: &str, category: &str) -> usize {
    match category {
        "TM" | "PM" if road.starts_with('M') || road.contains("(M)") || road.ends_with('M') => {
            CLASS_M
        }
        "TM" | "PM" | "TA" | "PA" => CLASS_A,
        "MB" => CLASS_B,
        _ => CLASS_CU,
    }
}
