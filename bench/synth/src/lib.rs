//! Deterministic generator of a synthetic national DfT road traffic release.
//!
//! From the small seed file (`../shared/data/synth_seed.json.gz`: real LA list and centroids, real
//! summary tables, 4,795 real count point identities, real flow and hourly count templates) this
//! writes the seven national CSV files in the current (2024+) header style:
//!
//! | file                                        | rows at scale 1.0 |
//! | ------------------------------------------- | ----------------- |
//! | `dft_traffic_counts_aadf.csv`               | ~600,000          |
//! | `dft_traffic_counts_aadf_by_direction.csv`  | ~1,140,000        |
//! | `dft_traffic_counts_raw_counts.csv`         | ~5,000,000        |
//! | `count_points.csv`                          | 47,000            |
//! | `local_authority_traffic.csv`               | seed rows (6,353) |
//! | `region_traffic_by_vehicle_type.csv`        | seed rows         |
//! | `region_traffic_by_road_type.csv`           | seed rows         |
//!
//! What a file is comes from the catalogue (`roadtraffic_catalog`), the one description of every
//! dataset: its name, its columns in order and their headers are its dataset's national file, the
//! vehicles are its vehicle columns, and totals are the sums [`roadtraffic_catalog::TOTALS`]
//! declares.
//!
//! The output is a pure function of the options and the seed file: every random draw comes from
//! a SplitMix64 stream keyed by (seed, count point, year, purpose), and only IEEE basic operations
//! (`+ - * /`, `sqrt`, `floor`) are used (own `exp`/`sin`/`atan`), so the bytes are identical
//! across runs, thread schedules and platforms.
//!
//! Conventions (as in the real files):
//! - big files: LF line ends, text fields quoted only when they hold a comma, quote or space
//!   (`"East of England"`, `"Bristol, City of"`), numbers bare, lat/lon with 8 decimals, link
//!   lengths with 2 decimals, empty junctions and link lengths on minor roads;
//! - summary tables (LA traffic, region tables): header and every text field quoted, numbers in
//!   R's shortest form (`9e+05`, `1400000`, `2.231e+09`, `4650.69`), as in the 2023 release;
//! - AADF and by-direction sorted by year then count point id; raw counts grouped by count point
//!   (ascending) then count date; count points ascending by id;
//! - ~20% of AADF rows have all_HGVs / all_motor_vehicles off by 1-2 from the sum of the parts
//!   (independent rounding); by-direction rows sum exactly to the AADF parts; raw count totals
//!   are exact.
//!
//! Regenerate the bundled sample release (run from the repository root):
//!
//! ```text
//! cargo run --release -p roadtraffic-synth -- --sample --out data/sample
//! ```
//!
//! which is `--regions 3,4,6 --count-points 12 --years 2019-2024 --summary-years 2019-2024
//! --seed 30 --seed-file ../shared/data/synth_seed.json.gz` (the binary built from any target
//! directory gives the same bytes, e.g.
//! `target/release/roadtraffic-synth --sample --out data/sample`).
//!
//! Full-size release (about 1.3 GB), into a directory of your choice:
//!
//! ```text
//! BENCH_DATA=../bench-data
//! cargo run --release --bin roadtraffic-synth -- --out "$BENCH_DATA/full" --scale 1.0
//! ```
//!
//! # Modules
//!
//! Each module uses only those listed before it.
//!
//! | module          | its job                                                                  |
//! | --------------- | ------------------------------------------------------------------------ |
//! | `error`         | why a run fails                                                          |
//! | `options`       | what to generate; the sample preset                                      |
//! | `report`        | rows and bytes written per file                                          |
//! | `rng`           | keyed SplitMix64 streams, and the purposes they are keyed by             |
//! | `dmath`         | `exp`, `sin`, `atan` from IEEE basic operations                          |
//! | `grid`          | National Grid easting/northing <-> WGS84 latitude/longitude              |
//! | `units`         | miles from kilometres, as DfT rounds them                                |
//! | `text`          | numbers and quoted text as the CSV files write them                      |
//! | `calendar`      | dates of the raw counts, and their weekdays                              |
//! | `vehicles`      | the modelled vehicles: the catalogue's vehicle columns that are no total |
//! | `road_class`    | the road classes of the seed's templates                                 |
//! | [`seed`]        | the seed file's layout, reading and checks                               |
//! | `csv_file`      | the writer of a national file, column by catalogue column                |
//! | `model`         | count points, their yearly AADF, its split by direction, totals, trends  |
//! | `count_points`  | building the model: how many count points each LA gets, and who they are |
//! | `count_files`   | the writers of the AADF, by-direction, raw count and count point files   |
//! | `summaries`     | the summary tables: the seed's real rows, made synthetic                 |
//! | `release`       | [`generate`]: the model, then every file                                 |

mod error;
mod options;
mod report;

mod dmath;
mod grid;
mod rng;
mod units;

mod calendar;
mod text;

mod road_class;
pub mod seed;
mod vehicles;

mod csv_file;

mod count_files;
mod count_points;
mod model;
mod summaries;

mod release;

pub use calendar::weekday;
pub use error::SynthError;
pub use options::{SynthOptions, FULL_COUNT_POINTS, SAMPLE_SEED};
pub use release::generate;
pub use report::{FileSummary, SynthSummary};
pub use vehicles::MODELLED_VEHICLES;
