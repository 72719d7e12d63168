//! The releases kept beside the served file (`roadtraffic_releases::Manifest`), by name: listed
//! for `/releases`, each opened on its first request under `/releases/{name}/` and kept open
//! while its storage is the same. The list follows the served file: it is read again when the
//! file or the manifest changes, and reconciled with the file (the loader writes the manifest
//! before it renames a new file in, so the two may disagree for a moment).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use roadtraffic_releases::{folder, KeptRelease, Manifest, Storage, MANIFEST};

use super::file::{FileIdentity, Release, Settings, Tagging};
use super::Current;
use crate::error::ApiError;

/// The kept releases, and those opened.
pub struct Named {
    db: PathBuf,
    /// `FILE.releases/releases.json`, and what it was when last looked at ([`Named::watch`]):
    /// requests compare what was seen, without a system call of their own.
    manifest: PathBuf,
    manifest_seen: RwLock<Option<FileIdentity>>,
    settings: Settings,
    current: Arc<Current>,
    listing: RwLock<Arc<Listing>>,
    opened: RwLock<HashMap<String, Opened>>,
}

/// The kept releases as read for one served file and one manifest.
#[derive(Default)]
pub struct Listing {
    /// The served file's release id, and the manifest's identity, it was read for.
    made_for: Option<(String, Option<FileIdentity>)>,
    /// Oldest first; the last is the served file's.
    pub releases: Vec<KeptRelease>,
}

impl Listing {
    /// The latest release's name, if it has one.
    pub fn latest(&self) -> Option<&str> {
        self.releases.last().map(|r| r.name.as_str())
    }
}

impl Named {
    pub fn new(db: &Path, settings: Settings, current: Arc<Current>) -> Named {
        Named {
            db: db.to_path_buf(),
            manifest: folder(db).join(MANIFEST),
            manifest_seen: RwLock::new(FileIdentity::of(&folder(db).join(MANIFEST)).ok()),
            settings,
            current,
            listing: RwLock::new(Arc::default()),
            opened: RwLock::default(),
        }
    }

    /// The kept releases, oldest first, as they are now.
    pub fn listing(&self) -> Result<Arc<Listing>, ApiError> {
        let latest = self.current.get()?;
        let manifest = *self
            .manifest_seen
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let known = self.listing.read().unwrap_or_else(PoisonError::into_inner);
        let same =
            |(id, m): &(String, Option<FileIdentity>)| *id == latest.about.id && *m == manifest;
        if known.made_for.as_ref().is_some_and(same) {
            return Ok(known.clone());
        }
        drop(known);
        let made_for = Some((latest.about.id.clone(), manifest));
        let releases = match Manifest::read(&self.db) {
            Ok(Some(m)) => reconciled(m, &latest),
            Ok(None) => only_the_file(&latest),
            Err(e) => {
                log::error!("kept releases not served: {e}");
                only_the_file(&latest)
            }
        };
        let listing = Arc::new(Listing { made_for, releases });
        *self.listing.write().unwrap_or_else(PoisonError::into_inner) = listing.clone();
        Ok(listing)
    }

    /// Looks at the manifest every `every`, on a thread of its own, as `Current::watch` looks
    /// at the file: a load's new manifest is seen within that time.
    pub fn watch(self: &Arc<Self>, every: std::time::Duration) {
        let me = Arc::downgrade(self);
        std::thread::spawn(move || loop {
            std::thread::sleep(every);
            let Some(named) = me.upgrade() else { return };
            let now = FileIdentity::of(&named.manifest).ok();
            *named
                .manifest_seen
                .write()
                .unwrap_or_else(PoisonError::into_inner) = now;
        });
    }

    /// Looks at the manifest now (after a file could not be opened).
    fn look_again(&self) {
        let now = FileIdentity::of(&self.manifest).ok();
        *self
            .manifest_seen
            .write()
            .unwrap_or_else(PoisonError::into_inner) = now;
    }

    /// The kept release of this name, opened; a 404 for a name not kept. A file that cannot
    /// be opened may have been removed by a load since the manifest was read: the manifest is
    /// read again, and the release opened from what it says now.
    pub fn get(&self, name: &str) -> Result<Arc<Release>, ApiError> {
        let listing = self.listing()?;
        // Most requests: opened already, from the listing as it is.
        let opened = self.opened.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(o) = opened
            .get(name)
            .filter(|o| Arc::ptr_eq(&o.listing, &listing))
        {
            return Ok(o.release.clone());
        }
        drop(opened);
        match self.get_as_listed(name, &listing) {
            Err(ApiError::Internal(_)) => {
                self.look_again();
                self.forget_listing();
                self.get_as_listed(name, &self.listing()?)
            }
            answer => answer,
        }
    }

    fn get_as_listed(&self, name: &str, listing: &Arc<Listing>) -> Result<Arc<Release>, ApiError> {
        let Some(kept) = listing.releases.iter().find(|r| r.name == name) else {
            return Err(ApiError::NotHeld(format!(
                "No release named {name} is kept here: /releases lists those that are."
            )));
        };
        let storage = Storage::of(&self.db, kept);
        if let Some(release) = self.opened_as(name, &storage, listing) {
            return Ok(release);
        }
        // Opened outside the lock: counting a release's rows takes a moment, which requests
        // for the other releases need not wait for.
        let release = Release::open_kept(&storage, &self.lazy_settings(), Tagging::PerLoad)
            .map_err(|e| ApiError::internal(format!("release {name}: {e}")))?;
        let mut opened = self.opened.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(first) = opened.get(name).filter(|o| o.storage == storage) {
            return Ok(first.release.clone()); // another request opened it meanwhile
        }
        let release = Arc::new(release);
        let made_for = listing.made_for.clone();
        let kept = Opened {
            storage,
            made_for,
            listing: listing.clone(),
            release: release.clone(),
        };
        opened.insert(name.to_string(), kept);
        Ok(release)
    }

    /// The release of this name opened from `storage`, if it is, once the releases opened from
    /// what the manifest no longer gives them are let go.
    fn opened_as(
        &self,
        name: &str,
        storage: &Storage,
        listing: &Arc<Listing>,
    ) -> Option<Arc<Release>> {
        let mut opened = self.opened.write().unwrap_or_else(PoisonError::into_inner);
        opened.retain(|_, o| self.still_fits(o, listing));
        let found = opened.get_mut(name).filter(|o| o.storage == *storage)?;
        found.listing = listing.clone();
        Some(found.release.clone())
    }

    /// Makes the next look read the manifest again.
    fn forget_listing(&self) {
        *self.listing.write().unwrap_or_else(PoisonError::into_inner) = Arc::default();
    }

    /// Whether an opened release may stay open: the manifest still gives it that storage, and
    /// it reads nothing of a served file since replaced (whose disk it would keep in use).
    fn still_fits(&self, opened: &Opened, listing: &Listing) -> bool {
        let kept = (listing.releases.iter()).find(|r| r.id == opened.release.about.id);
        let same = kept.is_some_and(|k| Storage::of(&self.db, k) == opened.storage);
        let reads_the_file =
            opened.storage.main == self.db || opened.storage.attached.contains(&self.db);
        same && (!reads_the_file || opened.made_for == listing.made_for)
    }

    /// Kept releases open few connections until asked for more.
    fn lazy_settings(&self) -> Settings {
        Settings {
            min_idle: Some(1),
            ..self.settings.clone()
        }
    }
}

/// A kept release opened, with what it was opened from.
struct Opened {
    storage: Storage,
    made_for: Option<(String, Option<FileIdentity>)>,
    /// The listing it was last found to fit: while that is the listing, it still does.
    listing: Arc<Listing>,
    release: Arc<Release>,
}

/// The manifest's releases as the served file allows (`Manifest::reconcile`, the rule the
/// loader keeps too): the one whose id is the file's is the latest, and entries after it are a
/// load or a drop not finished. Releases without a name cannot be served by one.
fn reconciled(manifest: Manifest, latest: &Release) -> Vec<KeptRelease> {
    let Some(file) = only_the_file(latest).pop() else {
        return Vec::new();
    };
    let mut releases = manifest.reconcile(&file).releases;
    releases.retain(|r| !r.name.is_empty());
    releases
}

/// The served file as the one release, when it has a name.
fn only_the_file(latest: &Release) -> Vec<KeptRelease> {
    let Some(name) = latest.about.label.clone() else {
        return Vec::new();
    };
    vec![KeptRelease {
        name,
        id: latest.about.id.clone(),
        loaded_at: (latest.about.loaded_at)
            .map(|t| humantime::format_rfc3339_seconds(t).to_string())
            .unwrap_or_default(),
        file: None,
        shared: Default::default(),
        layered: Default::default(),
        hashes: Default::default(),
        row_counts: latest.row_counts_json(),
        sources: latest.sources_json(),
    }]
}
