//! What the areas room keeps per release: the sets as the latest file stores them (older kept
//! releases' files hold none: a set added today divides every release), and, per release
//! served and set, which of that release's count points each area holds, assigned in memory
//! by the areas crate's one rule (the loader's too).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use roadtraffic_areas::{store, Area, AreaSet, Membership, Place, SetCrs, SetInfo};

use crate::error::ApiError;
use crate::release::Release;
use crate::spatial::grid::{self, GridPoint};

/// The sets of the latest file, read once when first asked, kept with that release.
pub struct StoredSets {
    /// By name, as the file lists them.
    pub sets: Vec<Arc<StoredSet>>,
    /// The file's tables of totals by area (`roadtraffic_areas::totals`).
    pub totals_tables: Arc<[String]>,
}

/// One set as stored: what is listed of it, its areas, and each area's extent in lon/lat.
pub struct StoredSet {
    pub info: SetInfo,
    /// Its areas, in the file's order, in its CRS.
    pub set: AreaSet,
    /// Each area's `[minLon, minLat, maxLon, maxLat]` (a grid set's from its vertices in
    /// lon/lat).
    pub bboxes: Vec<[f64; 4]>,
    by_id: HashMap<String, u32>,
    /// Each area's name, by id.
    pub names: Arc<HashMap<String, String>>,
}

impl StoredSets {
    /// The sets of `latest` (the release at `--db`), read on first use and kept with it: a
    /// set added or replaced comes with a new file, and so is read again.
    pub fn of(latest: &Release) -> Result<Arc<StoredSets>, ApiError> {
        latest.kept.get_or_make(|| StoredSets::read(latest))
    }

    fn read(latest: &Release) -> Result<StoredSets, ApiError> {
        let conn = latest.connection()?;
        let mut sets = Vec::new();
        for info in store::list_sets(&conn)? {
            let set = store::read_set(&conn, &info.name)?.ok_or_else(|| {
                ApiError::internal(format!("the area set {} is listed, not stored", info.name))
            })?;
            sets.push(Arc::new(StoredSet::new(info, set)));
        }
        let mut totals_tables = Vec::new();
        for d in roadtraffic_areas::totals::datasets() {
            let table = roadtraffic_areas::totals::table(d);
            let exists = conn.query_row(
                "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [&table],
                |r| r.get::<_, bool>(0),
            )?;
            if exists {
                totals_tables.push(table);
            }
        }
        Ok(StoredSets {
            sets,
            totals_tables: totals_tables.into(),
        })
    }

    pub fn get(&self, name: &str) -> Option<&Arc<StoredSet>> {
        self.sets.iter().find(|s| s.info.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.sets.iter().map(|s| s.info.name.as_str()).collect()
    }
}

impl StoredSet {
    pub fn new(info: SetInfo, set: AreaSet) -> StoredSet {
        let bboxes = (set.areas.iter())
            .map(|a| lon_lat_bbox(set.crs, a))
            .collect();
        let by_id = (set.areas.iter().enumerate())
            .map(|(i, a)| (a.id.clone(), i as u32))
            .collect();
        let names = (set.areas.iter())
            .map(|a| (a.id.clone(), a.name.clone()))
            .collect();
        StoredSet {
            info,
            set,
            bboxes,
            by_id,
            names: Arc::new(names),
        }
    }

    pub fn areas(&self) -> &[Area] {
        &self.set.areas
    }

    /// An area's index in the set, by its id.
    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    pub fn crs(&self) -> SetCrs {
        self.set.crs
    }

    /// An area's boundary in lon/lat (a grid set's vertices converted by [`lon_lat`]): what
    /// its GeoJSON and its GeoParquet both give.
    pub fn lon_lat_polygons(&self, index: usize) -> geo::MultiPolygon<f64> {
        let crs = self.crs();
        let mut area = self.areas()[index].geometry.clone();
        if crs != SetCrs::Crs84 {
            geo::MapCoordsInPlace::map_coords_in_place(&mut area, |c| {
                let (x, y) = lon_lat(crs, c.x, c.y);
                geo::Coord { x, y }
            });
        }
        area
    }
}

/// A point of a set's boundary in lon/lat: as stored, or from the grid to 7 decimals (about
/// a centimetre: what a transformed vertex means), the same in a boundary and its bbox.
pub fn lon_lat(crs: SetCrs, x: f64, y: f64) -> (f64, f64) {
    let seven = |v: f64| (v * 1e7).round() / 1e7;
    match crs {
        SetCrs::Crs84 => (x, y),
        SetCrs::BritishNationalGrid => {
            let (lon, lat) = grid::from_grid(GridPoint {
                easting: x,
                northing: y,
            });
            (seven(lon), seven(lat))
        }
    }
}

fn lon_lat_bbox(crs: SetCrs, area: &Area) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    let rings = (area.geometry.0.iter()).flat_map(|p| std::iter::once(p.exterior()));
    for c in rings.flat_map(|r| r.0.iter()) {
        let (lon, lat) = lon_lat(crs, c.x, c.y);
        b = [b[0].min(lon), b[1].min(lat), b[2].max(lon), b[3].max(lat)];
    }
    b
}

/// The count points of one release in each area of one set.
pub struct SetMembers {
    pub membership: Membership,
    /// How many count points each area holds, by area index.
    pub counts: Vec<usize>,
    /// Each (area id, count point) as a JSON array, written when first asked.
    pairs: OnceLock<Arc<str>>,
}

impl SetMembers {
    /// The count points of some areas (by index) together, ascending, no repeats.
    pub fn count_points_of(&self, areas: &[u32]) -> Vec<i64> {
        let mut ids: Vec<i64> = (areas.iter())
            .flat_map(|a| self.membership.count_points_of(*a).iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Per release: its count points' places, and the members of each set asked of it, by the
/// set's name and SHA-256 (a set replaced in the latest file is assigned again).
#[derive(Default)]
pub struct Memberships {
    places: OnceLock<Vec<Place>>,
    sets: Mutex<HashMap<(String, String), Arc<SetMembers>>>,
}

impl Memberships {
    /// The members of `set` among `release`'s count points: assigned on first use, kept with
    /// the release.
    pub fn of(release: &Release, set: &StoredSet) -> Result<Arc<SetMembers>, ApiError> {
        let kept = release
            .kept
            .get_or_make(|| Ok::<_, ApiError>(Memberships::default()))?;
        let key = (set.info.name.clone(), set.info.sha256.clone());
        let held = |m: &Memberships| {
            m.sets
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&key)
                .cloned()
        };
        if let Some(members) = held(&kept) {
            return Ok(members);
        }
        let places = match kept.places.get() {
            Some(places) => places,
            None => {
                let conn = release.connection()?;
                let read = roadtraffic_areas::membership::release_places(&conn)?;
                kept.places.get_or_init(|| read)
            }
        };
        let members = Arc::new(SetMembers::assign(set, places));
        let mut sets = kept.sets.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(sets.entry(key).or_insert(members).clone())
    }
}

impl SetMembers {
    fn assign(set: &StoredSet, places: &[Place]) -> SetMembers {
        SetMembers::of(Membership::assign(&set.set, places), set.areas().len())
    }

    pub fn of(membership: Membership, areas: usize) -> SetMembers {
        let mut counts = vec![0; areas];
        for (area, _) in &membership.pairs {
            counts[*area as usize] += 1;
        }
        SetMembers {
            membership,
            counts,
            pairs: OnceLock::new(),
        }
    }

    /// Each (area id, count point) as a JSON array of pairs, for a join with `json_each`.
    pub fn pairs_json(&self, set: &StoredSet) -> Arc<str> {
        let pairs = self.pairs.get_or_init(|| {
            let pairs: Vec<(&str, i64)> = (self.membership.pairs.iter())
                .map(|(area, cp)| (set.areas()[*area as usize].id.as_str(), *cp))
                .collect();
            serde_json::to_string(&pairs).unwrap_or_default().into()
        });
        pairs.clone()
    }
}
