//! Optional per-client rate limiting: N requests per minute per IP, in fixed one-minute
//! windows, as Laravel's throttle middleware counts them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::HttpRequest;

use crate::error::ApiError;

const WINDOW: Duration = Duration::from_secs(60);
/// Past this many clients the expired windows are swept, so memory stays bounded.
const SWEEP_AT: usize = 100_000;

pub struct Limiter {
    per_minute: u32,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl Limiter {
    pub fn new(per_minute: u32) -> Self {
        Limiter {
            per_minute,
            windows: Mutex::new(HashMap::new()),
        }
    }

    pub fn per_minute(&self) -> u32 {
        self.per_minute
    }

    /// Counts the request; gives (limit, remaining) or the 429 to answer.
    pub fn check(&self, req: &HttpRequest) -> Result<(u32, u32), ApiError> {
        let ip = req
            .peer_addr()
            .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
        let now = Instant::now();
        let mut windows = self
            .windows
            .lock()
            .map_err(|_| ApiError::internal("the rate limit lock is poisoned"))?;
        if windows.len() >= SWEEP_AT {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = windows.entry(ip).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        if *count >= self.per_minute {
            let retry = WINDOW
                .saturating_sub(now.duration_since(*start))
                .as_secs()
                .max(1);
            return Err(ApiError::RateLimited {
                retry_after_secs: retry,
            });
        }
        *count += 1;
        Ok((self.per_minute, self.per_minute - *count))
    }
}
