//! The feature collections: one per dataset of the catalogue whose records have places, named
//! by the dataset's own API path (`/count-points` is `count-points`), and what gives each
//! record its time (OGC's "temporal geometry", which `datetime` is compared with).

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Column, Dataset, DATASETS};

/// A dataset with places, served as a feature collection.
#[derive(Debug, Clone, Copy)]
pub struct Collection {
    pub places: Places,
}

/// What gives a record its time.
#[derive(Debug, Clone, Copy)]
pub enum Timing {
    /// A year (AADF, AADF by direction), or the year of a count point's latest AADF: the
    /// record stands for that whole year.
    Year(&'static Column),
    /// A count day and the hour the count began (raw counts): the record stands for that hour,
    /// from `Thh:00` to the next hour. The files give no time zone: the hour is read as UTC.
    Hour {
        date: &'static Column,
        hour: &'static Column,
    },
}

impl Collection {
    /// Every collection, in the catalogue's order.
    pub fn all() -> impl Iterator<Item = Collection> {
        DATASETS
            .iter()
            .filter_map(|d| Places::of(d))
            .map(|places| Collection { places })
    }

    /// The collection named `id`, if there is one.
    pub fn find(id: &str) -> Option<Collection> {
        Collection::all().find(|c| c.id() == id)
    }

    pub fn dataset(&self) -> &'static Dataset {
        self.places.dataset
    }

    /// The collection's id: its dataset's own API path without the slash.
    pub fn id(&self) -> &'static str {
        self.dataset().paths[0].trim_start_matches('/')
    }

    /// A title for people: the catalogue's, its first letter capitalised.
    pub fn title(&self) -> String {
        let title = self.dataset().title;
        let mut chars = title.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    /// What gives a record its time: a count day and hour where the records have them, else
    /// their year, else the year of their latest AADF (count points).
    pub fn timing(&self) -> Option<Timing> {
        let d = self.dataset();
        let stored = |name| d.column(name).filter(|c| c.stored);
        if let (Some(date), Some(hour)) = (stored("count_date"), stored("hour")) {
            return Some(Timing::Hour { date, hour });
        }
        stored("year").or(stored("aadf_year")).map(Timing::Year)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collections_are_the_datasets_with_places_by_their_paths() {
        let ids: Vec<&str> = Collection::all().map(|c| c.id()).collect();
        assert_eq!(
            ids,
            [
                "raw-counts",
                "average-annual-daily-flow-by-direction",
                "average-annual-daily-flow",
                "count-points"
            ]
        );
        assert!(Collection::find("count-points").is_some());
        assert!(Collection::find("regions").is_none());
        assert_eq!(
            Collection::find("raw-counts").unwrap().title(),
            "Raw counts"
        );
    }

    #[test]
    fn each_collection_has_a_time() {
        let timing = |id| format!("{:?}", Collection::find(id).unwrap().timing().unwrap());
        assert!(timing("raw-counts").starts_with("Hour"));
        assert!(timing("average-annual-daily-flow").contains("\"year\""));
        assert!(timing("count-points").contains("\"aadf_year\""));
    }
}
