//! What several handlers answer alike: the public service's JSON 404, and this mirror's public
//! address.

use actix_web::HttpRequest;

use crate::error::ApiError;
use crate::query;

/// Laravel's 404, naming the path without its leading `/`.
pub fn not_found(req: &HttpRequest) -> ApiError {
    ApiError::NotFound(query::url_decode(req.path().trim_start_matches('/')))
}

/// Scheme and host of this mirror as its users reach it: `--public-url`, else the request's.
pub fn public_base(req: &HttpRequest, public_url: Option<&str>) -> String {
    match public_url {
        Some(u) => u.trim_end_matches('/').to_string(),
        None => {
            let info = req.connection_info();
            format!("{}://{}", info.scheme(), info.host())
        }
    }
}
