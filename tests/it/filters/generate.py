"""Seeded random CQL2 expressions (the JSON encoding) over a dataset's properties, their values
drawn from its own records so that most select some records and leave others: comparisons of
every kind (with a literal, property with property, arithmetic), LIKE, BETWEEN, IN, IS NULL,
CASEI, dates, NOT, AND and OR nested, and every spatial function against points, boxes, lines,
polygons with holes and multi-geometries around the records' own points.
"""

import math

import shapely

from evaluate import BNG, CRS84, DATE, GEOMETRY, NUMBER, TEXT, AXES, Evaluator, Invalid

RELATIONS = [
    "s_intersects",
    "s_disjoint",
    "s_within",
    "s_touches",
    "s_contains",
    "s_equals",
    "s_overlaps",
    "s_crosses",
]
# Text a record never holds, with what the encodings must carry through: a quote (doubled in
# cql2-text), a backslash, a double quote, letters beyond ASCII, wildcards.
ODD_TEXT = ["O'Brien", "back\\slash", 'say "hi"', "Ünïcödé", "50%_off", "", " ", "'"]


def prop(name):
    return {"property": name}


class Generator:
    def __init__(self, rng, records):
        self.rng = rng
        self.r = records
        by_kind = {}
        for name, kind in records.kinds.items():
            by_kind.setdefault(kind, []).append(name)
        self.numbers = by_kind.get(NUMBER, [])
        self.texts = by_kind.get(TEXT, [])
        self.dates = by_kind.get(DATE, [])
        self.spatial = GEOMETRY in by_kind
        self.values = {
            name: sorted({v for v in col if v is not None}, key=repr)
            for name, col in records.columns.items()
        }
        self.crs = CRS84
        self.distinct = {}

    # ---- the top: a predicate, nested to `depth`

    def expression(self, depth=3):
        """One expression, and the filter-crs its geometries are in."""
        self.crs = CRS84
        if self.spatial and self.rng.random() < 0.25:
            self.crs = BNG
        return self.predicate(depth), self.crs

    def predicate(self, depth):
        rng = self.rng
        if depth > 0 and rng.random() < 0.55:
            op = rng.choice(["and", "and", "or", "or", "not"])
            if op == "not":
                return {"op": "not", "args": [self.predicate(depth - 1)]}
            n = rng.choice([2, 2, 2, 3, 4])
            return {"op": op, "args": [self.predicate(depth - 1) for _ in range(n)]}
        makers = [self.compare, self.compare, self.like, self.between, self.in_list]
        makers += [self.is_null, self.casei, self.arithmetic, self.property_pair]
        makers += [self.dated] * (2 if self.dates else 0)
        makers += [self.spatial_function] * (4 if self.spatial else 0)
        if rng.random() < 0.03:
            return rng.choice([True, False])
        return rng.choice(makers)()

    # ---- values

    def number_property(self):
        return self.rng.choice(self.numbers)

    def some(self, name):
        """A value of the property's, or None when it has none."""
        values = self.values.get(name) or [None]
        return self.rng.choice(values)

    def number_near(self, name):
        """A number from the property's values, sometimes moved off them."""
        v = self.some(name)
        if v is None:
            return self.rng.choice([0, 1, 2019])
        roll = self.rng.random()
        if roll < 0.15:
            return v + 0.5
        if roll < 0.25:
            return float(v)
        if roll < 0.3:
            return -v
        return v

    def text_near(self, name):
        """A text from the property's values, sometimes in another case, cut, or odd."""
        v = self.some(name)
        roll = self.rng.random()
        if v is None or roll < 0.08:
            return self.rng.choice(ODD_TEXT)
        if roll < 0.25:
            return v.swapcase()
        if roll < 0.32:
            return v[: self.rng.randint(0, len(v))]
        return v

    # ---- leaves

    def compare(self):
        rng = self.rng
        op = rng.choice(["=", "=", "<>", "<", ">", "<=", ">="])
        if self.texts and rng.random() < 0.35:
            name = rng.choice(self.texts)
            literal = self.text_near(name)
        else:
            name = self.number_property()
            literal = self.number_near(name)
        if rng.random() < 0.03:
            literal = None
        args = [prop(name), literal]
        return {"op": op, "args": args if rng.random() < 0.8 else args[::-1]}

    def property_pair(self):
        rng = self.rng
        op = rng.choice(["=", "<>", "<", ">", "<=", ">="])
        pool = self.texts if self.texts and rng.random() < 0.3 else self.numbers
        a, b = rng.choice(pool), rng.choice(pool)
        return {"op": op, "args": [prop(a), prop(b)]}

    def like(self):
        rng = self.rng
        if not self.texts:
            return self.compare()
        name = rng.choice(self.texts)
        pattern = self.pattern(self.some(name) or rng.choice(ODD_TEXT))
        value = prop(name)
        if rng.random() < 0.1:
            pattern = prop(rng.choice(self.texts))  # a pattern from the record itself
        if rng.random() < 0.25:
            value = {"op": "casei", "args": [value]}
            pattern = {"op": "casei", "args": [pattern]}
        return {"op": "like", "args": [value, pattern]}

    def pattern(self, v):
        """A LIKE pattern that matches `v` (or, in another case, may not): its own `%`, `_` and
        backslashes escaped, then parts of it turned to wildcards."""
        rng = self.rng
        chars = ["\\" + c if c in "%_\\" else c for c in v]
        for _ in range(rng.randint(0, 2)):
            if chars:
                chars[rng.randrange(len(chars))] = "_"
        roll = rng.random()
        if roll < 0.35 and chars:
            chars = chars[: rng.randint(0, len(chars))] + ["%"]
        elif roll < 0.55 and chars:
            chars = ["%"] + chars[rng.randint(0, len(chars)) :]
        elif roll < 0.7 and chars:
            i = rng.randint(0, len(chars))
            chars = chars[:i] + ["%"] + chars[rng.randint(i, len(chars)) :]
        text = "".join(chars)
        return text.swapcase() if rng.random() < 0.1 else text

    def between(self):
        rng = self.rng
        pool = self.texts if self.texts and rng.random() < 0.2 else self.numbers
        name = rng.choice(pool)
        near = self.text_near if pool is self.texts else self.number_near
        low, high = near(name), near(name)
        if rng.random() < 0.8:
            low, high = sorted([low, high])
        bounds = [low, high]
        if rng.random() < 0.15:  # a bound from the record itself, or unknown
            bounds[rng.randrange(2)] = rng.choice([prop(rng.choice(pool)), None])
        return {"op": "between", "args": [prop(name)] + bounds}

    def in_list(self):
        rng = self.rng
        pool = self.texts if self.texts and rng.random() < 0.4 else self.numbers
        name = rng.choice(pool)
        near = self.text_near if pool is self.texts else self.number_near
        items = [near(name) for _ in range(rng.randint(1, 5))]
        if rng.random() < 0.1:
            items.append(None)
        if rng.random() < 0.1:
            items.append(prop(rng.choice(pool)))  # an item from the record itself
        value = prop(name)
        if pool is self.numbers and rng.random() < 0.1:
            value = self.number_value(1)
        return {"op": "in", "args": [value, items]}

    def is_null(self):
        rng = self.rng
        nullable = [n for n, col in self.r.columns.items() if None in col]
        name = rng.choice(nullable or list(self.r.columns))
        arg = prop(name)
        if rng.random() < 0.2:
            arg = self.number_value(1)
        elif self.spatial and rng.random() < 0.1:
            arg = prop("geometry")
        return {"op": "isNull", "args": [arg]}

    def casei(self):
        rng = self.rng
        if not self.texts:
            return self.compare()
        name = rng.choice(self.texts)
        literal = self.text_near(name)
        op = rng.choice(["=", "=", "<>", "<", ">="])
        case = {"op": "casei", "args": [prop(name)]}
        return {"op": op, "args": [case, {"op": "casei", "args": [literal]}]}

    def dated(self):
        rng = self.rng
        name = rng.choice(self.dates)
        values = [self.some(name) for _ in range(3)]
        as_literal = [v if rng.random() < 0.4 else {"date": v} for v in values]
        roll = rng.random()
        if roll < 0.5:
            op = rng.choice(["=", "<>", "<", ">", "<=", ">="])
            return {"op": op, "args": [prop(name), as_literal[0]]}
        if roll < 0.75:
            low, high = sorted(values[:2])
            return {"op": "between", "args": [prop(name), {"date": low}, {"date": high}]}
        return {"op": "in", "args": [prop(name), as_literal]}

    # ---- arithmetic: a computed number compared with one it takes on some record

    def number_value(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.35:
            if rng.random() < 0.75:
                return prop(self.number_property())
            return rng.choice([0, 1, 2, 3, 7, 0.5, -2, 1000])
        op = rng.choice(["+", "-", "*", "/", "%", "div", "^"])
        if op == "^":
            exponent = rng.choice([0, 1, 2, 0.5, -1])
            return {"op": "^", "args": [self.number_value(0), exponent]}
        return {"op": op, "args": [self.number_value(depth - 1), self.number_value(depth - 1)]}

    def arithmetic(self):
        rng = self.rng
        left = self.number_value(2)
        try:
            taken = [v for v in Evaluator(self.r).value(left) if v is not None]
        except Invalid:
            taken = []
        right = rng.choice(taken) if taken else 0
        if isinstance(right, float) and not math.isfinite(right):
            right = 0
        if isinstance(right, int) and abs(right) > 2**53:
            right = float(right)  # a CQL2 number is a double
        if rng.random() < 0.3:
            right = self.number_value(1)
        op = rng.choice(["=", "<", ">", "<=", ">=", "<>"])
        return {"op": op, "args": [left, right]}

    # ---- spatial

    def points(self):
        """The records' distinct points in the expression's CRS."""
        if self.crs not in self.distinct:
            xs, ys = (self.r.columns[a] for a in AXES[self.crs])
            pairs = {(x, y) for x, y in zip(xs, ys) if x is not None and y is not None}
            self.distinct[self.crs] = sorted(pairs)
        return self.distinct[self.crs]

    def spatial_function(self):
        rng = self.rng
        shape = self.shape()
        op = rng.choice(RELATIONS)
        roll = rng.random()
        if roll < 0.7:
            args = [prop("geometry"), shape]
        elif roll < 0.9:
            args = [shape, prop("geometry")]
        elif roll < 0.95:
            args = [prop("geometry"), prop("geometry")]
        else:
            args = [shape, self.shape()]
        return {"op": op, "args": args}

    def shape(self):
        points = self.points()
        if not points:
            return {"type": "Point", "coordinates": [0, 0]}
        makers = [self.point, self.box, self.box, self.polygon, self.polygon, self.line]
        makers += [self.multi_polygon, self.multi_point, self.multi_line, self.collection]
        return self.rng.choice(makers)(points)

    def extent(self, points):
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        pad = 0.001 if self.crs == CRS84 else 100
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad

    def sub_box(self, points, share=(0.2, 0.7)):
        """A box covering part of the points' extent."""
        rng = self.rng
        x0, y0, x1, y1 = self.extent(points)
        w, h = (x1 - x0) * rng.uniform(*share), (y1 - y0) * rng.uniform(*share)
        left, bottom = rng.uniform(x0, x1 - w), rng.uniform(y0, y1 - h)
        return [self.coord(left), self.coord(bottom), self.coord(left + w), self.coord(bottom + h)]

    def coord(self, v):
        return round(v, 6) if self.crs == CRS84 else round(v)

    def point(self, points):
        return {"type": "Point", "coordinates": list(self.rng.choice(points))}

    def box(self, points):
        return {"bbox": self.sub_box(points)}

    def ring(self, b):
        x0, y0, x1, y1 = b
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]

    def polygon(self, points):
        """A polygon: a box, or a ring through records' own points (so that some lie on its
        boundary), sometimes with a hole in its middle."""
        rng = self.rng
        ring = self.ring(self.sub_box(points, (0.3, 0.8)))
        if rng.random() < 0.4:
            star = self.star(points)
            ring = star if valid(star) else ring
        rings = [ring]
        if rng.random() < 0.5:
            xs, ys = [p[0] for p in ring], [p[1] for p in ring]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            w, h = (max(xs) - min(xs)) / 8, (max(ys) - min(ys)) / 8
            middle = [cx - w, cy - h, cx + w, cy + h]
            hole = self.ring([self.coord(v) for v in middle])[::-1]
            if valid(ring, hole):
                rings.append(hole)
        return {"type": "Polygon", "coordinates": rings}

    def star(self, points):
        """A ring through a few records' points, by angle around their centre."""
        chosen = self.rng.sample(points, min(len(points), self.rng.randint(3, 7)))
        cx = sum(p[0] for p in chosen) / len(chosen)
        cy = sum(p[1] for p in chosen) / len(chosen)
        chosen.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
        ring = [list(p) for p in chosen]
        return ring + [ring[0]]

    def line(self, points):
        chosen = self.rng.sample(points, min(len(points), self.rng.randint(2, 4)))
        if len(set(chosen)) < 2:
            chosen = [chosen[0], (chosen[0][0] + 1, chosen[0][1] + 1)]
        return {"type": "LineString", "coordinates": [list(p) for p in chosen]}

    def multi_polygon(self, points):
        """Two boxes apart: the west and east of the extent."""
        x0, y0, x1, y1 = self.extent(points)
        mid = (x0 + x1) / 2
        west = self.sub_box([(x0, y0), (mid - (x1 - x0) / 20, y1)])
        east = self.sub_box([(mid + (x1 - x0) / 20, y0), (x1, y1)])
        return {"type": "MultiPolygon", "coordinates": [[self.ring(west)], [self.ring(east)]]}

    def multi_point(self, points):
        chosen = self.rng.sample(points, min(len(points), self.rng.randint(1, 5)))
        return {"type": "MultiPoint", "coordinates": [list(p) for p in chosen]}

    def multi_line(self, points):
        lines = [self.line(points)["coordinates"] for _ in range(2)]
        return {"type": "MultiLineString", "coordinates": lines}

    def collection(self, points):
        """A point and a box apart from it (members that overlap would make their boundary a
        matter of convention)."""
        b = self.sub_box(points, (0.1, 0.3))
        outside = [p for p in points if not (b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3])]
        members = [{"type": "Polygon", "coordinates": [self.ring(b)]}]
        if outside:
            members.append({"type": "Point", "coordinates": list(self.rng.choice(outside))})
        return {"type": "GeometryCollection", "geometries": members}


def valid(ring, *holes):
    """Whether the rings make a valid polygon of some area (a ring through points in a line
    does not)."""
    if len(ring) < 4:
        return False
    polygon = shapely.Polygon(ring, holes)
    return polygon.is_valid and polygon.area > 0
