#!/usr/bin/env python3
"""How long a page of the site takes to be drawn in headless Chromium: from navigation start to
the load event, and to the map painted (the `map-painted` performance mark that assets/site.js
sets after its first draw). Each round is a fresh browser profile (nothing cached).

    bench/site_paint.py URL [ROUNDS]     prints: load_ms painted_ms (medians), then each round

Needs Debian's `chromium` and the `websocket-client` package (bench/setup.sh installs both).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

PAINTED = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = performance.getEntriesByName('map-painted')[0];
  return nav && nav.loadEventEnd > 0 && mark
    ? JSON.stringify([nav.loadEventEnd, mark.startTime]) : '';
})()"""


def devtools_port(profile, process):
    """The port Chromium chose (it writes it to DevToolsActivePort in its profile)."""
    path = os.path.join(profile, "DevToolsActivePort")
    for _ in range(200):
        if process.poll() is not None:
            sys.exit("chromium exited early")
        if os.path.exists(path):
            with open(path) as f:
                first = f.readline().strip()
                if first:
                    return int(first)
        time.sleep(0.05)
    sys.exit("chromium did not open its DevTools port")


def one_round(url):
    profile = tempfile.mkdtemp(prefix="site-paint-")
    process = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-port=0", f"--user-data-dir={profile}",
         "--window-size=1280,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port = devtools_port(profile, process)
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        calls = iter(range(1, 1_000_000))

        def call(method, **params):
            n = next(calls)
            ws.send(json.dumps({"id": n, "method": method, "params": params}))
            while True:
                message = json.loads(ws.recv())
                if message.get("id") == n:
                    return message.get("result", {})

        call("Page.navigate", url=url)
        deadline = time.time() + 30
        while time.time() < deadline:
            value = call("Runtime.evaluate", expression=PAINTED, returnByValue=True)
            found = value.get("result", {}).get("value")
            if found:
                ws.close()
                return json.loads(found)
            time.sleep(0.02)
        sys.exit(f"{url}: the map was not painted within 30 s")
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    url, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    results = [one_round(url) for _ in range(rounds)]
    load = statistics.median(r[0] for r in results)
    painted = statistics.median(r[1] for r in results)
    print(f"{load:.0f} {painted:.0f}")
    for r in results:
        print(f"# round: load {r[0]:.0f} ms, map painted {r[1]:.0f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
