//! The release being served, and its replacement: when the loader renames a new file over the
//! served path, the next look finds it, opens it beside the old one, and switches; a file that
//! cannot be served is refused (and said so) while the old one stays.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use super::file::{FileIdentity, OpenError, Release, Settings};
use crate::error::ApiError;

/// The release being served, replaced when a new file appears at the same path.
pub struct Current {
    path: PathBuf,
    settings: Settings,
    release: RwLock<Arc<Release>>,
    /// A file found not servable, not tried again until another takes its place.
    refused: Mutex<Option<FileIdentity>>,
}

impl Current {
    pub fn open(path: &Path, settings: Settings) -> Result<Current, OpenError> {
        let release = Release::open(path, &settings)?;
        Ok(Current {
            path: path.to_path_buf(),
            settings,
            release: RwLock::new(Arc::new(release)),
            refused: Mutex::new(None),
        })
    }

    /// The release a request works on from start to end: a swap never mixes two files in one
    /// response, and the old file stays open until its last request is done.
    pub fn get(&self) -> Result<Arc<Release>, ApiError> {
        self.release
            .read()
            .map(|r| r.clone())
            .map_err(|_| ApiError::internal("the release lock is poisoned"))
    }

    /// Opens the file again if it is not the one being served; keeps the old one (and says
    /// why) if the new one cannot be served.
    pub fn refresh(&self) {
        let Ok(identity) = FileIdentity::of(&self.path) else {
            return; // mid-rename or removed: keep serving what we have
        };
        // This thread alone writes these locks: a poisoned one still holds a whole value.
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        let serving = self
            .release
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .identity;
        if identity == serving || *refused == Some(identity) {
            return;
        }
        match Release::open(&self.path, &self.settings) {
            Ok(new) => {
                self.settings.metrics.switches.inc();
                log::info!(
                    "serving the new release at {} ({} bytes)",
                    self.path.display(),
                    new.identity.size
                );
                let mut release = self.release.write().unwrap_or_else(PoisonError::into_inner);
                *release = Arc::new(new);
            }
            Err(e) => {
                log::error!("not switching to the new file: {e}");
                self.settings.metrics.refusals.inc();
                *refused = Some(identity);
            }
        }
    }

    /// Checks for a new file every `every`, on a thread of its own.
    pub fn watch(self: &Arc<Self>, every: Duration) {
        let me = Arc::downgrade(self);
        std::thread::spawn(move || loop {
            std::thread::sleep(every);
            let Some(current) = me.upgrade() else { return };
            current.refresh();
        });
    }
}
