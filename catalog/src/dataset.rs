//! What the catalogue says of a dataset and of each of its columns: the types. The datasets
//! themselves are declared in `datasets.rs`.

/// A table of totals kept at load time (see `crate::totals`).
#[derive(Debug)]
pub struct Rollup {
    /// The table's name after `<table>_totals_` (an interface: scripts may query it).
    pub name: &'static str,
    /// The columns it is kept by, each a stored column of the dataset.
    pub by: &'static [&'static str],
}

/// How a value is typed in SQLite and written in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// 64-bit integer, JSON integer. Published decimals are rounded (or refused, see
    /// [`Dataset::integers_strict`]).
    Integer,
    /// Floating point, JSON number.
    Number,
    /// Text carried verbatim, JSON string.
    Text,
    /// `YYYY-MM-DD` text; a published time part is dropped.
    Date,
}

impl ValueType {
    pub fn sql(self) -> &'static str {
        match self {
            ValueType::Integer => "INTEGER",
            ValueType::Number => "REAL",
            ValueType::Text | ValueType::Date => "TEXT",
        }
    }
}

/// Where a column's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Read from the CSV column whose header is the column name or one of these aliases
    /// (compared case-insensitively).
    Csv(&'static [&'static str]),
    /// Assigned by the loader (see [`Ids`]).
    Id,
    /// Computed by the loader for a derived table (see [`Derivation`]).
    Derived,
}

/// What a valid value of a column is. The loader checks every cell against its column's
/// domain, the same way in every dataset; a value that fails makes its row unreadable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// Free text (no NUL byte).
    Text,
    /// Text from a known vocabulary, compared ignoring case. Another value is kept, with a
    /// warning: new codes appear in new releases.
    Code(&'static [&'static str]),
    /// A whole number in plain digits (ids, eastings), within a range.
    Whole { min: i64, max: i64 },
    /// The hour a count began, 0 to 23. Counts are made from 7:00 to 19:00: hour 0 is kept,
    /// with a warning.
    Hour,
    /// A count or a total: a whole number, or published decimal or exponent notation
    /// (`918298.653`, `2.28e+08`), rounded, or refused as a fraction where the dataset is
    /// [`Dataset::integers_strict`]. A negative one is kept, with a warning.
    Count,
    /// A finite decimal (`52.56592`, `.12`, `1.2e+03`; no `NaN`, `inf`, hex or thousands
    /// separators) within a range.
    Decimal { min: f64, max: f64 },
    /// A four-digit year within [`YEARS`].
    Year,
    /// A real calendar date within [`YEARS`].
    Date,
}

/// The years any release can hold: the published series start in 1993.
pub const YEARS: std::ops::RangeInclusive<i64> = 1950..=2100;

/// The largest count or total accepted: GB's yearly vehicle miles are about 3.3e11.
pub const MAX_COUNT: f64 = 1e13;

/// A column whose values also describe a region or a local authority: the loader keeps the
/// latest of them for the derived tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AreaField {
    RegionName,
    RegionCode,
    LocalAuthorityName,
    LocalAuthorityCode,
}

/// A value the loader puts in a column that a file leaves empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// The code of another column's number 1..N (`road_category_id` 3 is `TA`).
    CodeOf {
        column: &'static str,
        codes: &'static [&'static str],
    },
    /// The region of the row's local authority, as the other files give it.
    RegionOfLocalAuthority,
}

impl Fill {
    /// Whether the value is only known once every file is read.
    pub fn after_reading(&self) -> bool {
        matches!(self, Fill::RegionOfLocalAuthority)
    }
}

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: ValueType,
    pub domain: Domain,
    pub source: Source,
    /// The header DfT gives this column in its national file (`LGVs`, `all_HGVs`).
    pub published: &'static str,
    /// The kind of a file is recognised by the presence of all its required columns.
    pub required: bool,
    /// Must hold a value in every row (natural key columns always must).
    pub filled: bool,
    /// Stored and emitted in records. Columns that are not stored only feed the derived
    /// tables (regions, local authorities): names and ONS codes.
    pub stored: bool,
    pub area: Option<AreaField>,
    pub fill: Option<Fill>,
}

impl Column {
    /// A decimal the files give as text, carried verbatim as published (latitude, longitude,
    /// the link lengths: `"1.10"` stays `"1.10"`): a string in the API's records, as the
    /// public service writes it, and a number wherever the value is read as one.
    pub fn is_decimal_text(&self) -> bool {
        self.ty == ValueType::Text && matches!(self.domain, Domain::Decimal { .. })
    }
}

/// A total that the published files give beside its parts. About one AADF row in five
/// differs from the sum of its parts (independent rounding): kept, with a warning.
#[derive(Debug)]
pub struct Total {
    pub total: &'static str,
    pub parts: &'static [&'static str],
}

/// How the rows of a dataset get their ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// 1..N in the order the rows are read: page N of an unfiltered listing is an id range.
    FileOrder,
    /// The value of this column (count points keep their published id).
    Column(&'static str),
}

/// What `count_method=counted|estimated` matches, where a dataset takes that filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountMethod {
    /// The estimation method column, ignoring case (`Counted`, `Estimated`).
    Column(&'static str),
    /// Every row is a manual count: `counted` matches all, `estimated` none.
    AllCounted,
}

/// How a dataset's rows come to be, besides its own files.
#[derive(Debug, Clone, Copy)]
pub enum Completion {
    /// Rows only complete once another dataset is read: its latest row (by `year`) of each
    /// key adds the rows this dataset's files lack (located as in that row), and gives every
    /// row `latest_year` (a count point's latest AADF year).
    LatestOf {
        source: &'static Dataset,
        key: &'static str,
        latest_year: &'static str,
    },
}

/// How a table that no file holds is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derivation {
    /// From the reference file of countries (`data/countries.csv`).
    Countries,
    /// From the ids, names and ONS codes of regions in every file.
    Regions,
    /// From the ids, names, ONS codes and regions of local authorities in every file.
    LocalAuthorities,
}

/// Where a dataset's rows come from.
#[derive(Debug, Clone, Copy)]
pub enum Origin {
    /// CSV files as DfT publishes them; the national file's layout is the one exported and
    /// the one the synthetic generator writes.
    Published(NationalFile),
    Derived(Derivation),
}

/// DfT's national file of a dataset, as published now (`../shared/spec/LOADER.md` section 3).
#[derive(Debug, Clone, Copy)]
pub struct NationalFile {
    /// Its name (in the zip of the same stem, `dft_traffic_counts_aadf.zip`).
    pub name: &'static str,
    /// Other names the same file goes by.
    pub aliases: &'static [&'static str],
    /// Its columns in order; the header gives each its published name.
    pub layout: &'static [Layout],
    /// The summary tables quote their header and every text field; the big files quote only
    /// the text fields that need it.
    pub quote_all_text: bool,
    /// The per-area files DfT also publishes, if any.
    pub splits: Option<Splits>,
}

/// DfT's per-area split files of a dataset: `<folder>/<by>/<stem>_<by>_<id>.csv`, with the
/// national file's columns but those it omits, headers in lower case, text holding a space or
/// a comma quoted.
#[derive(Debug, Clone, Copy)]
pub struct Splits {
    /// `aadf`, `aadfbydirection`, `rawcount`, `countpoints`, `traffic`.
    pub folder: &'static str,
    /// `dft_aadf`...
    pub stem: &'static str,
    /// The columns the files are split by.
    pub by: &'static [&'static str],
    /// National columns the split files leave out.
    pub omits: &'static [&'static str],
    /// Rows highest id first, as DfT writes this dataset's split files (else file order).
    pub ids_descending: bool,
}

impl Splits {
    /// The split files' columns, by catalogue name, in order.
    pub fn columns(&self, national: &NationalFile) -> Vec<&'static str> {
        national
            .columns()
            .into_iter()
            .filter(|c| !self.omits.contains(c))
            .collect()
    }
}

/// Part of a national file's column order.
#[derive(Debug, Clone, Copy)]
pub enum Layout {
    /// These columns, by catalogue name.
    Columns(&'static [&'static str]),
    /// A group of columns shared with the records (the vehicles), in its order.
    Group(&'static [Column]),
    /// A layout shared between files.
    Nested(&'static [Layout]),
}

impl NationalFile {
    /// The file's columns in order, by catalogue name.
    pub fn columns(&self) -> Vec<&'static str> {
        fn walk(parts: &'static [Layout], out: &mut Vec<&'static str>) {
            for part in parts {
                match part {
                    Layout::Columns(names) => out.extend_from_slice(names),
                    Layout::Group(columns) => out.extend(columns.iter().map(|c| c.name)),
                    Layout::Nested(inner) => walk(inner, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(self.layout, &mut out);
        out
    }
}

#[derive(Debug)]
pub struct Dataset {
    /// SQLite table name (an interface: scripts query it directly).
    pub table: &'static str,
    /// API paths (without the base path) that list this dataset; the first is canonical.
    pub paths: &'static [&'static str],
    /// Human name used in load reports.
    pub title: &'static str,
    /// What a record is, in a sentence (the API's description, the docs page).
    pub about: &'static str,
    /// What the counts of a record are a number of (AADF: vehicles on an average day).
    pub count_unit: Option<&'static str>,
    /// Columns in record order, in groups shared between datasets; unstored columns come last.
    pub groups: &'static [&'static [Column]],
    /// Column names that identify a row; a repeated key is a duplicate.
    pub natural_key: &'static [&'static str],
    pub ids: Ids,
    /// Accepted filter names, in the order the public service lists them in its error message.
    /// Each names a stored column (also sortable) or [`COUNT_METHOD`]. Matching is exact;
    /// text columns ignore letter case.
    pub filters: &'static [&'static str],
    pub count_method: Option<CountMethod>,
    /// Columns that stay the same along long stretches of consecutive rows (a raw count file
    /// holds each count point's count days together, an AADF file each year's rows). They are
    /// kept once per run of rows in a small `<table>_runs` table of id ranges, through which
    /// the server filters and sorts on those that are filters (instead of an index each on
    /// the big table), and from which it writes them once per run rather than once per record
    /// (see `record::SplitLayout`). A file in another order only makes more, shorter runs.
    pub run_columns: &'static [&'static str],
    /// Whether each row's own values (its fields but its id and run columns: see
    /// [`Dataset::own_value_columns`]) are also kept as their JSON text, in one value of a
    /// `<table>_own_values` table (see `record::SplitLayout`). A record written run by run then
    /// reads two values from SQLite, its id and that text, rather than one per field, and
    /// formats none: under half the CPU of a page that is not cached. Worth its disk (about 47
    /// bytes a row) where records are many and written run by run.
    pub own_values: bool,
    /// Filters left without an index: codes that match a large share of a table small enough
    /// (about a million rows) to scan once per filter set. The server learns such a filter
    /// set's total and checkpoints in one scan, then reads each page from its checkpoint, a
    /// few hundred rows on; an index would cost the load more than it saves any request.
    pub unindexed: &'static [&'static str],
    /// Paginated with the Laravel envelope (else a bare JSON array).
    pub paginated: bool,
    /// The totals kept at load time, each by a few columns (see [`crate::totals`]): what a
    /// national summary or facet reads instead of the table.
    pub rollups: &'static [Rollup],
    /// An integer column holding a fraction is a bad row (AADF, raw counts) rather than a
    /// published total to round (regional and local authority tables).
    pub integers_strict: bool,
    pub origin: Origin,
    pub completion: Option<Completion>,
}

/// `count_method=counted|estimated` is the one filter that is not a column (see
/// [`CountMethod`]).
pub const COUNT_METHOD: &str = "count_method";

impl Dataset {
    /// Every column, in record order (unstored ones last).
    pub fn columns(&self) -> impl Iterator<Item = &'static Column> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }
    pub fn stored_columns(&self) -> impl Iterator<Item = &'static Column> + Clone {
        self.columns().filter(|c| c.stored)
    }
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns().find(|c| c.name == name)
    }
    /// The position of a column in [`Dataset::columns`].
    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns().position(|c| c.name == name)
    }
    /// The stored column a filter name matches, if it is a plain column filter of this dataset.
    pub fn filter_column(&self, name: &str) -> Option<&'static Column> {
        if !self.filters.contains(&name) {
            return None;
        }
        self.column(name).filter(|c| c.stored)
    }
    pub fn is_filterable(&self, column: &str) -> bool {
        self.filter_column(column).is_some()
    }
    /// Names a row can be sorted by: every filter but `count_method`.
    pub fn sorts(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.filters.iter().copied().filter(|f| *f != COUNT_METHOD)
    }
    /// Columns worth an index: every filterable and sortable column but the id (the rowid)
    /// and the run columns.
    pub fn indexed_columns(&self) -> impl Iterator<Item = &'static Column> + '_ {
        self.filters
            .iter()
            .filter_map(|f| self.filter_column(f))
            .filter(|c| {
                c.source != Source::Id
                    && !self.run_columns.contains(&c.name)
                    && !self.unindexed.contains(&c.name)
            })
    }
    /// The table of runs (see [`Dataset::run_columns`]), if the dataset has one.
    pub fn runs_table(&self) -> Option<String> {
        (!self.run_columns.is_empty()).then(|| format!("{}_runs", self.table))
    }
    /// The table of each row's own values (see [`Dataset::own_values`]), if the dataset has
    /// one.
    pub fn own_values_table(&self) -> Option<String> {
        let kept = self.own_values && !self.run_columns.is_empty();
        kept.then(|| format!("{}_own_values", self.table))
    }
    /// The columns of a row's own values, in record order: every stored column but the id
    /// and the run columns.
    pub fn own_value_columns(&self) -> impl Iterator<Item = &'static Column> + Clone + '_ {
        self.stored_columns()
            .filter(|c| c.source != Source::Id && !self.run_columns.contains(&c.name))
    }
    /// Loaded from published CSV files (else derived by the loader).
    pub fn national_file(&self) -> Option<&NationalFile> {
        match &self.origin {
            Origin::Published(file) => Some(file),
            Origin::Derived(_) => None,
        }
    }
    pub fn derivation(&self) -> Option<Derivation> {
        match self.origin {
            Origin::Derived(d) => Some(d),
            Origin::Published(_) => None,
        }
    }
    /// Whether every row is final once the dataset's files are read (so its indexes can be
    /// built straight away): nothing is added to it or filled in it afterwards.
    pub fn final_when_read(&self) -> bool {
        self.completion.is_none()
            && !self
                .columns()
                .any(|c| c.fill.is_some_and(|f| f.after_reading()))
    }
    /// The column whose value is a row's id, when ids are not file positions.
    pub fn id_column(&self) -> Option<&'static str> {
        match self.ids {
            Ids::Column(c) => Some(c),
            Ids::FileOrder => None,
        }
    }
}
