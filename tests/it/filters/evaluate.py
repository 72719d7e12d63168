"""CQL2 expressions in their JSON encoding, typed and evaluated over a dataset's records, written
from issue 34's semantics and nothing of the server's: the other side of the differential check
(differential.py).

A value is a Python value or None (a null); a predicate is True, False or None (unknown, SQL's
three-valued logic), and only True selects a record. Every node is evaluated for all records at
once, as a list, so that a tree costs one pass per node rather than one walk per record.
"""

import datetime
import math
import re

import shapely

NUMBER, TEXT, DATE, BOOL, GEOMETRY = "number", "text", "date", "bool", "geometry"
COMPARISONS = {"=", "<>", "<", ">", "<=", ">="}
ARITHMETIC = {"+", "-", "*", "/", "%", "^", "div"}
RELATIONS = {
    "s_intersects": "intersects",
    "s_disjoint": "disjoint",
    "s_equals": "equals",
    "s_touches": "touches",
    "s_within": "within",
    "s_contains": "contains",
    "s_overlaps": "overlaps",
    "s_crosses": "crosses",
}
# A record's point in each filter-crs: its longitude and latitude, or its easting and northing.
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
BNG = "http://www.opengis.net/def/crs/EPSG/0/27700"
AXES = {CRS84: ("longitude", "latitude"), BNG: ("easting", "northing")}


class Invalid(Exception):
    """The expression is not one the server may answer: it must refuse it (400)."""


def typed(value, kind):
    """A record's value as CQL2 compares it: a decimal the API writes as a string is a number,
    and an empty one is a null."""
    if value is None or value == "":
        return None
    if kind == NUMBER and isinstance(value, str):
        return float(value)
    return value


class Records:
    """The unfiltered records, column by column, typed by `kinds` (property name to kind)."""

    def __init__(self, rows, kinds):
        self.n = len(rows)
        self.ids = [r["id"] for r in rows]
        self.kinds = kinds
        self.columns = {
            name: [typed(r.get(name), kind) for r in rows]
            for name, kind in kinds.items()
            if kind != GEOMETRY
        }
        self._points = {}

    def points(self, crs):
        """Each record's point in `crs` (a shapely array), and whether it has one."""
        if crs not in self._points:
            xs, ys = (self.columns[axis] for axis in AXES[crs])
            has = [x is not None and y is not None for x, y in zip(xs, ys)]
            coords = [(x, y) if h else (0.0, 0.0) for x, y, h in zip(xs, ys, has)]
            self._points[crs] = (shapely.points(coords), has)
        return self._points[crs]


def shape(node):
    """A geometry literal (GeoJSON or a bbox) as shapely's."""
    if "bbox" in node:
        b = node["bbox"]
        half = len(b) // 2
        return shapely.box(b[0], b[1], b[half], b[half + 1])
    return shapely.geometry.shape(node)


def is_geometry_literal(node):
    return isinstance(node, dict) and ("bbox" in node or "type" in node)


def is_date(text):
    """Whether `text` is a calendar date written YYYY-MM-DD."""
    if not isinstance(text, str) or len(text) != 10 or text[4] != "-" or text[7] != "-":
        return False
    try:
        datetime.date.fromisoformat(text)
        return text[:4].isdigit() and text[5:7].isdigit() and text[8:].isdigit()
    except ValueError:
        return False


# ---- Types: what each value is, and which operations the issue allows on them.


def kind_of(node, kinds):
    """A value's kind, or None for a null; Invalid where it is no value a filter may give."""
    if node is None:
        return None
    if isinstance(node, bool):
        return BOOL
    if isinstance(node, (int, float)):
        return NUMBER
    if isinstance(node, str):
        return TEXT
    if isinstance(node, list):
        raise Invalid("a list outside IN")
    if "property" in node:
        if node["property"] not in kinds:
            raise Invalid(f"unknown property {node['property']}")
        return kinds[node["property"]]
    if "date" in node:
        if not is_date(node["date"]):
            raise Invalid("not a date")
        return DATE
    if is_geometry_literal(node):
        return GEOMETRY
    op, args = node.get("op"), node.get("args", [])
    if op == "casei":
        expect(args, 1, TEXT, kinds, op)
        return TEXT
    if op in ARITHMETIC:
        expect(args, 2, NUMBER, kinds, op)
        return NUMBER
    raise Invalid(f"{op} is not a value")


def expect(args, count, kind, kinds, op):
    if len(args) != count:
        raise Invalid(f"{op} takes {count} operands")
    for a in args:
        if kind_of(a, kinds) not in (kind, None):
            raise Invalid(f"{op} takes {kind}")


def common_kind(a, b, kinds):
    """What `a` and `b` compare as (None when one is a null), or Invalid: the same kind, or a
    date with text that spells one."""
    ka, kb = kind_of(a, kinds), kind_of(b, kinds)
    if GEOMETRY in (ka, kb):
        raise Invalid("geometries compare only through spatial functions")
    if ka is None or kb is None or ka == kb:
        return ka or kb
    if {ka, kb} == {DATE, TEXT}:
        text = a if ka == TEXT else b
        if isinstance(text, str) and is_date(text):
            return DATE
    raise Invalid(f"{ka} compared with {kb}")


# ---- Values: each node evaluated over every record.


class Evaluator:
    def __init__(self, records, crs=CRS84):
        self.r = records
        self.crs = crs

    def all(self, value):
        return [value] * self.r.n

    def value(self, node):
        """A value node's values, one per record (its kind already checked)."""
        if node is None or isinstance(node, (bool, int, float, str)):
            return self.all(node)
        if "property" in node:
            return self.r.columns[node["property"]]
        if "date" in node:
            return self.all(node["date"])
        op, args = node["op"], node["args"]
        if op == "casei":
            return [None if v is None else v.lower() for v in self.value(args[0])]
        a, b = self.value(args[0]), self.value(args[1])
        f = ARITHMETIC_FUNCTIONS[op]
        return [None if x is None or y is None else f(x, y) for x, y in zip(a, b)]

    def predicate(self, node):
        """A predicate's truth, per record: True, False or None."""
        if isinstance(node, bool):
            return self.all(node)
        if not isinstance(node, dict) or "op" not in node:
            raise Invalid("not a predicate")
        op, args = node["op"], node["args"]
        if op in ("and", "or"):
            if len(args) < 2:
                raise Invalid(f"{op} takes two or more operands")
            parts = [self.predicate(a) for a in args]
            join = and3 if op == "and" else or3
            out = parts[0]
            for p in parts[1:]:
                out = [join(x, y) for x, y in zip(out, p)]
            return out
        if op == "not":
            if len(args) != 1:
                raise Invalid("NOT takes one operand")
            return [None if v is None else not v for v in self.predicate(args[0])]
        handler = {
            "like": self.like,
            "between": self.between,
            "in": self.in_list,
            "isNull": self.is_null,
        }.get(op)
        if handler:
            return handler(args)
        if op in COMPARISONS:
            return self.comparison(op, args)
        if op in RELATIONS:
            return self.spatial(op, args)
        raise Invalid(f"{op} is not a predicate")

    def comparison(self, op, args):
        if len(args) != 2:
            raise Invalid(f"{op} takes two operands")
        common_kind(args[0], args[1], self.r.kinds)
        f = COMPARE[op]
        a, b = self.value(args[0]), self.value(args[1])
        return [None if x is None or y is None else f(x, y) for x, y in zip(a, b)]

    def like(self, args):
        if len(args) != 2:
            raise Invalid("LIKE takes two operands")
        expect(args, 2, TEXT, self.r.kinds, "like")
        a, p = self.value(args[0]), self.value(args[1])
        patterns = {y: like_pattern(y) for y in set(p) if y is not None}
        return [
            None if x is None or y is None else patterns[y].fullmatch(x) is not None
            for x, y in zip(a, p)
        ]

    def between(self, args):
        if len(args) != 3:
            raise Invalid("BETWEEN takes three operands")
        common_kind(args[0], args[1], self.r.kinds)
        common_kind(args[0], args[2], self.r.kinds)
        v, lo, hi = (self.value(a) for a in args)
        ge = [None if x is None or y is None else x >= y for x, y in zip(v, lo)]
        le = [None if x is None or y is None else x <= y for x, y in zip(v, hi)]
        return [and3(x, y) for x, y in zip(ge, le)]

    def in_list(self, args):
        if len(args) != 2 or not isinstance(args[1], list):
            raise Invalid("IN takes a value and a list")
        value, items = args
        for item in items:
            common_kind(value, item, self.r.kinds)
        if not items:
            return self.all(False)
        v = self.value(value)
        columns = [self.value(item) for item in items]
        out = []
        for i, x in enumerate(v):
            row = [c[i] for c in columns]
            if x is None:
                out.append(None)
            elif any(y is not None and x == y for y in row):
                out.append(True)
            else:
                out.append(None if any(y is None for y in row) else False)
        return out

    def is_null(self, args):
        if len(args) != 1:
            raise Invalid("IS NULL takes one operand")
        (arg,) = args
        kind = kind_of(arg, self.r.kinds)
        if kind == GEOMETRY:
            if is_geometry_literal(arg):
                return self.all(False)
            _, has = self.r.points(self.crs)
            return [not h for h in has]
        return [v is None for v in self.value(arg)]

    def spatial(self, op, args):
        """A spatial relation by shapely (GEOS's DE-9IM), a record's point on either side."""
        if len(args) != 2 or any(kind_of(a, self.r.kinds) != GEOMETRY for a in args):
            raise Invalid(f"{op} relates two geometries")
        relation = getattr(shapely, RELATIONS[op])
        points, has = self.r.points(self.crs)
        sides = [points if "property" in a else shape(a) for a in args]
        holds = relation(sides[0], sides[1])
        if all("property" not in a for a in args):
            return self.all(bool(holds))
        return [bool(h) if ok else None for h, ok in zip(holds, has)]


def and3(x, y):
    if x is False or y is False:
        return False
    if x is None or y is None:
        return None
    return True


def or3(x, y):
    if x is True or y is True:
        return True
    if x is None or y is None:
        return None
    return False


COMPARE = {
    "=": lambda x, y: x == y,
    "<>": lambda x, y: x != y,
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "<=": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
}


def finite(v):
    return v if v is None or math.isfinite(v) else None


def divide(x, y):
    """Real division; by zero, a null."""
    return None if y == 0 else float(x) / float(y)


def remainder(x, y):
    """The truncated remainder (C's fmod, Rust's % on floats); by zero, a null."""
    return None if y == 0 else finite(math.fmod(float(x), float(y)))


def power(x, y):
    try:
        return finite(math.pow(float(x), float(y)))
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def integer_division(x, y):
    """The quotient truncated toward zero; by zero, or past 64 bits, a null."""
    if y == 0:
        return None
    q = math.trunc(float(x) / float(y)) if math.isfinite(float(x) / float(y)) else None
    return q if q is not None and abs(q) < 9.2e18 else None


def exact_or_real(f):
    """`f` as SQL does it: exact on 64-bit integers, in floating point on reals, and on
    integers whose exact result would not fit in 64 bits."""

    def g(x, y):
        v = f(x, y)
        if isinstance(v, int) and not -(2**63) <= v < 2**63:
            return f(float(x), float(y))
        return v

    return g


ARITHMETIC_FUNCTIONS = {
    "+": exact_or_real(lambda x, y: x + y),
    "-": exact_or_real(lambda x, y: x - y),
    "*": exact_or_real(lambda x, y: x * y),
    "/": divide,
    "%": remainder,
    "^": power,
    "div": integer_division,
}


def like_pattern(pattern):
    """CQL2's LIKE pattern as a regular expression, minding case: `%` any run, `_` any one
    character, a backslash makes the character after it (or, last, itself) literal. (The
    server matches patterns otherwise.)"""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append({"%": ".*", "_": "."}.get(c, re.escape(c)))
        i += 1
    return re.compile("".join(out), flags=re.DOTALL)


def evaluate(node, records, crs=CRS84):
    """The ids of the records `node` selects; Invalid if the server must refuse it."""
    truth = Evaluator(records, crs).predicate(node)
    return {i for i, t in zip(records.ids, truth) if t is True}
