//! The server's one error type, and the one place it becomes an HTTP status.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};

use roadtraffic_catalog::json;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A parameter the request got wrong; the message says which and how.
    #[error("{0}")]
    BadRequest(String),
    /// No such path: Laravel's message with the path without its leading `/`.
    #[error("The route {0} could not be found.")]
    NotFound(String),
    /// Something the loaded file does not hold; the message says what.
    #[error("{0}")]
    NotHeld(String),
    #[error("The {0} method is not supported for this route. Supported methods: GET, HEAD.")]
    MethodNotAllowed(String),
    #[error("Too Many Attempts.")]
    RateLimited { retry_after_secs: u64 },
    /// Every connection busy for too long, or a query over its time limit.
    #[error("The server is busy or the query took too long; try again shortly.")]
    Unavailable,
    /// The client closed the connection mid-response: nobody to answer.
    #[error("the client went away")]
    ClientGone,
    /// Anything else: logged in full, answered with a bare message.
    #[error("Server Error")]
    Internal(String),
}

impl ApiError {
    pub fn internal(e: impl std::fmt::Display) -> Self {
        ApiError::Internal(e.to_string())
    }

    /// Laravel's 404 of a request's path, naming it without its leading `/`.
    pub fn no_route(req: &actix_web::HttpRequest) -> Self {
        let path = req.path().trim_start_matches('/');
        ApiError::NotFound(crate::query::url_decode(path))
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::OperationInterrupted) => ApiError::Unavailable,
            _ => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<r2d2::Error> for ApiError {
    fn from(_: r2d2::Error) -> Self {
        ApiError::Unavailable
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) | ApiError::NotHeld(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            // Never sent: there is no client left to send it to.
            ApiError::ClientGone => StatusCode::BAD_REQUEST,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        self.head().body(json::message(&self.to_string()))
    }
}

impl ApiError {
    /// The error as OGC API - Features writes an exception (Part 1's `exception.yaml`): a
    /// `code` (OWS Common's), the `description`, and the `message` every error of this server
    /// has.
    pub fn ogc_response(&self) -> HttpResponse {
        let code = match self {
            ApiError::BadRequest(_) => "InvalidParameterValue",
            ApiError::NotFound(_) | ApiError::NotHeld(_) => "NotFound",
            ApiError::MethodNotAllowed(_) => "OperationNotSupported",
            ApiError::RateLimited { .. } => "TooManyRequests",
            ApiError::Unavailable => "ServiceUnavailable",
            ApiError::ClientGone | ApiError::Internal(_) => "NoApplicableCode",
        };
        let text = self.to_string();
        let body = serde_json::json!({"code": code, "description": text, "message": text});
        self.head().body(body.to_string())
    }

    /// The status and headers of the error's answer.
    fn head(&self) -> actix_web::HttpResponseBuilder {
        if let ApiError::Internal(detail) = self {
            log::error!("internal error: {detail}");
        }
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((header::CONTENT_TYPE, "application/json"));
        match self {
            ApiError::MethodNotAllowed(_) => {
                response.insert_header((header::ALLOW, "GET, HEAD"));
            }
            ApiError::RateLimited { retry_after_secs } => {
                response.insert_header((header::RETRY_AFTER, retry_after_secs.to_string()));
            }
            ApiError::Unavailable => {
                response.insert_header((header::RETRY_AFTER, "5"));
            }
            _ => {}
        }
        response
    }
}
