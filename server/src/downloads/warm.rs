//! A release's whole-table files written before anyone asks for them, Parquet first: query
//! engines send a `HEAD` and then ranges, and would otherwise wait for the first file to be
//! written (seconds to a minute on the national tables).

use std::sync::Arc;

use super::store::Store;
use crate::release::Release;

/// Writes every national file of `release` not yet in its store, one after another.
pub async fn warm(store: Arc<Store>, release: Arc<Release>) {
    for key in super::national_paths() {
        let Some(download) = super::resolve(&key) else {
            continue;
        };
        if let Err(e) = super::stored(&store, release.clone(), &key, download).await {
            log::warn!("download {key} not written ahead: {e:?}");
        }
    }
}
