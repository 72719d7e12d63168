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
//!   (its [`Group`]) that are identical, row for row and id for id, in a newer release are not
//!   copied: the manifest names the file that holds them (`FILE` itself, or another release's),
//!   and [`Storage::open`] attaches it, so that SQL naming the table finds it unchanged.
//!
//! Raw counts, most of a release's bytes, are counts: they rarely change from one release to the
//! next, and are then stored once however many releases are kept.
//!
//! The loader writes all of this (`roadtraffic-load`), the server reads it (`roadtraffic-serve`):
//! both depend on this crate, which depends on the catalogue alone.
//!
//! A reader serves what [`Manifest::current`] gives: the manifest reconciled with the `--db`
//! file ([`Manifest::reconcile`]: the entry whose id is the file's [`metadata_id`] is the
//! latest, and what is listed after it never happened), or the file alone when no release is
//! kept. Each release is read through [`Storage::of`]`(db, release).open()`. A load commits in
//! this order: the older release's file, the manifest, the `--db` file renamed into place, then
//! files no entry names removed; so a reader that opens a file a manifest it read earlier
//! named may find it gone (`SQLITE_CANTOPEN`): it reads the manifest again.
//!
//! - [`copy`]: files of kept releases written whole, table by table;
//! - [`diff`]: what changed between two releases;
//! - [`layer`]: a table stored as the rows that differ from a newer release's;
//! - `group`, `manifest`, `reconcile`, `storage`: what the names above say.

pub mod copy;
pub mod diff;
mod group;
pub mod layer;
mod manifest;
mod reconcile;
mod sqlite;
mod storage;

pub use group::{group_of, groups, hash_group, hash_group_file, Group};
pub use manifest::{
    check_name, folder, KeptRelease, Manifest, ManifestError, MANIFEST, RESERVED_NAMES,
};
pub use storage::{metadata_id, Storage};
