//! Pages for people: a document around a page's content, and the response that carries it
//! (its own content type and security policy: the API's are for JSON).

use actix_web::http::header;
use actix_web::HttpResponse;
use maud::{html, Markup, PreEscaped, DOCTYPE};

/// No script at all, and nothing from another host.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Enough style to read comfortably.
const STYLE: &str = "body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;color:#1b1b1b}main{max-width:60rem;margin:0 auto;padding:1rem}nav a{margin-right:1rem}code{background:#f3f3f3;padding:0 .2em;word-break:break-word}table{border-collapse:collapse;width:100%;margin:1rem 0}caption{text-align:left;font-weight:bold}th,td{text-align:left;border-bottom:1px solid #ddd;padding:.3rem;vertical-align:top}.number{text-align:right}section{margin-top:2.5rem}a{color:#1d4f91}";

/// A whole page: its title, the site's links, the content, the data's licence.
pub fn page(title: &str, content: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header { nav aria-label="Site" { a href="/" { "Home" } a href="/docs" { "API docs" } a href="/downloads" { "Downloads" } } }
                main { (content) }
                footer { main { p { "Data: Department for Transport, road traffic statistics, Open Government Licence v3.0." } } }
            }
        }
    }
    .into_string()
}

/// The response carrying a page.
pub fn response(page: String) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
        .body(page)
}
