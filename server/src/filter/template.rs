//! A filter's SQL before it is placed in a query: its text, the columns it reads (named only
//! when the query is planned: a run column is read from the runs table when they are
//! joined), and its arguments in the order of their marks. No value a request gives is ever
//! written into the text: each is an argument.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::Column;

#[derive(Debug, Clone)]
pub enum Part {
    Sql(String),
    Column(&'static Column),
    /// A `?`, and the value bound to it.
    Arg(SqlValue),
}

/// SQL in parts.
#[derive(Debug, Clone, Default)]
pub struct Template(pub Vec<Part>);

impl Template {
    pub fn sql(text: impl Into<String>) -> Template {
        Template(vec![Part::Sql(text.into())])
    }

    pub fn column(c: &'static Column) -> Template {
        Template(vec![Part::Column(c)])
    }

    pub fn arg(v: SqlValue) -> Template {
        Template(vec![Part::Arg(v)])
    }

    /// `self` then `text`.
    pub fn then(mut self, text: &str) -> Template {
        self.0.push(Part::Sql(text.to_string()));
        self
    }

    /// `self` then `other`.
    pub fn and(mut self, other: Template) -> Template {
        self.0.extend(other.0);
        self
    }

    /// `(`, then `self`, then `)`.
    pub fn wrapped(self) -> Template {
        Template::sql("(").and(self).then(")")
    }

    /// The templates one after the other, `between` each two.
    pub fn join(parts: impl IntoIterator<Item = Template>, between: &str) -> Template {
        let mut out = Template::default();
        for (i, t) in parts.into_iter().enumerate() {
            if i > 0 {
                out = out.then(between);
            }
            out = out.and(t);
        }
        out
    }

    /// The SQL text, each column as `column` names it, each argument pushed onto `args`.
    pub fn render(
        &self,
        column: &dyn Fn(&'static Column) -> String,
        args: &mut Vec<SqlValue>,
    ) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Sql(text) => out.push_str(text),
                Part::Column(c) => out.push_str(&column(c)),
                Part::Arg(v) => {
                    out.push('?');
                    args.push(v.clone());
                }
            }
        }
        out
    }

    /// The columns it reads, each once.
    pub fn columns(&self) -> Vec<&'static Column> {
        let mut out: Vec<&'static Column> = Vec::new();
        for part in &self.0 {
            if let Part::Column(c) = part {
                if !out.iter().any(|o| std::ptr::eq(*o, *c)) {
                    out.push(c);
                }
            }
        }
        out
    }
}
