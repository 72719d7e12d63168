//! Rows shared below the table: a kept release whose dataset's table differs from a newer
//! release's in a few rows stores only those (a layer) over the newer one's table.
//!
//! A layer of table `t`, in a release's own file, is two tables:
//!
//! - `t__own`: the rows of `t` (every column, same id) that the table below does not hold as
//!   they are: revised rows and rows it lacks; with `t`'s indexes;
//! - `t__hide`: the ids of the rows below that this release does not hold as they are: the
//!   revised rows' ids and the rows it lacks.
//!
//! A release reads `t` as a temporary view, made on each connection ([`view_sql`]): its own
//! layer, then each layer below it (the newer releases' layers, as the manifest lists them),
//! then the table held whole (by the `--db` file or a kept file), each less the ids the layers
//! above hide. A row is stored once, in the newest release that holds it as it is.
//!
//! Only the AADF tables are layered: they are the tables a release revises in part (a share
//! of the estimated rows, a year added) and, with no runs and no own values, each is one
//! table read by id. Raw counts are shared whole (they rarely change), the other tables are
//! small.

use rusqlite::Connection;

use roadtraffic_catalog::{AADF, AADF_BY_DIRECTION};

use crate::group::Group;

/// The groups whose table may be stored as a layer.
pub fn layerable(group: &Group) -> bool {
    [AADF.table, AADF_BY_DIRECTION.table].contains(&group.name)
}

/// A layer is kept only when it holds at most this share of the table's rows: past it, the
/// table is stored whole (every read of a layered table pays for the layers).
const MAX_SHARE: f64 = 0.5;

/// The table of a layer's own rows.
pub fn own_table(table: &str) -> String {
    format!("{table}__own")
}

/// The table of the ids a layer hides.
pub fn hide_table(table: &str) -> String {
    format!("{table}__hide")
}

/// Writes into `main` the layer of `table` as schema `src` holds it, over the table as schema
/// `base` holds it: `true` when written; `false` (nothing left in `main`) when the two tables'
/// definitions differ or the layer would hold more than [`MAX_SHARE`] of the rows, the table
/// then to be stored whole. The caller holds a transaction.
pub fn write_layer(
    conn: &Connection,
    src: &str,
    base: &str,
    table: &str,
) -> rusqlite::Result<bool> {
    let ddl = |schema: &str| table_sql(conn, schema, table);
    let Some(definition) = ddl(src)? else {
        return Ok(false);
    };
    if ddl(base)?.as_deref() != Some(definition.as_str()) {
        return Ok(false);
    }
    let (own, hide) = (own_table(table), hide_table(table));
    let columns = columns_of(conn, src, table)?;
    let body = &definition[definition.find('(').unwrap_or(definition.len())..];
    conn.execute_batch(&format!(
        "CREATE TABLE main.\"{own}\" {body};
         CREATE TABLE main.\"{hide}\" (id INTEGER PRIMARY KEY);"
    ))?;
    // The same value: equal, and of the same type (an integer and a real can be equal and
    // still be written differently).
    let same: Vec<String> = (columns.iter())
        .map(|c| format!("n.\"{c}\" IS o.\"{c}\" AND typeof(n.\"{c}\") = typeof(o.\"{c}\")"))
        .collect();
    let own_rows = conn.execute(
        &format!(
            "INSERT INTO main.\"{own}\" SELECT * FROM \"{src}\".\"{table}\" o WHERE NOT EXISTS \
             (SELECT 1 FROM \"{base}\".\"{table}\" n WHERE n.id = o.id AND {}) ORDER BY o.id",
            same.join(" AND ")
        ),
        [],
    )?;
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM \"{src}\".\"{table}\""),
        [],
        |r| r.get(0),
    )?;
    if own_rows as f64 > MAX_SHARE * total as f64 {
        conn.execute_batch(&format!(
            "DROP TABLE main.\"{own}\"; DROP TABLE main.\"{hide}\";"
        ))?;
        return Ok(false);
    }
    conn.execute(
        &format!(
            "INSERT INTO main.\"{hide}\" SELECT id FROM main.\"{own}\" \
             UNION SELECT id FROM \"{base}\".\"{table}\" \
             WHERE id NOT IN (SELECT id FROM \"{src}\".\"{table}\") ORDER BY 1"
        ),
        [],
    )?;
    index_like(conn, src, table, &own)?;
    Ok(true)
}

/// The `CREATE TABLE` of a table in a schema, if it holds one.
fn table_sql(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<Option<String>> {
    let sql =
        format!("SELECT sql FROM \"{schema}\".sqlite_master WHERE type = 'table' AND name = ?1");
    match conn.query_row(&sql, [table], |r| r.get(0)) {
        Ok(s) => Ok(Some(s)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e),
    }
}

fn columns_of(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1, ?2)")?;
    let names = stmt.query_map([table, schema], |r| r.get(0))?;
    names.collect()
}

/// `table`'s indexes (as `schema` holds them) made on `own` in `main`: a layer is read as the
/// table is, by the same columns.
fn index_like(conn: &Connection, schema: &str, table: &str, own: &str) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!(
        "SELECT name, sql FROM \"{schema}\".sqlite_master \
         WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY rowid"
    ))?;
    let indexes: Vec<(String, String)> = stmt
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (name, sql) in indexes {
        conn.execute_batch(&index_sql(&sql, &format!("{own}__{name}"), own))?;
    }
    Ok(())
}

/// An index's `CREATE INDEX` (as `sqlite_master` holds it) remade as index `name` on `table`
/// in schema `main`: the columns, uniqueness and any `WHERE` kept.
pub fn index_sql(sql: &str, name: &str, table: &str) -> String {
    let columns = sql.find('(').map_or("", |open| &sql[open..]);
    let unique = match sql.starts_with("CREATE UNIQUE") {
        true => "UNIQUE ",
        false => "",
    };
    format!("CREATE {unique}INDEX main.\"{name}\" ON \"{table}\" {columns}")
}

/// The temporary view that reads `table` through its layers: `layers` are the schemas holding
/// them, topmost first, `whole` the schema holding the table whole. Each row is read from the
/// topmost schema holding it; ids hidden above are not read below.
pub fn view_sql(table: &str, layers: &[String], whole: &str) -> String {
    let (own, hide) = (own_table(table), hide_table(table));
    let mut arms = Vec::new();
    for (i, schema) in layers
        .iter()
        .chain(std::iter::once(&whole.to_string()))
        .enumerate()
    {
        let read = match i < layers.len() {
            true => format!("SELECT * FROM \"{schema}\".\"{own}\""),
            false => format!("SELECT * FROM \"{schema}\".\"{table}\""),
        };
        let hidden: Vec<String> = (layers[..i].iter())
            .map(|above| format!("id NOT IN (SELECT id FROM \"{above}\".\"{hide}\")"))
            .collect();
        arms.push(match hidden.is_empty() {
            true => read,
            false => format!("{read} WHERE {}", hidden.join(" AND ")),
        });
    }
    format!(
        "CREATE TEMP VIEW \"{table}\" AS {}",
        arms.join(" UNION ALL ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_holds_the_rows_that_differ_and_reads_back_the_release() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "ATTACH ':memory:' AS old; ATTACH ':memory:' AS new;
             CREATE TABLE old.aadf (id INTEGER PRIMARY KEY, year INTEGER, v REAL, t TEXT);
             CREATE TABLE new.aadf (id INTEGER PRIMARY KEY, year INTEGER, v REAL, t TEXT);
             CREATE INDEX old.aadf_year ON aadf (year);",
        )
        .unwrap();
        for id in 1..=100 {
            let v = if id % 10 == 0 { None } else { Some(id as f64) };
            conn.execute("INSERT INTO old.aadf VALUES (?1, 2020, ?2, 'x')", (id, v))
                .unwrap();
        }
        // The newer release revises ids 5 and 10, drops 7 and adds 101.
        conn.execute_batch(
            "INSERT INTO new.aadf SELECT * FROM old.aadf WHERE id <> 7;
             UPDATE new.aadf SET v = 0.5 WHERE id = 5;
             UPDATE new.aadf SET v = 1 WHERE id = 10;
             INSERT INTO new.aadf VALUES (101, 2021, 3, 'y');",
        )
        .unwrap();
        assert!(write_layer(&conn, "old", "new", "aadf").unwrap());
        let ids = |sql: &str| -> Vec<i64> {
            let mut s = conn.prepare(sql).unwrap();
            s.query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(ids("SELECT id FROM aadf__own"), [5, 7, 10]);
        assert_eq!(ids("SELECT id FROM aadf__hide"), [5, 7, 10, 101]);
        conn.execute_batch(&view_sql("aadf", &["main".into()], "new"))
            .unwrap();
        let all = |sql: &str| -> Vec<String> {
            let mut s = conn.prepare(sql).unwrap();
            s.query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let row = "SELECT id || ',' || year || ',' || quote(v) || ',' || t";
        assert_eq!(
            all(&format!("{row} FROM temp.aadf ORDER BY id")),
            all(&format!("{row} FROM old.aadf ORDER BY id"))
        );
        let index: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'aadf__own__aadf_year'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(index, 1);
    }

    #[test]
    fn layers_below_are_read_less_what_is_hidden_above() {
        let sql = view_sql("aadf", &["main".into(), "shared0".into()], "shared1");
        assert_eq!(
            sql,
            "CREATE TEMP VIEW \"aadf\" AS SELECT * FROM \"main\".\"aadf__own\" UNION ALL \
             SELECT * FROM \"shared0\".\"aadf__own\" WHERE id NOT IN (SELECT id FROM \
             \"main\".\"aadf__hide\") UNION ALL SELECT * FROM \"shared1\".\"aadf\" WHERE id \
             NOT IN (SELECT id FROM \"main\".\"aadf__hide\") AND id NOT IN (SELECT id FROM \
             \"shared0\".\"aadf__hide\")"
        );
    }
}
