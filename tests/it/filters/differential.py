#!/usr/bin/env python3
"""The server's CQL2 filters (issue 34) checked against an independent evaluation.

For one dataset of a running server: every record, unfiltered (`{path}.ndjson`); seeded random
expressions written in cql2-json (generate.py), turned into cql2-text by the `cql2` package
(PyPI), evaluated here over those records (evaluate.py: the issue's semantics, shapely for the
spatial relations), and asked of the server in both encodings: the ids it answers must be the
ids evaluated, in each. Where pygeofilter (PyPI) is sound (see `pygeofilter_opinion`) it reads
the cql2-text as a second opinion. Then a few hand-written cases whose answers are known.

A mismatch is reported with its expression, shrunk to the smallest part that still disagrees;
the exit status is 1 if there was any.

    differential.py --base http://127.0.0.1:8080 --path /raw-counts --seed 1 --count 40 \
        [--kinds '{"year": "number", ...}'] [--hand]

`--kinds` types each property (number, text, date, geometry); without it they are guessed
from the records (the Rust test passes the catalogue's).
"""

import argparse
import json
import random
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import cql2

from evaluate import CRS84, DATE, GEOMETRY, NUMBER, TEXT, Invalid, Records, evaluate
from evaluate import is_date
from generate import Generator
from hand import hand_cases
from opinion import pygeofilter_opinion

# Decimals the public API writes as strings (numbers in CQL2), for guessing kinds.
DECIMAL_TEXT = {"latitude", "longitude", "link_length_km", "link_length_miles"}


def fetch(url):
    """(status, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def listing(base, path, params):
    return f"{base}/api{path}.ndjson?{urllib.parse.urlencode(params)}"


def all_records(base, path):
    status, body = fetch(listing(base, path, {}))
    if status != 200:
        sys.exit(f"{path}: the unfiltered records answered {status}: {body[:300]!r}")
    return [json.loads(line) for line in body.splitlines() if line.strip()]


def guess_kinds(base, path, rows):
    """Each property's kind from its values; one the records never give a value is asked of
    the server (a number compares with 0, text does not)."""
    kinds = {}
    for name in rows[0] if rows else []:
        values = [r[name] for r in rows if r.get(name) not in (None, "")]
        if not values:
            answer = Server(base, path).ids(f"{name} = 0", "cql2-text", CRS84)
            kinds[name] = TEXT if isinstance(answer, tuple) else NUMBER
        elif name in DECIMAL_TEXT or all(isinstance(v, (int, float)) for v in values):
            kinds[name] = NUMBER
        elif all(is_date(v) for v in values):
            kinds[name] = DATE
        else:
            kinds[name] = TEXT
    if "latitude" in kinds and "longitude" in kinds:
        kinds["geometry"] = GEOMETRY
    return kinds


class Server:
    """The server's answers to filters on one dataset."""

    def __init__(self, base, path):
        self.base, self.path = base, path
        self.requests = 0

    def ids(self, text, lang, crs):
        """The ids the filter selects, or the refusal (status, message)."""
        params = {"filter": text, "filter-lang": lang, "fields": "id"}
        if crs != CRS84:
            params["filter-crs"] = crs
        self.requests += 1
        status, body = fetch(listing(self.base, self.path, params))
        if status != 200:
            try:
                message = json.loads(body).get("message", body.decode())
            except ValueError:
                message = body.decode(errors="replace")
            return status, message
        # Each line is {"id":N}: its one number is the id.
        return {int(n) for n in re.findall(rb"-?\d+", body)}


def as_text(expr):
    """The cql2 package's cql2-text of a cql2-json expression, checked to read back as the
    same expression (so that a difference found is the server's, not the writer's)."""
    e = cql2.Expr(expr)
    text = e.to_text()
    if cql2.parse_text(text).to_json() != e.to_json():
        raise ValueError(f"cql2 writes {text!r}, which reads back otherwise")
    return text


def expectation(expr, crs, records):
    """The ids `expr` selects, or ("400", why) where the server must refuse it."""
    try:
        return evaluate(expr, records, crs)
    except Invalid as e:
        return ("400", str(e))


def disagreement(expr, crs, records, server, expected=None):
    """Why the server's answers to `expr` differ from the evaluation (`expected`, when it is
    known already), or None."""
    if expected is None:
        expected = expectation(expr, crs, records)
    try:
        text = as_text(expr)
    except Exception as e:  # the cql2 package cannot write it (ValueError, or its own)
        return f"no cql2-text to ask: {e}"
    problems = []
    for lang, sent in (("cql2-text", text), ("cql2-json", json.dumps(expr))):
        got = server.ids(sent, lang, crs)
        if isinstance(expected, tuple):
            if not (isinstance(got, tuple) and got[0] == 400):
                problems.append(f"{lang}: expected a 400 ({expected[1]}), got {describe(got)}")
        elif got != expected:
            problems.append(f"{lang}: {difference(expected, got)}")
    return "; ".join(problems) or None


def describe(got):
    if isinstance(got, tuple):
        return f"{got[0]} {got[1]}"
    return f"{len(got)} records"


def difference(expected, got):
    if isinstance(got, tuple):
        return f"expected {len(expected)} records, got {got[0]} {got[1]}"
    extra, lacking = sorted(got - expected), sorted(expected - got)
    return (
        f"expected {len(expected)} records, got {len(got)}: "
        f"{len(extra)} extra (ids {extra[:8]}), {len(lacking)} missing (ids {lacking[:8]})"
    )


def smaller(expr):
    """Expressions a step smaller than `expr`: one of its predicates, or it without one."""
    if not isinstance(expr, dict) or expr.get("op") not in ("and", "or", "not"):
        return
    args = expr["args"]
    yield from args
    if len(args) > 2:
        for i in range(len(args)):
            yield {"op": expr["op"], "args": args[:i] + args[i + 1 :]}
    for i, a in enumerate(args):
        for s in smaller(a):
            yield {"op": expr["op"], "args": args[:i] + [s] + args[i + 1 :]}


def shrink(expr, crs, records, server, why, budget=60):
    """The smallest part of `expr` found that still disagrees, and how."""
    improved = True
    while improved and budget > 0:
        improved = False
        for candidate in smaller(expr):
            budget -= 1
            still = disagreement(candidate, crs, records, server)
            if still:
                expr, why, improved = candidate, still, True
                break
            if budget <= 0:
                break
    return expr, why


def report(kind, expr, crs, why):
    print(f"MISMATCH ({kind})")
    print(f"  cql2-json: {json.dumps(expr)}")
    try:
        print(f"  cql2-text: {as_text(expr)}")
    except Exception as e:  # the cql2 package cannot write it
        print(f"  cql2-text: {e}")
    if crs != CRS84:
        print(f"  filter-crs: {crs}")
    print(f"  {why}")


def random_cases(args, records, server):
    """The seeded random expressions: (mismatches, how many selected some records but not all,
    how many pygeofilter had an opinion of)."""
    gen = Generator(random.Random(args.seed), records)
    mismatches, nontrivial, opinions = 0, 0, 0
    for _ in range(args.count):
        expr, crs = gen.expression(args.depth)
        expected = expectation(expr, crs, records)
        nontrivial += isinstance(expected, set) and 0 < len(expected) < records.n
        why = disagreement(expr, crs, records, server, expected)
        if why:
            mismatches += 1
            small, small_why = shrink(expr, crs, records, server, why)
            report("random", small, crs, small_why)
            if small != expr:
                print(f"  (shrunk from {json.dumps(expr)})")
            continue
        verdict = pygeofilter_opinion(expr, as_text(expr), crs, records, server)
        opinions += verdict is not None
        if verdict:
            mismatches += 1
            report("pygeofilter", expr, crs, verdict)
    return mismatches, nontrivial, opinions


def hand_checks(records, server):
    """The hand-written cases: (count, mismatches)."""
    cases = hand_cases(records)
    mismatches = 0
    for text, expected in cases:
        got = server.ids(text, "cql2-text", CRS84)
        if expected == "400":
            ok = isinstance(got, tuple) and got[0] == 400
        else:
            ok = got == expected
        if not ok:
            mismatches += 1
            want = expected if expected == "400" else f"{len(expected)} records"
            print(f"MISMATCH (hand-written)\n  cql2-text: {text}\n  expected {want}, "
                  f"got {describe(got)}")
    return len(cases), mismatches


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the server, e.g. http://127.0.0.1:8080")
    p.add_argument("--path", required=True, help="the listing, e.g. /raw-counts")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=40, help="random expressions")
    p.add_argument("--depth", type=int, default=3, help="AND/OR/NOT nesting")
    p.add_argument("--kinds", help="JSON: each property's kind")
    p.add_argument("--hand", action="store_true", help="also the hand-written cases")
    args = p.parse_args()
    started = time.monotonic()
    rows = all_records(args.base, args.path)
    if not rows:
        print(f"{args.path}: no records, so nothing to compare")
        return 1
    kinds = json.loads(args.kinds) if args.kinds else guess_kinds(args.base, args.path, rows)
    records = Records(rows, kinds)
    server = Server(args.base, args.path)
    mismatches, nontrivial, asked = random_cases(args, records, server)
    line = (
        f"{args.path}: {records.n} records; {args.count} random expressions (seed {args.seed}), "
        f"{nontrivial} selecting some records but not all; pygeofilter's opinion on {asked}"
    )
    if args.hand:
        count, wrong = hand_checks(records, server)
        mismatches += wrong
        line += f"; {count} hand-written cases"
    line += f"; {server.requests} requests, {time.monotonic() - started:.1f} s: "
    print(line + (f"{mismatches} MISMATCHES" if mismatches else "all agree"))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
