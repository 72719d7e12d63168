//! The releases a mirror keeps: every release loaded under `--release NAME`, served side by
//! side, with what they share stored once.
//!
//! On disk, beside the `--db` file `FILE`:
//!
//! - `FILE` is the latest release, complete: every table, as a file built by a plain load. Tools
//!   that open `FILE` (sqlite3, Datasette, the server's `/api`) see exactly what they saw before
//!   releases were kept.
//! - `FILE.releases/releases.json` (the [`Manifest`]) lists the kept releases, oldest first.
//! - `FILE.releases/<name>.<id>.sqlite` holds each older release's own tables. A dataset's tables
//!   (its [`group`]) that are identical, row for row and id for id, in a newer release are not
//!   copied: the manifest names the file that holds them (`FILE` itself, or another release's),
//!   and [`Storage::open`] attaches it, so that SQL naming the table finds it unchanged.
//!
//! Raw counts, most of a release's bytes, are counts: they rarely change from one release to the
//! next, and are then stored once however many releases are kept.
//!
//! The loader writes all of this (`roadtraffic-load`), the server reads it (`roadtraffic-serve`):
//! both depend on this crate, which depends on the catalogue alone.

pub mod copy;
pub mod diff;
mod group;
mod manifest;
mod reconcile;
mod storage;

pub use group::{group_of, groups, hash_group, hash_group_file, Group};
pub use manifest::{
    check_name, folder, KeptRelease, Manifest, ManifestError, MANIFEST, RESERVED_NAMES,
};
pub use storage::{metadata_id, Storage};
