//! A listing request's story, from its parameters to its written bytes: every method of
//! [`ListRequest`] (whose fields, the checked parameters, are `params`'s): checked against the
//! catalogue (`params`), planned (`plan`), its page found (`paging`), its records written
//! (`records`) inside its envelope (`envelope`, `legacy`), under the query time limit.

use std::time::Duration;

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::{Column, Dataset};

use super::envelope::{self, Envelope, PageNumber};
use super::features::{self, write_features, FeatureWriter};
use super::filter_sets::FilterSets;
use super::legacy;
use super::paging::{Pager, RowQuery};
use super::params::{self, Condition, ListRequest};
use super::records::{write_rows, Distance, JsonRecord};
use crate::error::ApiError;
use crate::query::php::{self, Params};
use crate::release::Release;
use crate::spatial::Crs;
use crate::stream::{Body, Flush};

impl ListRequest {
    pub fn parse(
        d: &'static Dataset,
        params: &Params,
        max_page_size: i64,
    ) -> Result<Self, ApiError> {
        Ok(ListRequest {
            dataset: d,
            conditions: params::conditions(d, params)?,
            sort: params::sort(d, params)?,
            fields: params::fields(d, params)?,
            page: match d.paginated {
                true => Some(params::page(params, max_page_size)?),
                false => None,
            },
            envelope: Envelope::Laravel,
            features: None,
        })
    }

    /// The request for every matching record at once (the CSV and NDJSON forms): its filters,
    /// sort and fields, no page.
    pub fn whole(d: &'static Dataset, params: &Params) -> Result<Self, ApiError> {
        Ok(ListRequest {
            dataset: d,
            conditions: params::conditions(d, params)?,
            sort: params::sort(d, params)?,
            fields: params::fields(d, params)?,
            page: None,
            envelope: Envelope::Laravel,
            features: None,
        })
    }

    /// Every record whose `column` is `value`, all fields, in id order (a split file).
    pub fn matching(d: &'static Dataset, column: &'static Column, value: i64) -> Self {
        ListRequest {
            dataset: d,
            conditions: vec![Condition::In(column, vec![SqlValue::Integer(value)])],
            sort: Vec::new(),
            fields: d.stored_columns().collect(),
            page: None,
            envelope: Envelope::Laravel,
            features: None,
        }
    }

    /// Every record that meets `conditions`, all fields, in id order, as GeoJSON features in
    /// `crs` (OGC API - Features' items, whose window is their own).
    pub fn features(d: &'static Dataset, conditions: Vec<Condition>, crs: Crs) -> Self {
        ListRequest {
            dataset: d,
            conditions,
            sort: Vec::new(),
            fields: d.stored_columns().collect(),
            page: None,
            envelope: Envelope::Laravel,
            features: Some(crs),
        }
    }

    /// Every record, all fields, in id order (a national file).
    pub fn everything(d: &'static Dataset) -> Self {
        ListRequest {
            dataset: d,
            conditions: Vec::new(),
            sort: Vec::new(),
            fields: d.stored_columns().collect(),
            page: None,
            envelope: Envelope::Laravel,
            features: None,
        }
    }

    /// The request in one canonical form: the endpoint's URL, and its query as its page URLs
    /// write it, with the page asked for. Requests of the same canonical form have the same
    /// response, whatever the parameters' encoding, repetitions, empty values or the order of
    /// `page[...]`'s keys; the order of the others changes the page URLs, so it stays.
    pub fn canonical(&self, url: &str, params: &Params) -> String {
        let page = self
            .page
            .as_ref()
            .map_or(PageNumber::Small(1), |(n, _)| n.clone());
        format!("{url}?{}", php::page_query(params, &page))
    }

    /// How many rows the request may answer with (unpaginated lists are small).
    pub fn rows_asked(&self) -> i64 {
        self.page.as_ref().map_or(0, |(_, size)| *size)
    }

    /// Runs the request and writes its body. Full chunks go to `flush` as they fill; the
    /// last, partial chunk is returned. `path` is the absolute URL of the endpoint; `params`
    /// the request's own. A query over `time_limit` (spent in SQLite: time waiting for the
    /// client to take a chunk pushes the deadline back) is stopped with a 503.
    pub fn run(
        &self,
        release: &Release,
        filter_sets: &FilterSets,
        path: &str,
        params: &Params,
        time_limit: Duration,
        flush: &mut Flush,
    ) -> Result<Vec<u8>, ApiError> {
        let conn = release.timed_connection(time_limit)?;
        let mut timed_flush = conn.paced(flush);
        let capacity = self.rows_asked().clamp(1, 1400) as usize * 800;
        let mut body = Body::new(capacity, &mut timed_flush);
        let pager = Pager {
            request: self,
            release,
            filter_sets,
        };
        self.write(&conn, &pager, path, params, &mut body)?;
        Ok(body.buf)
    }

    /// The body: the records of the rows, in the envelope of their page when paginated.
    fn write(
        &self,
        conn: &rusqlite::Connection,
        pager: &Pager,
        path: &str,
        params: &Params,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        if let Some(crs) = self.features {
            return self.write_features(conn, pager, crs, path, params, body);
        }
        let mut record = JsonRecord::of(self, pager.release);
        let sql = record.sql(self);
        let distance = Distance::of(self, 0);
        if self.page.is_none() {
            return write_rows(conn, &RowQuery::all(&sql), &mut record, distance, body);
        }
        let (page, rows) = pager.page(conn, &sql)?;
        match self.envelope {
            Envelope::Laravel => envelope::write_head(&mut body.buf, &page),
            Envelope::Legacy => legacy::write_head(&mut body.buf),
        }
        match rows {
            Some(query) => write_rows(conn, &query, &mut record, distance, body)?,
            None => body.buf.extend_from_slice(b"[]"),
        }
        match self.envelope {
            Envelope::Laravel => envelope::write_tail(&mut body.buf, &page, path, params),
            Envelope::Legacy => legacy::write_tail(&mut body.buf, &page, path, params),
        }
        Ok(())
    }
}

impl ListRequest {
    /// The body as a GeoJSON `FeatureCollection`: every feature, or (paginated) the page's,
    /// with how many match, how many are here, and links to the other pages.
    fn write_features(
        &self,
        conn: &rusqlite::Connection,
        pager: &Pager,
        crs: Crs,
        path: &str,
        params: &Params,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let mut writer = FeatureWriter::of(self, pager.release, crs);
        if self.page.is_none() {
            return features::write_collection(conn, self, &mut writer, body);
        }
        let sql = writer.sql(self);
        body.buf
            .extend_from_slice(b"{\"type\":\"FeatureCollection\",\"features\":");
        let (page, rows) = pager.page(conn, &sql)?;
        let returned = match rows {
            Some(query) => write_features(conn, &query, &mut writer, body)?,
            None => {
                body.buf.extend_from_slice(b"[]");
                0
            }
        };
        features::write_page_tail(&mut body.buf, &page, returned, path, params);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::DATASETS;

    proptest::proptest! {
        /// Any parameters give a request or a 400 that says what is wrong, on every endpoint.
        #[test]
        fn any_parameters_give_a_request_or_a_400(query in "[a-z_\\[\\]=&,%0-9.-]{0,150}") {
            let params = crate::query::Query::read(&query).php().clone();
            for d in DATASETS {
                match ListRequest::parse(d, &params, 100_000) {
                    Ok(_) => {}
                    Err(ApiError::BadRequest(message)) => proptest::prop_assert!(!message.is_empty()),
                    Err(other) => proptest::prop_assert!(false, "{other:?} for {query}"),
                }
            }
        }
    }
}
