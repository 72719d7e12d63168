//! Headless Chromium (Debian's `chromium`), driven over the DevTools protocol: pages are loaded
//! as a person would load them, and what a person cannot see is recorded too (console errors,
//! uncaught exceptions, every request the page makes).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Network, Page};
use headless_chrome::{Browser, LaunchOptions, Tab};

use crate::support::missing;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The browser, or `None` (said on stderr) when Chromium is not installed. With
/// `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, whose `.ci/run` installs it) its absence fails the test.
pub fn chromium(width: u32, height: u32) -> Option<Browser> {
    if !Path::new(CHROMIUM).exists() {
        return missing(
            &format!("{CHROMIUM} (apt-get install chromium; .ci/run installs it)"),
            &format!("what needs {CHROMIUM}: not installed (apt-get install chromium)"),
        );
    }
    let profile = tempfile::tempdir().expect("profile dir").keep();
    // The flags this machine's Chromium needs: no sandbox as root, no GPU, and none of its
    // own network traffic (updates, sync, safe browsing), which a closed network refuses.
    let args: Vec<&OsStr> = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions {
        headless: true,
        sandbox: false,
        path: Some(PathBuf::from(CHROMIUM)),
        user_data_dir: Some(profile),
        window_size: Some((width, height)),
        args,
        idle_browser_timeout: Duration::from_secs(120),
        ..LaunchOptions::default()
    };
    Some(Browser::new(options).expect("start headless Chromium"))
}

/// What a tab saw: console errors and exceptions, and the URL of every request.
#[derive(Default)]
pub struct Seen {
    pub errors: Vec<String>,
    pub requests: Vec<String>,
}

pub struct Watched {
    pub tab: Arc<Tab>,
    pub seen: Arc<Mutex<Seen>>,
}

/// A new tab of `width` x `height` that records what it sees.
pub fn watched_tab(browser: &Browser, width: u32, height: u32) -> Watched {
    let tab = browser.new_tab().expect("new tab");
    tab.set_default_timeout(Duration::from_secs(20));
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .unwrap();
    resize(&tab, width, height);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let sink = seen.clone();
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let mut seen = sink.lock().unwrap();
        match event {
            Event::LogEntryAdded(e) if format!("{:?}", e.params.entry.level) == "Error" => {
                let entry = &e.params.entry;
                seen.errors
                    .push(format!("log: {} ({:?})", entry.text, entry.url));
            }
            Event::RuntimeExceptionThrown(e) => {
                seen.errors
                    .push(format!("exception: {:?}", e.params.exception_details));
            }
            Event::RuntimeConsoleAPICalled(e) if format!("{:?}", e.params.Type) == "Error" => {
                seen.errors
                    .push(format!("console.error: {:?}", e.params.args));
            }
            Event::NetworkRequestWillBeSent(e) => seen.requests.push(e.params.request.url.clone()),
            _ => {}
        }
    }))
    .unwrap();
    Watched { tab, seen }
}

/// Sets the page's viewport, as a phone or a desktop screen.
pub fn resize(tab: &Tab, width: u32, height: u32) {
    tab.call_method(
        headless_chrome::protocol::cdp::Emulation::SetDeviceMetricsOverride {
            width,
            height,
            device_scale_factor: 1.0,
            mobile: width < 600,
            scale: None,
            screen_width: None,
            screen_height: None,
            position_x: None,
            position_y: None,
            dont_set_visible_size: None,
            screen_orientation: None,
            viewport: None,
            display_feature: None,
            device_posture: None,
        },
    )
    .unwrap();
}

/// The value of an expression in the page (a promise is awaited), as JSON (objects and
/// arrays too: the protocol would hand those back by reference).
pub fn eval(tab: &Tab, expression: &str) -> serde_json::Value {
    let script = format!("(async () => JSON.stringify(await ({expression})))()");
    let result = tab
        .evaluate(&script, true)
        .unwrap_or_else(|e| panic!("{expression}: {e}"));
    match result.value {
        Some(serde_json::Value::String(json)) => serde_json::from_str(&json).unwrap(),
        _ => serde_json::Value::Null,
    }
}

/// Polls `script` until it is truthy; panics naming it after `timeout`.
pub fn wait_for(tab: &Tab, script: &str, timeout: Duration) -> serde_json::Value {
    poll(tab, script, timeout).unwrap_or_else(|| panic!("timed out waiting for {script}"))
}

/// Polls `script` until it is truthy; `None` after `timeout`.
pub fn poll(tab: &Tab, script: &str, timeout: Duration) -> Option<serde_json::Value> {
    let started = Instant::now();
    loop {
        let value = eval(tab, script);
        if !matches!(
            value,
            serde_json::Value::Null | serde_json::Value::Bool(false)
        ) {
            return Some(value);
        }
        if started.elapsed() > timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A PNG of the whole page at `width`, kept under `target/site-screenshots/` (CI's
/// artefacts); the viewport is then set back to `width` x `height`.
pub fn screenshot(tab: &Tab, name: &str, (width, height): (u32, u32)) -> PathBuf {
    let full = eval(tab, "document.documentElement.scrollHeight")
        .as_u64()
        .unwrap_or(800);
    resize(tab, width, (full as u32).clamp(height, 8000));
    std::thread::sleep(Duration::from_millis(300)); // the map redraws at its new size
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    let dir = screenshots_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).unwrap();
    resize(tab, width, height);
    path
}

/// `target/site-screenshots`, beside the test binary's profile folder.
pub fn screenshots_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/it-<hash>
    let target = exe.ancestors().nth(3).unwrap_or(Path::new("target"));
    target.join("site-screenshots")
}
