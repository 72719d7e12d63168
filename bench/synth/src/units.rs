//! Units as DfT converts them.

/// Miles to two decimals, as DfT derives them from kilometres.
pub fn miles_of_km(km: f64) -> f64 {
    (km * 0.621_371 * 100.0 + 0.5).floor() / 100.0
}
