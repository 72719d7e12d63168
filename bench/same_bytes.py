#!/usr/bin/env python3
"""Do two builds of the mirror answer the same bytes? Loads DATA with each build's loader,
serves each file with that build's server, and compares the statuses, headers and bodies of
requests made from the new server's OpenAPI description: every endpoint and alias plain, paged,
past its last page, sorted both ways by each sort key, filtered by values taken from its own
rows, with sparse fields, and a few malformed requests. Then everything beyond the listings'
JSON: the site's pages (from its own links), assets and map data, the docs, the description,
the downloads page and files (SAME_FILES of them, 40 by default), the operator's paths,
redirects, 404s (for a browser too), every wrong method and preflight. Then, by group:

- ogc: OGC API - Features under /ogcapi (landing, conformance, API, collections, each
  collection, its items with limit/offset, bbox, bbox-crs, crs, datetime, property filters, f,
  bad parameters; single features), each with nine Accept headers;
- accept: the listings with places and one without, with Accept asking for GeoJSON or not;
- totals: `<endpoint>/facets` and `/summary` (`.csv`, `.ndjson`) of every paginated listing
  and alias: the description's examples, hand-made questions (one also with its parameters in
  another order) and bad ones;
- conditional: a sample of listings, totals, downloads, /releases, the change report and
  revisions asked again with each server's own validators (If-None-Match, weak, `*`, wrong,
  If-Match, If-Modified-Since, If-Unmodified-Since);
- ranges: national and split downloads in byte ranges (single, suffix, open, several, past
  the end, If-Range right and wrong, HEAD);
- releases: a second pair of servers, each build loading an older release made from DATA (a
  few values revised, the last AADF row of each AADF file left off) and then DATA itself under
  `--release` names into one file: /releases, each release's API, totals, downloads, pages and
  change report, the revisions, with their own conditional and ranged requests;
- methods: HEAD, POST, DELETE and OPTIONS on a few paths of each new group;
and last, for each pair, the metric labels those requests were counted under.

What differs between two servers of the same data for no reason of theirs is left out (see
`request`): the Date header; the ETag's and Last-Modified's values (each server writes its own
file and its own downloads; an ETag is compared by whether it is there, weak, and which earlier
request of that server had the same one); the served file's tag and load time in page bodies;
the OGC items' `timeStamp` (the time of writing); the releases' ids and load times.

    bench/same_bytes.py OLD_BIN_DIR NEW_BIN_DIR DATA

Each BIN_DIR holds roadtraffic-load and roadtraffic-serve (for example target/release, or a
folder of binaries kept from an older commit). DATA may be several paths, joined by ':'.
Env: LOAD_ARGS (extra loader options for both, e.g. "--keep-first"), NEW_LOAD_ARGS (for the new
build only, e.g. "--rendered-records": the same build twice then compares two kinds of file),
SAME_FILES (split download files compared whole, 40), SAME_RELEASES=0 (skip the second pair),
SAME_LOG (a file to list every request in, with its group and the two statuses), SAME_SHOW (how
many differences to print whole, 20), SAME_WHOLE=0 (leave out the whole `.geojson` and `.parquet`
listings: gigabytes each on a full-size release).
Its files go to a temporary folder under OUT_DIR, else BENCH_DATA, else target/bench-data.
Prints how many requests of each group were answered alike; exits 1 and lists the first
differences if any.
"""
import os
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_for(port):
    for _ in range(200):
        try:
            fetch(f"http://127.0.0.1:{port}/api/regions")
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"no server on {port}")


def serve(bins, db, port):
    return subprocess.Popen(
        [bins / "roadtraffic-serve", "--db", db, "--bind", f"127.0.0.1:{port}",
         "--public-url", "http://mirror.test"],
        stderr=subprocess.DEVNULL)


def start(bins, data, work, port, extra=""):
    db = work / f"{port}.db"
    args = os.environ.get("LOAD_ARGS", "").split() + extra.split()
    subprocess.run([bins / "roadtraffic-load", "--db", db, "--quiet", *args, *data], check=True)
    server = serve(bins, db, port)
    wait_for(port)
    return server


# The names the second pair's releases are kept under: the older one made from DATA, then DATA.
OLDER, NEWER = "r1", "r2"


def start_releases(bins, older, data, work, port, extra=""):
    """A server of two kept releases: `older` loaded as OLDER, then `data` as NEWER, one file."""
    db = work / f"{port}.db"
    args = os.environ.get("LOAD_ARGS", "").split() + extra.split()
    for name, inputs in ((OLDER, older), (NEWER, data)):
        subprocess.run([bins / "roadtraffic-load", "--db", db, "--quiet", "--release", name,
                        *args, *inputs], check=True)
    server = serve(bins, db, port)
    wait_for(port)
    return server


def csv_fields(line):
    """The (start, end) of each field of a CSV line (quotes honoured), without its line end."""
    spans, start = [], 0
    if b'"' not in line:
        for cell in line.split(b","):
            spans.append((start, start + len(cell)))
            start += len(cell) + 1
        return spans
    quoted = False
    for i, c in enumerate(line):
        if c == 0x22:
            quoted = not quoted
        elif c == 0x2C and not quoted:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(line)))
    return spans


def older_release(sources, dest):
    """A release before DATA, made from it in `dest`: every 9th row's all_motor_vehicles one
    less (revisions), and the last row of each AADF file (not by direction) left off (so DATA
    adds it). Everything else byte for byte: other files hard-linked (or copied)."""
    made = []
    for n, src in enumerate(sources):
        root = dest / str(n)
        files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
        for f in files:
            target = root / (f.name if src.is_file() else f.relative_to(src))
            target.parent.mkdir(parents=True, exist_ok=True)
            if f.suffix.lower() != ".csv":
                try:
                    os.link(f, target)
                except OSError:
                    shutil.copyfile(f, target)
                continue
            with open(f, "rb") as i, open(target, "wb") as o:
                header = i.readline()
                o.write(header)
                names = header.rstrip(b"\r\n").lstrip(b"\xef\xbb\xbf")
                names = [names[a:b].strip().strip(b'"').lower() for a, b in csv_fields(names)]
                column = names.index(b"all_motor_vehicles") if b"all_motor_vehicles" in names else None
                aadf = b"estimation_method" in names and b"direction_of_travel" not in names
                held = None
                for row, line in enumerate(i):
                    if column is not None and row % 9 == 0:
                        text = line.rstrip(b"\r\n")
                        spans = csv_fields(text)
                        if len(spans) == len(names):
                            a, b = spans[column]
                            if text[a:b].isdigit() and int(text[a:b]) > 0:
                                line = text[:a] + str(int(text[a:b]) - 1).encode() + line[b:]
                    if held is not None:
                        o.write(held)
                    held = line
                if held is not None and not (aadf and row > 2):
                    o.write(held)
        made.append(root / src.name if src.is_file() else root)
    return made


def described(base):
    """The server's description, and the path its paths are under: its first server URL's (the
    host itself, whose paths start with the base path; or the base path)."""
    spec = json.loads(fetch(f"{base}/api/openapi.json")[1])
    return spec, urllib.parse.urlsplit(spec.get("servers", [{}])[0].get("url", "")).path.rstrip("/")


def targets(base):
    """Requests worth comparing, from the description of the new server: full paths."""
    spec, prefix = described(base)
    for path, item in spec["paths"].items():
        if path.endswith((".csv", ".ndjson", "openapi.json")) or "{" in path:
            continue
        # Whole listings of a full-size release are gigabytes each, in every sort: SAME_WHOLE=0
        # leaves them out (the national files, the same rows whole, are still compared).
        if os.environ.get("SAME_WHOLE", "1") == "0" and path.endswith((".geojson", ".parquet")):
            continue
        path = prefix + path
        params = {p["name"]: p for p in item["get"].get("parameters", [])}
        yield path
        yield path + "?page%5Bsize%5D=7&page%5Bnumber%5D=3"
        yield path + "?page%5Bnumber%5D=99999999"
        yield path + "?page%5Bsize%5D=0"
        sort = params.get("sort", {}).get("schema", {}).get("items", {}).get("enum", [])
        for key in [k for k in sort if k][:12]:
            yield f"{path}?sort={urllib.parse.quote(key)}&page%5Bsize%5D=5"
        fields = [f for f in params.get("fields", {}).get("schema", {}).get("items", {}).get("enum", []) if f]
        if fields:
            yield f"{path}?fields={','.join(fields[-3:])}&page%5Bsize%5D=4"
        try:
            first = json.loads(fetch(f"{base}{path}?page%5Bsize%5D=3")[1] or b"{}")
        except ValueError:  # not JSON: a Parquet listing
            first = {}
        rows = first.get("data", []) if isinstance(first, dict) else first if isinstance(first, list) else []
        for name in [n[len("filter["):-1] for n in params if n.startswith("filter[")]:
            for row in rows[:2] if isinstance(rows, list) else []:
                value = row.get(name) if isinstance(row, dict) else None
                if value is not None:
                    v = urllib.parse.quote(str(value))
                    yield f"{path}?filter%5B{name}%5D={v}&page%5Bsize%5D=6"
                    yield f"{path}?{name}={v},{v}&sort=-{name}"
        yield path + "?filter%5Bnope%5D=1&page%5Bsize%5D=abc"


# Headers that differ between two servers of the same data for no reason of theirs: the time,
# and the ETag, which carries the served file's identity (each server loads its own file); an
# ETag is kept as whether it is weak and which request first had it (`TAGS`).
VARYING = {"date", "etag"}
# Headers kept by name but not value: a stored download's Last-Modified is when that server
# wrote its own file (the national files as it started), which two servers never share.
MASKED = {"last-modified"}

# Body masks: what differs between two runs of the same build, and why.
BODY_MASKS = [
    # The map's point file is named after the served file's tag (a kept release's, longer),
    # which differs by file; hex without leading zeros, so one time in 16 a digit shorter.
    (rb"points-[0-9a-f]{1,64}\.bin", b"points-TAG.bin"),
    # The about page says when the file was loaded (and when the release before it was):
    # each server's file was loaded apart.
    (rb"<dt>Loaded at</dt><dd>[^<]*</dd>", b"<dt>Loaded at</dt><dd>T</dd>"),
    (rb"loaded \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b"loaded T"),
    # OGC items: `timeStamp` is when the response was written (and its page says so).
    (rb'"timeStamp":"[^"]*"', b'"timeStamp":"T"'),
    (rb"features \(written [^)]*\)", b"features (written T)"),
    # A release's load times (/releases, /readyz, the change report) and its id, which is
    # made at load (each server's file was loaded apart).
    (rb'"(loaded_at|serving_since)":"[^"]*"', rb'"\1":"T"'),
    (rb'"id":"[0-9a-f]{64}"', b'"id":"ID"'),
]

# Per server (scheme://host:port): each ETag value and the first request that had it.
TAGS = {}


def mask(body):
    for pattern, replacement in BODY_MASKS:
        body = re.sub(pattern, replacement, body)
    return body


def head_shift(url, headers):
    """How many bytes the masks take off the body a GET of `url` answers."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            body = r.read()
    except urllib.error.HTTPError as e:
        body = e.read()
    return len(body) - len(mask(body))


def request(url, method="GET", headers=None, label=None):
    """Status, the headers (but VARYING, MASKED values masked, in order), the ETag (whether weak,
    and which request of this server first had the same), and the body of a request. `label`
    names the request for that (by default its method, path and headers)."""
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            status, head, body = r.status, r.getheaders(), r.read()
    except urllib.error.HTTPError as e:
        status, head, body = e.code, e.headers.items(), e.read()
    masked = mask(body)
    # A masked token may be of another length than what it hides (the points file's tag is
    # hex without leading zeros): Content-Length is that of the masked body. A HEAD's body is
    # learnt from a GET of the same URL for that.
    shift = len(body) - len(masked)
    if method == "HEAD" and any(k.lower() == "content-length" for k, _ in head):
        shift = head_shift(url, headers)
    kept = [(k.lower(), "MASKED" if k.lower() in MASKED else
             str(int(v) - shift) if k.lower() == "content-length" and v.isdigit() else v)
            for k, v in head if k.lower() not in VARYING]
    body = masked
    parts = urllib.parse.urlsplit(url)
    if label is None:
        path = parts.path + ("?" + parts.query if parts.query else "")
        label = f"{method} {path} {sorted((headers or {}).items())}"
    label = re.sub(r"points-[0-9a-f]{1,64}\.bin", "points-TAG.bin", label)
    seen = TAGS.setdefault(parts.netloc, {})
    etag = [(v.startswith("W/"), seen.setdefault(v, label)) for k, v in head if k.lower() == "etag"]
    return status, sorted(kept), etag, body


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


urllib.request.install_opener(urllib.request.build_opener(NoRedirect))


def links(body, prefix):
    """The distinct href values of a page that start with prefix."""
    text = body.decode("utf-8", "replace")
    return sorted({h for h in re.findall(r'href="([^"]+)"', text) if h.startswith(prefix)})


def beyond_api(base):
    """Everything but the listings' JSON, as (method, path, headers): the site's pages, the docs,
    the description, the downloads, the operator's paths, redirects, 404s, wrong methods and
    preflights, each path once (HEAD and OPTIONS too)."""
    home = fetch(f"{base}/")[1]
    regions = fetch(f"{base}/regions")[1]
    las = fetch(f"{base}/local-authorities")[1]
    downloads = fetch(f"{base}/downloads")[1]
    pages = ["/", "/regions", "/regions/", "/local-authorities", "/about", "/about/", "/docs",
             "/docs/", "/downloads", "/downloads/"]
    pages += links(regions, "/regions/")[:6] + links(las, "/local-authorities/")[:6]
    pages += links(home, "/assets/") + links(home, "/manualcountpoints/")[:4]
    for la in links(las, "/local-authorities/")[:3]:
        pages += links(fetch(base + la)[1], "/manualcountpoints/")[:3]
    files = [f for f in links(downloads, "/downloads/") if not f.endswith(".zip")]
    pages += files[:int(os.environ.get("SAME_FILES", "40"))]
    odd = ["/regions/abc", "/regions/99999999", "/regions/1/2", "/manualcountpoints/-1", "//",
           "/assets/nope.css", "/assets", "/nope", "/nope/", "/healthz/", "/docs/index.html",
           "/api-documentation", "/api", "/api/", "/api/openapi.json", "/api/nope",
           "/api/releases/latest/changes", "/api/releases/latest/changes//",
           "/api/count-points/", "/api/count-points.csv?filter[year]=2019", "/api/regions.ndjson",
           "/downloads/nope.csv", "/downloads/../x", "/api%2Fregions", "/apix", "/legacy/api/regions"]
    for path in pages + odd + ["POINTS"]:
        yield "GET", path, {}
    yield "GET", "POINTS", {"Accept-Encoding": "gzip"}
    for path in ["/nope", "/regions/abc", "/api/nope"]:
        yield "GET", path, {"Accept": "text/html,application/xhtml+xml"}
    for path in ["/", "/regions", "/api/regions", "/api/count-points.csv", "/docs", "/downloads",
                 "/healthz", "/readyz", "/api/openapi.json", "/assets/nope.css", "/nope", "/api",
                 "/api/nope", "/docs/index.html", "/api/releases/latest/changes"] + files[:2]:
        for method in ["HEAD", "POST", "DELETE", "OPTIONS"]:
            yield method, path, {}
    yield "GET", "/readyz", {}
    yield "GET", "/healthz", {}


def compare_beyond_api(old, new, statuses=None):
    """The answers beyond the listings' JSON (their statuses counted in `statuses`)."""
    same, differ = 0, []
    points = {s: re.search(rb'data-points="([^"]+)"', urllib.request.urlopen(s + "/").read()).group(1).decode()
              for s in (old, new)}
    for method, path, headers in beyond_api(new):
        a = request(old + points[old] if path == "POINTS" else old + path, method, headers)
        b = request(new + points[new] if path == "POINTS" else new + path, method, headers)
        if path == "/readyz":  # names the file served, with its own id and times: its length too
            a = (a[0], [h for h in a[1] if h[0] != "content-length"], a[2], b"")
            b = (b[0], [h for h in b[1] if h[0] != "content-length"], b[2], b"")
        if statuses is not None:
            statuses[a[0]] = statuses.get(a[0], 0) + 1
        if a == b:
            same += 1
        else:
            differ.append((method, path, str(headers), *where(a, b)))
    return same, differ


def compare_labels(old, new):
    """Which (endpoint, status) pairs were counted: the same requests went to both servers, but
    for the few that chose them (asked of the new one only), so the counts are not compared."""
    labels = [sorted({l.rsplit(" ", 1)[0] for l in request(s + "/metrics")[3].decode().splitlines()
                      if l.startswith("roadtraffic_http_requests_total{")}) for s in (old, new)]
    if labels[0] == labels[1]:
        return 1, []
    return 0, [("metrics", "labels", "", "", str(sorted(set(labels[0]) - set(labels[1]))),
                str(sorted(set(labels[1]) - set(labels[0]))), b"", b"")]


# SAME_LOG=FILE: every request of the groups written there (group, method, path, headers,
# the two statuses), to see what was asked.
LOG = open(os.environ["SAME_LOG"], "w") if os.environ.get("SAME_LOG") else None


class Pair:
    """Two servers asked the same requests, one after the other, tallied by group."""

    def __init__(self, old, new):
        self.old, self.new = old, new
        self.tally = {}  # group: [alike, differently]
        self.statuses = {}  # group: {the old server's status: how many}
        self.differ = []
        self.kinds = []  # (group, how it differs) of each request answered differently
        self.learnt = {}  # (server, path): its ETag and Last-Modified, from a GET of its own

    def count(self, group, alike, differ=()):
        t = self.tally.setdefault(group, [0, 0])
        t[0] += alike
        t[1] += len(differ)
        self.differ += [(group, *d) for d in differ]

    def learn(self, server, path):
        """What `server` answers a GET of `path` with: its validators, for the next requests."""
        key = (server, path)
        if key not in self.learnt:
            req = urllib.request.Request(server + path)
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    head = r.headers
            except urllib.error.HTTPError as e:
                head = e.headers
            etag = head.get("ETag") or ""
            self.learnt[key] = {"etag": etag, "opaque": etag[2:] if etag.startswith("W/") else etag,
                                "lm": head.get("Last-Modified") or ""}
        return self.learnt[key]

    def ask(self, group, method, path, headers=None, learn=None):
        """One request of both servers. Header values may name what each server answered a
        GET of `learn` with ({etag}, {opaque}: without W/, {lm}: its Last-Modified): each
        server is then sent its own."""
        headers = headers or {}
        answers = []
        for server in (self.old, self.new):
            sent = headers
            if learn is not None:
                known = self.learn(server, learn)
                sent = {k: v.format(**known) for k, v in headers.items()}
            label = f"{method} {path} {sorted(headers.items())}"
            answers.append(request(server + path, method, sent, label))
        a, b = answers
        seen = self.statuses.setdefault(group, {})
        seen[a[0]] = seen.get(a[0], 0) + 1
        if LOG:
            print(group, method, path, json.dumps(headers), a[0], b[0], sep="\t", file=LOG)
        if a == b:
            self.count(group, 1)
        else:
            self.count(group, 0, [(method, path, str(headers)[:200], *where(a, b))])
            self.kinds.append((group, tuple(kinds(a, b))))


def kinds(a, b):
    """How two answers differ, in a few words each (`status 200 412`, `+vary: Accept`,
    `-content-type: ...`, `body`): what the summary tallies across every difference."""
    out = [f"status {a[0]} {b[0]}"] if a[0] != b[0] else []
    old, new = dict(a[1]), dict(b[1])
    for name in sorted(set(old) | set(new)):
        if name == "content-length" or old.get(name) == new.get(name):
            continue
        out += [f"-{name}: {old[name]}"[:80]] if name in old else []
        out += [f"+{name}: {new[name]}"[:80]] if name in new else []
    if a[2] != b[2]:
        out.append(f"etag {a[2]} {b[2]}")
    if a[3] != b[3]:
        out.append("body")
    return out


def where(a, b):
    """What differs between two answers: statuses, headers either has alone, and the bodies
    from a little before their first difference."""
    out = [f"status {a[0]} {b[0]}"] if a[0] != b[0] else []
    for name, x, y in (("headers", a[1], b[1]), ("etag", a[2], b[2])):
        if x != y:
            out += [f"{name} old only: {sorted(set(map(str, x)) - set(map(str, y)))}"[:400],
                    f"{name} new only: {sorted(set(map(str, y)) - set(map(str, x)))}"[:400]]
    if a[3] != b[3]:
        i = next((i for i, (x, y) in enumerate(zip(a[3], b[3])) if x != y), min(len(a[3]), len(b[3])))
        out += [f"body ({len(a[3])} and {len(b[3])} bytes) from byte {max(0, i - 60)}:",
                a[3][max(0, i - 60):i + 140], b[3][max(0, i - 60):i + 140]]
    return out


# OGC: the Accept headers each resource is asked with (None: no Accept header).
OGC_ACCEPTS = [
    None, "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "application/json", "application/geo+json", "text/html;q=0, application/json",
    "application/json;q=0, text/html", "text/html", "application/json, text/html",
]
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
BNG = "http://www.opengis.net/def/crs/EPSG/0/27700"


def q(**params):
    """A query string, its values percent-encoded (but commas); `bbox_crs` is `bbox-crs`."""
    name = {"bbox_crs": "bbox-crs"}
    return "?" + "&".join(f"{name.get(k, k)}={urllib.parse.quote(str(v), safe=',')}"
                          for k, v in params.items())


def ogc_requests(base):
    """(path, with the Accept variants?) of OGC API - Features, from the new server's own
    collections and their first features."""
    docs = ["/ogcapi", "/ogcapi/", "/ogcapi/conformance", "/ogcapi/api", "/ogcapi/collections",
            "/ogcapi/collections/", "/ogcapi?f=json", "/ogcapi?f=html", "/ogcapi?f=HTML",
            "/ogcapi?f=xml", "/ogcapi?f=", "/ogcapi?x=1", "/ogcapi?f%5Bx%5D=1",
            "/ogcapi/conformance?f=html", "/ogcapi/api?f=html", "/ogcapi/api?f=json",
            "/ogcapi/collections?f=html", "/ogcapi/collections?f=json&x=1",
            "/ogcapi/collections/nope", "/ogcapi/collections/nope/items",
            "/ogcapi/collections/nope/items/1", "/ogcapi/collections/nope/items/1/2",
            "/ogcapi/collections/regions", "/ogcapi/collections/regions/items",
            "/ogcapi/nope", "/ogcapi//", "/ogcapix"]
    out = [(p, True) for p in docs]
    collections = json.loads(fetch(f"{base}/ogcapi/collections?f=json")[1])["collections"]
    spec, _ = described(base)
    for c in [c["id"] for c in collections]:
        col = f"/ogcapi/collections/{c}"
        items = col + "/items"
        listing = next((i for p, i in spec["paths"].items() if p.endswith("/" + c)), {})
        filters = [p["name"][len("filter["):-1] for p in listing.get("get", {}).get("parameters", [])
                   if p["name"].startswith("filter[") and p["name"] not in ("filter[bbox]", "filter[near]")]
        first = json.loads(fetch(f"{base}{items}?limit=2")[1])["features"]
        paths = [col, col + "/", col + "?f=html", col + "/queryables", items, items + "/",
                 items + q(limit=3), items + q(limit=2, offset=3), items + q(offset=99999999),
                 items + q(limit=0), items + q(limit="abc"), items + q(offset=-1),
                 items + q(limit=3, f="json"), items + q(limit=3, f="html"),
                 items + q(limit=3, f="geojson"), items + q(f="csv"),
                 items + q(limit=2, crs=BNG), items + q(limit=2, crs="EPSG:4326"),
                 items + q(nope=1), items + "?filter%5Byear%5D=2020",
                 items + q(bbox="1,2,3"), items + q(bbox="-3,51,-2,52,0,10"),
                 items + q(bbox="-2,52,-3,51"), items + q(datetime="../.."),
                 items + q(datetime="2020-13-01"), items + q(datetime="2024-01-01/2019-01-01"),
                 items + q(datetime="2019-05-14"), items + q(datetime="2019-01-01T00:00:00Z/.."),
                 items + q(datetime="../2020-12-31T23:59:59Z", limit=4),
                 items + q(datetime="2019-01-01T00:30:00+01:00/2021-01-01", limit=4),
                 items + "/999999999", items + "/abc", items + "/-1", items + "/1.5"]
        if first:
            f = first[0]
            lon, lat = f["geometry"]["coordinates"] if f.get("geometry") else (-1.5, 52.5)
            props = f["properties"]
            box = f"{lon - 0.3:.4f},{lat - 0.2:.4f},{lon + 0.3:.4f},{lat + 0.2:.4f}"
            paths += [items + q(bbox=box), items + q(bbox=box, limit=2, offset=1),
                      items + q(bbox=box, crs=BNG, limit=3)]
            if props.get("easting") is not None and props.get("northing") is not None:
                e, n = int(props["easting"]), int(props["northing"])
                grid = f"{e - 20000},{n - 20000},{e + 20000},{n + 20000}"
                paths += [items + q(bbox=grid, bbox_crs=BNG), items + q(bbox=grid, bbox_crs=CRS84),
                          items + q(bbox=grid, bbox_crs=BNG, crs=BNG, limit=2)]
            given = [(n, props[n]) for n in filters if props.get(n) is not None]
            for name, v in given:
                paths.append(items + q(**{name: v, "limit": 3}))
            if len(given) > 2:
                (n1, v1), (n2, v2) = given[1], given[2]
                paths += [items + q(**{n1: f"{v1},{v1}", n2: v2, "bbox": box}),
                          items + q(**{n2: v2, "bbox": box, n1: f"{v1},{v1}"}),
                          items + q(**{n1: "", "limit": 1})]
            year = props.get("year") or props.get("aadf_year")
            if year:
                paths += [items + q(datetime=f"{year}-06-01T12:00:00Z", limit=3),
                          items + q(datetime=f"{year}-01-01/..", limit=3)]
            if props.get("count_date"):
                paths.append(items + q(datetime=f"{props['count_date']}T{int(props.get('hour') or 0):02d}:30:00Z"))
            for g in first:
                paths += [f"{items}/{g['id']}", f"{items}/{g['id']}/", f"{items}/{g['id']}" + q(crs=BNG),
                          f"{items}/{g['id']}" + q(f="html"), f"{items}/{g['id']}" + q(f="json"),
                          f"{items}/{g['id']}" + q(limit=1)]
        out += [(p, True) for p in paths]
        # Big windows: once, without the Accept variants.
        out += [(items + q(limit=100000), False), (items + q(limit=500, f="html"), False)]
    return out


def compare_ogc(pair):
    for path, variants in ogc_requests(pair.new):
        for accept in OGC_ACCEPTS if variants else [None]:
            pair.ask("ogc", "GET", path, {"Accept": accept} if accept else {})


PLACES = ["count-points", "average-annual-daily-flow", "average-annual-daily-flow-by-direction",
          "raw-counts"]
LISTING_ACCEPTS = [None, "application/geo+json", "application/json, application/geo+json",
                   "application/geo+json;q=0", "*/*", "application/json",
                   "application/geo+json;q=0.5, application/json", "APPLICATION/GEO+JSON",
                   "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]


def compare_accept(pair, prefix="", group="accept"):
    """The listings with places and one without (at `prefix`: a kept release's), with Accept
    asking for GeoJSON or not; and the legacy envelope and whole forms, which take no Accept."""
    for e in PLACES + ["regions"]:
        for query in ["", "?page%5Bsize%5D=3&page%5Bnumber%5D=2", "?page%5Bsize%5D=2&sort=-id&fields=id",
                      "?page%5Bnumber%5D=99999999", "?page%5Bsize%5D=abc"]:
            for accept in LISTING_ACCEPTS:
                pair.ask(group, "GET", f"{prefix}/api/{e}{query}", {"Accept": accept} if accept else {})
    for e in PLACES[:1]:
        for accept in LISTING_ACCEPTS[:3]:
            headers = {"Accept": accept} if accept else {}
            pair.ask(group, "GET", f"{prefix}/legacy/api/{e}?page%5Bsize%5D=2", headers)
            pair.ask(group, "GET", f"{prefix}/api/{e}.geojson", headers)
            pair.ask(group, "GET", f"{prefix}/api/{e}.csv", headers)


def enum(params, name):
    return [v for v in params.get(name, {}).get("schema", {}).get("items", {}).get("enum", []) if v]


def totals_requests(base):
    """Facets and summaries of every paginated listing: the description's examples, hand-made
    questions (one also with its parameters in another order), bad ones."""
    spec, prefix = described(base)
    text = json.dumps(spec)
    # Every example URL the description gives of a facet or summary.
    out = sorted({u for u in re.findall(r"`(/[^`\s]*/(?:facets|summary)[^`\s]*)`", text)})
    for path, item in spec["paths"].items():
        if not path.endswith("/facets"):
            continue
        facets = prefix + path
        listing = facets[:-len("/facets")]
        summary = listing + "/summary"
        fp = {p["name"]: p for p in item["get"].get("parameters", [])}
        sp = {p["name"]: p for p in spec["paths"][path[:-len("/facets")] + "/summary"]["get"]["parameters"]}
        columns, measures = enum(fp, "facet"), enum(sp, "sum")
        if not columns:
            continue
        a, b = columns[0], columns[-1]
        ex = fp.get("facet", {}).get("example", [a])[0]
        m = (sp.get("sum", {}).get("example") or measures[:1] or ["all_motor_vehicles"])[0]
        m2 = measures[1] if len(measures) > 1 else m
        first = json.loads(fetch(f"{base}{listing}?page%5Bsize%5D=2")[1] or b"{}").get("data", [])
        row = first[0] if first else {}
        filters = [n[len("filter["):-1] for n in fp if n.startswith("filter[")]
        given = [(n, row[n]) for n in filters if n in row and row[n] is not None and n != "id"][:3]
        flt = "&".join(f"filter%5B{n}%5D={urllib.parse.quote(str(v))}" for n, v in given[:2])
        bare = "&".join(f"{n}={urllib.parse.quote(str(v))}" for n, v in given[:1])
        out += [f"{facets}?facet={ex}",
                f"{facets}?facet={','.join(columns)}&facet_size=3",
                f"{facets}?facet={a}&facet={b}", f"{facets}?facet={b}&facet={a}",
                f"{facets}?facet%5B%5D={a}&facet%5B%5D={b}",
                f"{facets}?facet={a}&facet_size=1000", f"{facets}?facet={a}&facet_size=1",
                f"{facets}/?facet={a}",
                f"{facets}?facet={ex}&{flt}", f"{facets}?{flt}&facet={ex}",
                f"{facets}?facet={ex}&{bare}", f"{facets}?facet={ex}&count_method=estimated",
                f"{facets}?facet={ex}&page%5Bsize%5D=2&sort=-id",
                # bad ones
                f"{facets}", f"{facets}?facet=", f"{facets}?facet=nope", f"{facets}?facet=id",
                f"{facets}?facet={a}&facet_size=0", f"{facets}?facet={a}&facet_size=1001",
                f"{facets}?facet={a}&facet_size=abc", f"{facets}?facet={a}&facet_size=2&facet_size=3",
                f"{facets}?facet={a}&filter%5Byear%5D=abc", f"{facets}?facet%5Bx%5D={a}"]
        group5 = ",".join(columns[:5])
        group6 = ",".join(columns[:6])
        for suffix in ["", ".csv", ".ndjson"]:
            s = summary + suffix
            out += [f"{s}?group_by={ex}&sum={m}", f"{s}", f"{s}?sum={m}&avg={m}&min={m}&max={m}",
                    f"{s}?group_by={a},{b}&sum={m}&avg={m},{m2}&min={m}&max={m2}&sort=-count&limit=5",
                    f"{s}?limit=5&sort=-count&max={m2}&min={m}&avg={m},{m2}&sum={m}&group_by={a},{b}",
                    f"{s}?group_by={ex}&{flt}&avg={m}", f"{s}?sum=nope", f"{s}?group_by={group6}"]
        out += [f"{summary}?group_by={a}&group_by={b}&sum={m}", f"{summary}?group_by={b},{a}&sum={m}",
                f"{summary}?group_by={b}&sum={m}&sort=-sum_{m}", f"{summary}?group_by={b}&sum={m}&sort=sum_{m},-{b}",
                f"{summary}?group_by={group5}&sum={','.join(measures)}&limit=3",
                f"{summary}?group_by={group5}&avg={','.join(measures)}&limit=3&sort=-avg_{m}",
                f"{summary}?group_by={ex}&sum={m}&{bare}", f"{summary}?group_by={ex}&count_method=counted",
                f"{summary}/?group_by={ex}", f"{summary}?group_by={ex}&limit=10000",
                f"{summary}?group_by={','.join(columns[:4])}",
                # bad ones
                f"{summary}?group_by=", f"{summary}?group_by=nope", f"{summary}?sum=", f"{summary}?sum={ex}",
                f"{summary}?avg=id", f"{summary}?group_by={ex}&sort=nope", f"{summary}?group_by={ex}&sort=-avg_{m}",
                f"{summary}?group_by={ex}&limit=0", f"{summary}?group_by={ex}&limit=10001",
                f"{summary}?group_by={ex}&limit=abc", f"{summary}?group_by={ex}&limit=1&limit=2",
                f"{summary}?group_by={ex}&sum={m}&filter%5Bid%5D=x", f"{summary}.parquet?group_by={ex}",
                f"{summary}x?group_by={ex}"]
        if listing.rsplit("/", 1)[-1] in PLACES:
            lon, lat = float(row.get("longitude") or -1.5), float(row.get("latitude") or 52.5)
            box = f"{lon - 0.5:.3f},{lat - 0.5:.3f},{lon + 0.5:.3f},{lat + 0.5:.3f}"
            out += [f"{facets}?facet={ex}&filter%5Bbbox%5D={box}",
                    f"{summary}?group_by={ex}&sum={m}&filter%5Bnear%5D={lon:.4f},{lat:.4f},20000",
                    f"{summary}.csv?filter%5Bbbox%5D={box}&group_by={ex}",
                    f"{facets}?facet={ex}&filter%5Bbbox%5D=1,2", f"{summary}?filter%5Bnear%5D=0,0,999999999"]
    return out


def compare_totals(pair):
    """The totals' questions, asked; returned, for the kept releases."""
    questions = totals_requests(pair.new)
    for path in questions:
        pair.ask("totals", "GET", path)
    return questions


WRONG = '"not-its-tag"'
OLD_DATE = "Sat, 01 Jan 2000 00:00:00 GMT"
# Conditional requests: headers, each server sent its own validators of the path.
CONDITIONS = [
    {}, {"If-None-Match": "{etag}"}, {"If-None-Match": "W/{opaque}"}, {"If-None-Match": "*"},
    {"If-None-Match": WRONG}, {"If-None-Match": WRONG + ", {etag}"}, {"If-None-Match": "{opaque}"},
    {"If-Match": "{etag}"}, {"If-Match": WRONG}, {"If-Match": "*"}, {"If-Match": "W/{opaque}"},
    {"If-None-Match": "{etag}", "Accept-Encoding": "gzip"},
    {"If-None-Match": "{etag}", "If-Match": WRONG},
]
DATED = [
    {"If-Modified-Since": "{lm}"}, {"If-Modified-Since": OLD_DATE}, {"If-Modified-Since": "yesterday"},
    {"If-Unmodified-Since": "{lm}"}, {"If-Unmodified-Since": OLD_DATE},
    {"If-None-Match": WRONG, "If-Modified-Since": "{lm}"},
    {"If-Match": "{etag}", "If-Unmodified-Since": OLD_DATE},
]


def compare_conditional(pair, paths, group="conditional"):
    for path in paths:
        for headers in CONDITIONS + (DATED if "/downloads/" in path else []):
            pair.ask(group, "GET", path, headers, learn=path)
        pair.ask(group, "HEAD", path, {"If-None-Match": "{etag}"}, learn=path)
        pair.ask(group, "HEAD", path, {"If-None-Match": WRONG}, learn=path)


RANGES = [
    {"Range": "bytes=0-99"}, {"Range": "bytes=-100"}, {"Range": "bytes=100-"},
    {"Range": "bytes=0-9,100-199"}, {"Range": "bytes=0-9,5-20,21-30"}, {"Range": "bytes=50-59,0-9"},
    {"Range": "bytes=" + ",".join(f"{i * 3}-{i * 3}" for i in range(65))},
    {"Range": "bytes=999999999-"}, {"Range": "bytes=999999999-999999999,999999998-"},
    {"Range": "bytes=abc"}, {"Range": "items=0-9"}, {"Range": "bytes=0-0"},
    {"Range": "bytes=0-99", "If-Range": "{etag}"}, {"Range": "bytes=0-99", "If-Range": WRONG},
    {"Range": "bytes=0-99", "If-Range": "W/{opaque}"}, {"Range": "bytes=0-99", "If-Range": "{lm}"},
    {"Range": "bytes=0-99", "If-Range": OLD_DATE},
    {"Range": "bytes=0-9,100-199", "If-Range": "{etag}"},
    {"Range": "bytes=0-99", "If-None-Match": "{etag}"}, {"Range": "bytes=0-99", "If-Match": WRONG},
    {"Range": "bytes=0-99", "Accept-Encoding": "gzip, br"},
]


def compare_ranges(pair, paths, group="ranges"):
    for path in paths:
        for headers in RANGES:
            pair.ask(group, "GET", path, headers, learn=path)
        pair.ask(group, "HEAD", path)
        pair.ask(group, "HEAD", path, {"Range": "bytes=0-99"})


def download_paths(base, prefix=""):
    """National Parquet and CSV files of AADF and raw counts, count points' zip, and a split
    file of each kind (CSV, Parquet) and a missing one."""
    page = fetch(f"{base}{prefix}/downloads")[1]
    # A kept release's page links to its own files, under its prefix.
    found = [f[len(prefix):] for f in links(page, prefix + "/downloads/")]
    national = [f for f in found if f.count("/") == 2]
    split = [f for f in found if f.count("/") == 4]
    pick = [f for f in national if re.search(r"(aadf|raw_counts)\.(parquet|csv)$", f)]
    pick += [f for f in national if f.endswith("count_points.zip")]
    pick += split[:1] + [s.replace(".csv", ".parquet") for s in split[:1]]
    pick += [f for f in split if "/rawcount/" in f][:1] + ["/downloads/aadf/local_authority_id/dft_aadf_local_authority_id_999999.csv"]
    return [prefix + f for f in pick]


def compare_methods(pair, paths, group="methods"):
    for path in paths:
        for method in ["HEAD", "POST", "DELETE", "OPTIONS"]:
            pair.ask(group, method, path)
        pair.ask(group, "OPTIONS", path, {"Origin": "http://example.org",
                                          "Access-Control-Request-Method": "GET"})


def compare_new_groups(pair):
    """The groups beyond the first script's, on the pair of plain loads; returns the totals'
    questions."""
    compare_ogc(pair)
    compare_accept(pair)
    questions = compare_totals(pair)
    files = download_paths(pair.new)
    compare_ranges(pair, files)
    compare_conditional(pair, [
        "/api/count-points?page%5Bsize%5D=3", "/api/regions", "/api/raw-counts?page%5Bsize%5D=2&sort=-hour",
        "/api/count-points.csv", "/api/raw-counts.ndjson?filter%5Byear%5D=2019",
        "/api/raw-counts/facets?facet=year", "/api/raw-counts/summary.csv?group_by=year&sum=all_motor_vehicles",
        "/api/average-annual-daily-flow/summary?group_by=road_category&avg=all_motor_vehicles",
        "/api/count-points/revisions?page%5Bsize%5D=2", "/releases", "/api/releases/latest/changes",
        "/api/openapi.json", "/", "/about", "/ogcapi/collections", "/ogcapi/collections/count-points/items?limit=2",
        "/legacy/api/regions"] + files)
    compare_methods(pair, [
        "/ogcapi", "/ogcapi/collections/count-points/items", "/ogcapi/collections/count-points/items/1",
        "/ogcapi/nope", "/api/raw-counts/facets?facet=year", "/api/raw-counts/summary.csv",
        "/api/count-points/revisions", "/releases", "/releases/latest/changes"] + files[:2])
    return questions


def compare_releases(pair, questions):
    """The second pair: two kept releases, each build's own file; a share of the totals'
    `questions` (made of the first pair's rows: what chose them was asked of one server)."""
    new = pair.new

    def look(path):
        """The new server's body, the old one asked too (the metric labels stay alike)."""
        return [fetch(s + path)[1] for s in (pair.old, pair.new)][1]

    listing = json.loads(look("/releases"))
    names = [r["name"] for r in listing] or [OLDER, NEWER]
    paths = ["/releases", "/releases/", "/releases/latest", "/releases/latest/", "/releases/nope/api/regions",
             "/releases/r%201/api/regions", "/releases/../api/regions", "/api/releases/latest/changes",
             "/api/releases/latest/changes?since=" + names[0], "/api/releases/latest/changes?since=nope",
             "/releases/latest/changes", "/readyz", "/releases/latest/api/regions"]
    for name in names + ["latest"]:
        r = f"/releases/{name}"
        paths += [r, r + "/", r + "/api", r + "/api/", r + "/api/openapi.json", r + "/api/regions",
                  r + "/api/count-points?page%5Bsize%5D=3", r + "/api/average-annual-daily-flow?page%5Bsize%5D=5&sort=-all_motor_vehicles",
                  r + "/api/raw-counts.csv?filter%5Byear%5D=2019", r + "/api/count-points.ndjson", r + "/api/count-points.geojson",
                  r + "/api/average-annual-daily-flow.parquet", r + "/api/traffic/local-authorities?page%5Bsize%5D=2",
                  r + "/legacy/api/regions", r + "/legacy/api/count-points?page%5Bsize%5D=2",
                  r + "/api/raw-counts/facets?facet=year&facet=road_category",
                  r + "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles",
                  r + "/api/average-annual-daily-flow/summary.csv?group_by=road_category&avg=all_motor_vehicles&sort=-avg_all_motor_vehicles",
                  r + "/api/count-points/revisions?page%5Bsize%5D=2", r + "/api/nope", r + "/changes",
                  r + "/changes/", r + "/changes?since=" + names[0], r + "/changes?since=nope",
                  r + "/changes?since%5Bx%5D=1", r + "/docs", r + "/downloads", r + "/regions", r + "/about",
                  r + "/explore", r + "/nope", r + "/ogcapi", r + "/healthz", r + "/assets/nope.css"]
    # The revisions: every endpoint that has them, plain, paged, filtered by revised keys.
    spec, prefix = described(new)
    fetch(pair.old + "/api/openapi.json")
    report = json.loads(look(f"/releases/{names[-1]}/changes") or b"{}")
    # The first revised keys of each table, for the endpoints whose filters name them all.
    keys = [r["key"] for t in report.get("tables", []) for r in t.get("largest_revisions", [])[:3]]
    for path, item in [(prefix + p, i) for p, i in spec["paths"].items() if p.endswith("/revisions")]:
        paths += [path, path + "/", path + "?page%5Bsize%5D=2&page%5Bnumber%5D=2", path + "?page%5Bsize%5D=abc",
                  path + "?page%5Bsize%5D=1&page%5Bsize%5D=2", path + "?page%5Bnumber%5D=99999",
                  path + "?fields=id", path + "?sort=-id&page%5Bsize%5D=3", path + "?filter%5Bnope%5D=1"]
        filters = {p["name"] for p in item["get"].get("parameters", [])}
        for key in [k for k in keys if all(f"filter[{c}]" in filters for c in k)]:
            flt = "&".join(f"filter%5B{k}%5D={urllib.parse.quote(str(v))}" for k, v in key.items())
            paths += [f"{path}?{flt}", f"{path}?{flt}&fields=id,all_motor_vehicles"]
        paths.append(f"/releases/{names[0]}{path}?page%5Bsize%5D=2")
    for path in paths:
        pair.ask("releases", "GET", path)
    # Each release's map data, at the path its own home page names on each server.
    for name in names:
        answers = []
        for server in (pair.old, pair.new):
            home = fetch(f"{server}/releases/{name}/")[1]
            points = re.search(rb'data-points="([^"]+)"', home).group(1).decode()
            answers.append(request(server + points, label=f"GET POINTS {name}"))
        if answers[0] == answers[1]:
            pair.count("releases", 1)
        else:
            pair.count("releases", 0, [("GET", f"POINTS of {name}", "", *where(*answers))])
    download_paths(pair.old, f"/releases/{names[0]}")
    download_paths(pair.old)
    files = download_paths(new, f"/releases/{names[0]}") + download_paths(new)[:2]
    for path in files:
        pair.ask("releases", "GET", path)
    compare_ranges(pair, files[:3], "releases")
    compare_conditional(pair, [
        "/releases", f"/releases/{names[0]}/api/regions", f"/releases/{names[-1]}/changes",
        f"/releases/{names[-1]}/changes?since={names[0]}", "/api/releases/latest/changes",
        "/api/raw-counts/revisions?page%5Bsize%5D=2", "/api/average-annual-daily-flow/revisions",
        f"/releases/{names[0]}/api/raw-counts/summary?group_by=year&sum=all_motor_vehicles",
        f"/releases/{names[0]}/api/raw-counts/facets?facet=year",
        f"/releases/{names[0]}/api/count-points.csv"] + files[:3], "releases")
    compare_methods(pair, ["/releases", f"/releases/{names[0]}/changes", f"/releases/{names[0]}/api/regions",
                           "/api/raw-counts/revisions", files[0]], "releases")
    compare_accept(pair, f"/releases/{names[0]}", "releases")
    # A share of the totals' questions, of the older release.
    for path in questions[::4]:
        pair.ask("releases", "GET", f"/releases/{names[0]}{path}")


def main():
    old, new = (Path(a).resolve() for a in sys.argv[1:3])
    data = [Path(p).resolve() for p in sys.argv[3].split(":")]
    default = Path(__file__).resolve().parent.parent / "target" / "bench-data"
    out_dir = os.environ.get("OUT_DIR") or os.environ.get("BENCH_DATA") or default
    os.makedirs(out_dir, exist_ok=True)
    began = time.monotonic()
    new_args = os.environ.get("NEW_LOAD_ARGS", "")
    with tempfile.TemporaryDirectory(dir=out_dir) as work:
        work = Path(work)
        # A second apart: what a build writes with the time (load times, files' dates) then
        # differs between the two servers on every run, not only on some, and must be masked.
        servers = [start(old, data, work, 18301)]
        time.sleep(1.1)
        servers.append(start(new, data, work, 18302, new_args))
        try:
            first = Pair("http://127.0.0.1:18301", "http://127.0.0.1:18302")
            for t in sorted(set(targets(first.new))):
                first.ask("listings", "GET", t)
            same, differ = compare_beyond_api(first.old, first.new,
                                              first.statuses.setdefault("beyond the listings", {}))
            first.count("beyond the listings", same, differ)
            questions = compare_new_groups(first)
            first.count("metric labels", *compare_labels(first.old, first.new))
            pairs = [first]
            if os.environ.get("SAME_RELEASES", "1") != "0":
                older = older_release(data, work / "older")
                servers.append(start_releases(old, older, data, work, 18303))
                time.sleep(1.1)
                servers.append(start_releases(new, older, data, work, 18304, new_args))
                second = Pair("http://127.0.0.1:18303", "http://127.0.0.1:18304")
                compare_releases(second, questions)
                second.count("metric labels (releases)", *compare_labels(second.old, second.new))
                pairs.append(second)
        finally:
            for s in servers:
                s.terminate()
            for s in servers:
                s.wait()
    # Each group's count, and the statuses its requests got (of the old server): a group
    # answered all 404s, say, would compare little.
    tally, statuses = {}, {}
    for p in pairs:
        for group, (a, d) in p.tally.items():
            t = tally.setdefault(group, [0, 0])
            t[0], t[1] = t[0] + a, t[1] + d
            for status, n in p.statuses.get(group, {}).items():
                statuses.setdefault(group, {})[status] = statuses.get(group, {}).get(status, 0) + n
    differ = [d for p in pairs for d in p.differ]
    for group, (a, d) in tally.items():
        shown = " ".join(f"{k}:{v}" for k, v in sorted(statuses.get(group, {}).items()))
        print(f"  {group:26} {a:5} alike {d:4} differently  {shown}")
    same = sum(a for a, _ in tally.values())
    print(f"{same} requests answered byte for byte alike, {len(differ)} differently "
          f"({time.monotonic() - began:.0f} s)")
    # How they differ, tallied: a change that means to alter one thing shows it alone.
    kinds = {}
    for group, kind in (k for p in pairs for k in p.kinds):
        kinds[(group, kind)] = kinds.get((group, kind), 0) + 1
    for (group, kind), n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:5} {group}: {'; '.join(kind)}")
    for d in differ[:int(os.environ.get("SAME_SHOW", "20"))]:
        print(*d, sep="\n  ")
    sys.exit(1 if differ else 0)


main()
