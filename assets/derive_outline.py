#!/usr/bin/env python3
"""Derives assets/gb-outline.json, the coastline drawn under the map's count points, from
Natural Earth's 1:10m land polygons as packaged in the `world-atlas` npm package (land-10m.json,
TopoJSON). Run once by hand; the output is committed and embedded in the server binary.

    npm pack world-atlas@2.0.2 && tar xzf world-atlas-2.0.2.tgz
    python3 assets/derive_outline.py package/land-10m.json > assets/gb-outline.json

What it does: decodes the TopoJSON arcs, keeps the land within a box around Great Britain
(Ireland and the near coast of France included, for context), clips each ring to that box,
simplifies it (Douglas-Peucker, tolerance 0.003 degrees, about 300 m), drops islets smaller than
that, and writes each ring as integer thousandths of a degree, delta-encoded after its first
point: {"box": [west, south, east, north], "scale": 1000, "rings": [[x0, y0, dx1, dy1, ...]]}.
"""
import json
import sys

WEST, SOUTH, EAST, NORTH = -11.0, 49.6, 2.2, 61.0
TOLERANCE = 0.003
SCALE = 1000


def decode_arcs(topo):
    sx, sy = topo["transform"]["scale"]
    tx, ty = topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)
    return arcs


def ring_points(ring, arcs):
    out = []
    for i in ring:
        arc = arcs[i] if i >= 0 else list(reversed(arcs[~i]))
        out.extend(arc if not out else arc[1:])
    return out


def polygons(geometry):
    if geometry["type"] == "GeometryCollection":
        for g in geometry["geometries"]:
            yield from polygons(g)
    elif geometry["type"] == "Polygon":
        yield geometry["arcs"]
    elif geometry["type"] == "MultiPolygon":
        yield from geometry["arcs"]


def clip(points, inside, cross):
    """One Sutherland-Hodgman pass against one edge of the box."""
    out = []
    for i, p in enumerate(points):
        q = points[i - 1]
        if inside(p):
            if not inside(q):
                out.append(cross(q, p))
            out.append(p)
        elif inside(q):
            out.append(cross(q, p))
    return out


def at_x(x):
    return lambda a, b: (x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]))


def at_y(y):
    return lambda a, b: (a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]), y)


def clip_to_box(points):
    for inside, cross in [
        (lambda p: p[0] >= WEST, at_x(WEST)),
        (lambda p: p[0] <= EAST, at_x(EAST)),
        (lambda p: p[1] >= SOUTH, at_y(SOUTH)),
        (lambda p: p[1] <= NORTH, at_y(NORTH)),
    ]:
        points = clip(points, inside, cross) if points else points
    return points


def simplify(points, tolerance):
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (ax, ay), (bx, by) = points[first], points[last]
        dx, dy = bx - ax, by - ay
        norm = (dx * dx + dy * dy) ** 0.5
        far, index = 0.0, None
        for i in range(first + 1, last):
            px, py = points[i]
            d = abs(dy * (px - ax) - dx * (py - ay)) / norm if norm else ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
            if d > far:
                far, index = d, i
        if index is not None and far > tolerance:
            keep[index] = True
            stack += [(first, index), (index, last)]
    return [p for p, k in zip(points, keep) if k]


def main():
    topo = json.load(open(sys.argv[1]))
    arcs = decode_arcs(topo)
    rings = []
    for polygon in polygons(topo["objects"]["land"]):
        for ring in polygon:
            points = clip_to_box(ring_points(ring, arcs))
            points = simplify(points, TOLERANCE)
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            if len(points) < 4 or max(xs) - min(xs) < 2 * TOLERANCE and max(ys) - min(ys) < 2 * TOLERANCE:
                continue
            ints = [(round(x * SCALE), round(y * SCALE)) for x, y in points]
            flat = list(ints[0])
            for (ax, ay), (bx, by) in zip(ints, ints[1:]):
                if (ax, ay) != (bx, by):
                    flat += [bx - ax, by - ay]
            rings.append(flat)
    out = {"box": [WEST, SOUTH, EAST, NORTH], "scale": SCALE, "rings": rings}
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
