//! A listing of the JSON API: its rows as its query string asks (`rows::Rows`: checked against
//! the catalogue, a 400 that says what is wrong), the writer of its form (`forms::Spec`: a page
//! in its envelope or as GeoJSON features, or every record as a JSON array), and the key its
//! answer is kept and tagged by.

use roadtraffic_catalog::record::Decimals;
use roadtraffic_catalog::Dataset;

use crate::error::ApiError;
use crate::forms::geojson::ApiPage;
use crate::forms::{Envelope, Form, Spec};
use crate::query::php::{self, Params};
use crate::query::Query;
use crate::rows::{AreaLookup, Reading, Rows};
use crate::spatial::Crs;

/// A listing asked for, checked.
pub struct ListingAsked {
    pub rows: Rows,
    /// JSON, or GeoJSON features (a page of a listing with places, asked by `Accept`).
    pub form: Form,
    pub envelope: Envelope,
    /// The endpoint's absolute URL, without its query: what its page URLs start with.
    url: String,
    params: Params,
}

impl ListingAsked {
    pub fn parse(
        d: &'static Dataset,
        query: &Query,
        max_page_size: i64,
        url: String,
        (envelope, form): (Envelope, Form),
        areas: &dyn AreaLookup,
    ) -> Result<ListingAsked, ApiError> {
        Ok(ListingAsked {
            rows: Rows::listed(d, query, max_page_size, areas)?,
            form,
            envelope,
            url,
            params: query.php().clone(),
        })
    }

    /// The listing in one canonical form: its URL and form, and its rows (`Rows::key`); or,
    /// where the answer writes the request back (a page's URLs, which keep its parameters in
    /// their order), the parameters as those URLs write them, which say all the rows do.
    /// Listings of the same key have the same answer, whatever the parameters' encoding,
    /// repetitions, empty values and, where nothing is written back, order.
    pub fn key(&self) -> String {
        let asked = match &self.rows.reading {
            // An area set named by the parameters is known by its version too: replaced in
            // the latest file, it changes an older release's answer.
            Reading::Page(number, _) => format!(
                "?{}{}",
                php::page_query(&self.params, number),
                self.rows.area_key()
            ),
            _ => self.rows.key(),
        };
        format!("{} {:?} {:?} {asked}", self.url, self.form, self.envelope)
    }

    /// What writes it.
    pub fn spec(&self) -> Spec {
        let (path, params) = (self.url.clone(), self.params.clone());
        match (&self.rows.reading, self.form) {
            (Reading::Page(..), Form::GeoJson) => {
                let members = Box::new(ApiPage { path, params });
                Spec::Features(Crs::Crs84, Decimals::AsText, members)
            }
            (Reading::Page(..), _) => Spec::Page {
                envelope: self.envelope,
                path,
                params,
            },
            _ => Spec::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Query;
    use crate::rows::NoAreas;
    use roadtraffic_catalog::{COUNT_POINTS, DATASETS, REGIONS};

    fn key(d: &'static Dataset, query: &str) -> String {
        let form = (Envelope::Laravel, Form::Json);
        let query = Query::read(query);
        let listing = ListingAsked::parse(d, &query, 100, "http://h/api/x".into(), form, &NoAreas);
        listing.unwrap().key()
    }

    #[test]
    fn a_listing_is_known_by_its_rows_and_what_it_writes_back() {
        // Written back in page URLs: the order of the parameters is part of the answer.
        let a = key(&COUNT_POINTS, "filter[road_name]=M4&sort=-id");
        assert_ne!(a, key(&COUNT_POINTS, "sort=-id&filter[road_name]=M4"));
        assert_eq!(
            a,
            key(&COUNT_POINTS, "filter%5Broad_name%5D=M4&sort=-id&x=")
        );
        // Not written back: one key in any order, case or repetition.
        let b = key(&REGIONS, "filter[name]=Wales&sort=-id&fields=id,name");
        assert_eq!(
            b,
            key(&REGIONS, "fields=id,name&sort=-id&filter[name]=wales")
        );
        assert_ne!(
            b,
            key(&REGIONS, "fields=id,name&sort=id&filter[name]=wales")
        );
    }

    proptest::proptest! {
        /// Any parameters give a listing or a 400 that says what is wrong, on every endpoint.
        #[test]
        fn any_parameters_give_a_listing_or_a_400(query in "[a-z_\\[\\]=&,%0-9.-]{0,150}") {
            let read = Query::read(&query);
            for d in DATASETS {
                let form = (Envelope::Laravel, Form::Json);
                match ListingAsked::parse(d, &read, 100_000, String::new(), form, &NoAreas) {
                    Ok(_) => {}
                    Err(ApiError::BadRequest(message)) => proptest::prop_assert!(!message.is_empty()),
                    Err(other) => proptest::prop_assert!(false, "{other:?} for {query}"),
                }
            }
        }
    }
}
