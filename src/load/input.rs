//! Input files: CSV files, zip archives read in place, directories; recognising each file's
//! kind from its header.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::LoadError;
use crate::catalog::{Dataset, Source, DATASETS};

/// One CSV stream: a file, or a member of a zip archive.
#[derive(Debug, Clone)]
pub struct InputSource {
    pub path: PathBuf,
    /// The member's name when the CSV is inside a zip archive.
    pub member: Option<String>,
    /// Uncompressed size in bytes (for progress).
    pub size: u64,
}

impl InputSource {
    /// How the source is named in messages: `path` or `archive.zip!member.csv`.
    pub fn name(&self) -> String {
        match &self.member {
            Some(m) => format!("{}!{}", self.path.display(), m),
            None => self.path.display().to_string(),
        }
    }
}

fn is_zip(path: &Path) -> io::Result<bool> {
    let mut magic = [0u8; 4];
    let n = File::open(path)?.read(&mut magic)?;
    Ok(n == 4 && magic == *b"PK\x03\x04")
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Expands the command line's inputs into CSV sources, in the order given (directories walked
/// in name order, so a load is reproducible). Also returns the files read, for the metadata.
pub fn expand(inputs: &[PathBuf]) -> Result<(Vec<InputSource>, Vec<PathBuf>), LoadError> {
    let mut files = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| LoadError::io(input, e))?;
        if meta.is_dir() {
            walk(input, &mut files)?;
        } else {
            files.push(input.clone());
        }
    }
    let mut sources = Vec::new();
    for file in &files {
        if is_zip(file).map_err(|e| LoadError::io(file, e))? {
            let mut archive =
                zip::ZipArchive::new(File::open(file).map_err(|e| LoadError::io(file, e))?)
                    .map_err(|e| {
                        LoadError::Refused(format!(
                            "{}: not a readable zip archive: {e}",
                            file.display()
                        ))
                    })?;
            let mut names: Vec<(String, u64)> = Vec::new();
            for i in 0..archive.len() {
                let entry = archive.by_index_raw(i).map_err(|e| {
                    LoadError::Refused(format!("{}: damaged zip archive: {e}", file.display()))
                })?;
                let name = entry
                    .name()
                    .map_err(|e| {
                        LoadError::Refused(format!("{}: damaged zip archive: {e}", file.display()))
                    })?
                    .to_string();
                if !entry.is_dir()
                    && !name.starts_with("__MACOSX/")
                    && has_extension(Path::new(&name), "csv")
                {
                    names.push((name, entry.size()));
                }
            }
            if names.is_empty() {
                return Err(LoadError::Refused(format!(
                    "{}: the zip archive holds no .csv file",
                    file.display()
                )));
            }
            sources.extend(names.into_iter().map(|(m, size)| InputSource {
                path: file.clone(),
                member: Some(m),
                size,
            }));
        } else {
            let size = std::fs::metadata(file)
                .map_err(|e| LoadError::io(file, e))?
                .len();
            sources.push(InputSource {
                path: file.clone(),
                member: None,
                size,
            });
        }
    }
    Ok((sources, files))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| LoadError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if has_extension(&path, "csv") || has_extension(&path, "zip") {
            out.push(path);
        }
    }
    Ok(())
}

/// SHA-256 of a whole file (zip archives are hashed as the archive).
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Opens a source and hands a reader of its bytes to `f`. Zip members are decompressed in
/// place as they are read.
pub fn with_reader<T>(
    source: &InputSource,
    f: impl FnOnce(&mut dyn Read) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    let file = File::open(&source.path).map_err(|e| LoadError::io(&source.path, e))?;
    match &source.member {
        None => f(&mut BufReader::with_capacity(1 << 20, file)),
        Some(member) => {
            let mut archive = zip::ZipArchive::new(BufReader::new(file))
                .map_err(|e| LoadError::Refused(format!("{}: {e}", source.path.display())))?;
            let mut entry = archive
                .by_name(member)
                .map_err(|e| LoadError::Refused(format!("{}: {e}", source.name())))?;
            f(&mut BufReader::with_capacity(1 << 20, &mut entry))
        }
    }
}

/// A header name as compared with the catalogue: BOM, quotes and blanks stripped, lower case.
pub fn normalise_header(raw: &str) -> String {
    raw.trim_start_matches('\u{feff}')
        .trim()
        .trim_matches('"')
        .trim()
        .to_ascii_lowercase()
}

/// Whether a normalised header name is read into this column.
pub fn header_matches(column: &crate::catalog::Column, header: &str) -> bool {
    match column.source {
        Source::Csv(aliases) => column.name == header || aliases.contains(&header),
        Source::Id | Source::Derived => false,
    }
}

fn missing_required(d: &Dataset, headers: &[String]) -> Vec<&'static str> {
    d.columns()
        .filter(|c| c.required && !headers.iter().any(|h| header_matches(c, h)))
        .map(|c| c.name)
        .collect()
}

/// Files of the 2015-2019 eras carry names instead of ids; we recognise them to refuse them
/// with a message that says what they are.
fn old_era(headers: &[String]) -> Option<&'static str> {
    let has = |n: &str| headers.iter().any(|h| h == n);
    if has("cp") && (has("idir") || has("dcount")) {
        Some("a short-code raw count file of the 2015-2019 era (CP, iDir, dCount, ...)")
    } else if has("cp") && (has("aadfyear") || has("allmotorvehicles") || has("carstaxis")) {
        Some(
            "a CamelCase file of the 2015-2019 era (AADFYear, CP, ...); such files hold either \
             AADF or annual traffic volumes under the same column names",
        )
    } else {
        None
    }
}

/// The kind of a CSV file, from its normalised header.
pub fn recognise(name: &str, headers: &[String]) -> Result<&'static Dataset, String> {
    if let Some(era) = old_era(headers) {
        return Err(format!(
            "{name}: refused: this is {era}. It names regions, local authorities and roads \
             instead of giving their ids, and uses the old road category codes, so it cannot be \
             mapped onto the current records; load a current release (2020 onward) instead"
        ));
    }
    let kinds = DATASETS.iter().copied().filter(|d| d.from_csv);
    let mut closest: Option<(&'static Dataset, Vec<&'static str>)> = None;
    let mut partial: Vec<(&'static Dataset, Vec<&'static str>)> = Vec::new();
    for d in kinds {
        let missing = missing_required(d, headers);
        if missing.is_empty() {
            // A file that also has key columns only a more specific kind has is a broken file of
            // that kind (a raw count file without `hour` must not load as count points).
            let specific = partial.iter().find(|(near, _)| {
                near.columns().any(|c| {
                    near.natural_key.contains(&c.name)
                        && headers.iter().any(|h| {
                            header_matches(c, h) && !d.columns().any(|m| header_matches(m, h))
                        })
                })
            });
            return match specific {
                Some((near, m)) => Err(missing_message(name, near, m)),
                None => Ok(d),
            };
        }
        if closest
            .as_ref()
            .is_none_or(|(_, m)| missing.len() < m.len())
        {
            closest = Some((d, missing.clone()));
        }
        partial.push((d, missing));
    }
    let (near, missing) = closest.expect("at least one CSV kind");
    Err(missing_message(name, near, &missing))
}

fn missing_message(name: &str, d: &Dataset, missing: &[&str]) -> String {
    format!(
        "{name}: not a recognised road traffic CSV file: closest kind is {} ({}), but the \
         column(s) {} are missing",
        d.title,
        d.table,
        missing.join(", ")
    )
}

/// A Git LFS pointer or an HTML page saved under a `.csv` name.
pub fn sniff_not_csv(first_bytes: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(first_bytes);
    let t = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .to_ascii_lowercase();
    if t.starts_with("version https://git-lfs") {
        Some("a Git LFS pointer, not the data: fetch the real file (git lfs pull)")
    } else if t.starts_with("<!doctype") || t.starts_with("<html") || t.starts_with("<?xml") {
        Some("an HTML or XML page, not CSV: the download probably failed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(line: &str) -> Vec<String> {
        line.split(',').map(normalise_header).collect()
    }

    #[test]
    fn recognises_current_and_split_files() {
        let aadf = "count_point_id,year,region_id,region_name,local_authority_id,local_authority_name,road_name,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,estimation_method,estimation_method_detailed,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,hgvs_2_rigid_axle,hgvs_3_rigid_axle,hgvs_4_or_more_rigid_axle,hgvs_3_or_4_articulated_axle,hgvs_5_articulated_axle,hgvs_6_articulated_axle,all_hgvs,all_motor_vehicles";
        assert_eq!(recognise("f", &headers(aadf)).unwrap().table, "aadf");
        let by_dir = aadf.replace(
            "estimation_method_detailed,",
            "estimation_method_detailed,direction_of_travel,",
        );
        assert_eq!(
            recognise("f", &headers(&by_dir)).unwrap().table,
            "aadf_by_direction"
        );
        let la = "\u{feff}\"Local_authority_id\",\"Local_authority_name\",\"Year\",\"Link_length_km\",\"Link_length_miles\",\"Cars_and_taxis\",\"All_motor_vehicles\"";
        assert_eq!(
            recognise("f", &headers(la)).unwrap().table,
            "local_authority_traffic"
        );
    }

    #[test]
    fn a_broken_raw_count_file_is_not_count_points() {
        let raw_without_hour = "count_point_id,direction_of_travel,year,count_date,region_id,local_authority_id,road_name,road_type,all_motor_vehicles";
        let err = recognise("f.csv", &headers(raw_without_hour)).unwrap_err();
        assert!(err.contains("raw counts") && err.contains("hour"), "{err}");
    }

    #[test]
    fn old_eras_are_refused_by_name() {
        let err = recognise(
            "d.csv",
            &headers("AADFYear,CP,Estimation_method,Region,LocalAuthority,Road,AllMotorVehicles"),
        )
        .unwrap_err();
        assert!(
            err.contains("2015-2019") && err.contains("CamelCase"),
            "{err}"
        );
        let err = recognise("r.csv", &headers("CP,iDir,Year,dCount,Hour,PC,AMV")).unwrap_err();
        assert!(err.contains("short-code"), "{err}");
    }

    #[test]
    fn sniffs_lfs_and_html() {
        assert!(
            sniff_not_csv(b"version https://git-lfs.github.com/spec/v1\noid sha256:").is_some()
        );
        assert!(sniff_not_csv(b"<!DOCTYPE html><html>").is_some());
        assert!(sniff_not_csv(b"count_point_id,year").is_none());
    }
}
