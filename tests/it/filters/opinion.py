"""pygeofilter (PyPI) as a second opinion, where it is sound.

pygeofilter 0.4 reads cql2-text into its own syntax tree and evaluates it natively, in Python's
two-valued logic. Where that cannot be wrong, its answer must be the server's: over the records
whose every property the expression names has a value (so that no comparison meets a null),
for expressions without what it gets wrong or cannot read (issue 34, and found here): no BBOX,
no doubled quotes, no LIKE pattern with `_`, `.` or a backslash (`.` is its one-character
wildcard), no IN of one item (a substring test to it), no division, `%`, `^` or `div` (nulls
by zero, or unknown to it), no booleans or nulls given, no date given as text. It binds AND
and OR alike, so it is given the expression with every operation in parentheses.
"""

import contextlib
import datetime
import io

import shapely
from pygeofilter.backends.native.evaluate import NativeEvaluator
from pygeofilter.parsers.cql2_text import parse

from evaluate import AXES, COMPARISONS, DATE, RELATIONS, is_date

# The most records it evaluates an expression over.
SAMPLE = 2000
SOUND_OPS = COMPARISONS | set(RELATIONS) | {"and", "or", "not", "like", "between", "in"}
SOUND_OPS |= {"isNull", "casei", "+", "-", "*"}


def sound(node, inside_like=False):
    """Whether pygeofilter reads and evaluates `node` as CQL2 means it."""
    if isinstance(node, bool) or node is None:
        return False
    if isinstance(node, str):
        bad = "'\\" + ("_." if inside_like else "")
        return not any(c in node for c in bad) and not is_date(node)
    if isinstance(node, (int, float)):
        return True
    if isinstance(node, list):
        # It writes a one-item list as `x in (item)`: a test of a substring.
        return len(node) > 1 and all(sound(n) for n in node)
    if "property" in node or "date" in node:
        return True
    if "bbox" in node:
        return False
    if "type" in node:
        return True
    op = node.get("op")
    return op in SOUND_OPS and all(sound(a, op == "like" or inside_like) for a in node["args"])


def written(node):
    """cql2-text for pygeofilter: every operation in parentheses, as it takes AND and OR to
    bind alike (`a OR b AND c` is `(a OR b) AND c` to it)."""
    if isinstance(node, str):
        return "'" + node + "'"
    if isinstance(node, (int, float)):
        return repr(node)
    if isinstance(node, list):
        return "(" + ", ".join(written(n) for n in node) + ")"
    if "property" in node:
        return node["property"]
    if "date" in node:
        return f"DATE('{node['date']}')"
    if "type" in node:
        return shapely.to_wkt(shapely.geometry.shape(node), rounding_precision=-1)
    op, args = node["op"], [written(a) for a in node["args"]]
    if op in ("and", "or"):
        return "(" + f" {op.upper()} ".join(args) + ")"
    form = {
        "not": "(NOT {0})",
        "like": "({0} LIKE {1})",
        "between": "({0} BETWEEN {1} AND {2})",
        "in": "({0} IN {1})",
        "isNull": "({0} IS NULL)",
        "casei": "CASEI({0})",
    }.get(op)
    if form:
        return form.format(*args)
    if op in RELATIONS:
        return f"{op.upper()}({args[0]}, {args[1]})"
    return f"({args[0]} {op} {args[1]})"


def properties(node, out):
    """The property names `node` reads."""
    if isinstance(node, list):
        for n in node:
            properties(n, out)
    elif isinstance(node, dict):
        if "property" in node:
            out.add(node["property"])
        for a in node.get("args", []):
            properties(a, out)
    return out


def item(records, i, names, crs):
    """Record `i` as pygeofilter reads it: typed values, dates as dates, the point as shapely's."""
    out = {}
    for name in names:
        if name == "geometry":
            x, y = (records.columns[a][i] for a in AXES[crs])
            out[name] = shapely.Point(x, y)
        elif records.kinds[name] == DATE:
            out[name] = datetime.date.fromisoformat(records.columns[name][i])
        else:
            out[name] = records.columns[name][i]
    return out


def pygeofilter_opinion(expr, text, crs, records, server):
    """None where pygeofilter has no sound opinion of `expr`; else "" where it agrees with the
    server's answer to `text` (its cql2-text), or how it disagrees."""
    if not sound(expr):
        return None
    evaluator = NativeEvaluator(function_map={"lower": str.lower}, use_getattr=False)
    try:
        # Its WKT reader prints what it reads.
        with contextlib.redirect_stdout(io.StringIO()):
            test = evaluator.evaluate(parse(written(expr)))
    except Exception:  # pygeofilter cannot read it: no opinion
        return None
    names = properties(expr, set())
    columns = [a for n in names for a in (AXES[crs] if n == "geometry" else [n])]
    values = [records.columns[c] for c in columns]
    known = [i for i in range(records.n) if all(v[i] is not None for v in values)]
    # Every record of a small dataset; of a large one, an even spread of them (it is slow).
    known = known[:: 1 + len(known) // SAMPLE]
    try:
        chosen = {records.ids[i] for i in known if test(item(records, i, names, crs))}
    except Exception:  # it fails on a record: no opinion
        return None
    got = server.ids(text, "cql2-text", crs)
    if isinstance(got, tuple):
        return f"pygeofilter selects {len(chosen)}, the server answered {got[0]} {got[1]}"
    got &= {records.ids[i] for i in known}
    if got != chosen:
        extra, lacking = sorted(got - chosen), sorted(chosen - got)
        return (
            f"of the {len(known)} records with every property it names, pygeofilter selects "
            f"{len(chosen)} and the server {len(got)}: the server's extra {extra[:8]}, "
            f"missing {lacking[:8]}"
        )
    return ""
