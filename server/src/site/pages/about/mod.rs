//! `/about`: what the data is, its licence and disclaimer, the release loaded (the file's
//! metadata table) and what changed with it (the loader's change report).

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::site::pages::context;
use crate::site::View;

pub fn render(view: &View) -> Result<Markup, ApiError> {
    let loaded = query::loaded(view.overview);
    Ok(template::page(&context(view), &loaded))
}
