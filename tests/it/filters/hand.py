"""Hand-written cql2-text cases whose answers are known: each with the ids it must select,
written as a plain Python test of each record (no CQL2 evaluator involved), or "400" where the
server must refuse it (issue 34's "Bad input")."""

from evaluate import DATE, GEOMETRY, NUMBER, TEXT


def quoted(text):
    return "'" + text.replace("'", "''") + "'"


def hand_cases(records):
    """The cases that the dataset's properties allow."""
    cols, kinds = records.columns, records.kinds
    every = set(records.ids)

    def where(test):
        return {id_ for i, id_ in enumerate(records.ids) if test(i)}

    cases = [
        ("7 / 2 = 3.5", every),
        ("7 % 2 = 1 AND -7 % 2 = -1 AND 7.5 % 2 = 1.5", every),
        ("7 div 2 = 3 AND div(-7, 2) = -3", every),
        ("2 ^ 10 = 1024", every),
        ("TRUE AND NOT FALSE", every),
        ("CASEI('ÀÉÎ Straße ΟΔΟΣ') = 'àéî straße οδος'", every),
        ("'a' < 'b' AND 'B' < 'a' AND 'a' <> 'A'", every),
        ("id / 0 IS NULL AND id % 0 IS NULL AND div(id, 0) IS NULL", every),
        ("NOT (id / 0 > 1)", set()),
        ("id IN (1, NULL)", where(lambda i: records.ids[i] == 1)),
        ("NOT id IN (1, NULL)", set()),
        ("id = NULL OR NOT id = NULL", set()),
        ("id > 2 AND id < 2", set()),
        ("id BETWEEN 5 AND 3", set()),
        ("NOT id IS NULL", every),
        ("id = 'x'", "400"),
        ("nope = 1", "400"),
        ("id", "400"),
        ("id + 1", "400"),
        ("T_BEFORE(id, DATE('2019-01-01'))", "400"),
        ("A_CONTAINS(id, (1, 2))", "400"),
        ("ACCENTI(id) = 1", "400"),
        ("id = DATE('2019-02-30')", "400"),
    ]
    texts = [n for n, k in kinds.items() if k == TEXT and any(isinstance(v, str) and
             v.swapcase() != v for v in cols[n])]
    if texts:
        cases += text_cases(texts[0], cols[texts[0]], where)
    if "all_hgvs" in cols and "all_motor_vehicles" in cols:
        hgvs, motor = cols["all_hgvs"], cols["all_motor_vehicles"]
        cases.append((
            "all_hgvs * 5 > all_motor_vehicles",
            where(lambda i: None not in (hgvs[i], motor[i]) and hgvs[i] * 5 > motor[i]),
        ))
    dates = [n for n, k in kinds.items() if k == DATE]
    if dates:
        cases += date_cases(dates[0], cols[dates[0]], where)
    if "latitude" in cols and kinds.get("latitude") == NUMBER:
        cases += decimal_cases(cols["latitude"], where)
    if kinds.get("geometry") == GEOMETRY:
        cases += spatial_cases(cols["longitude"], cols["latitude"], where)
    return cases


def text_cases(name, values, where):
    """`=` and LIKE mind case, CASEI folds it, a doubled quote is a quote."""
    v = next(v for v in values if isinstance(v, str) and v.swapcase() != v)
    other = v.swapcase()
    first = v[0].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return [
        (f"{name} = {quoted(v)}", where(lambda i: values[i] == v)),
        (f"{name} = {quoted(other)}", where(lambda i: values[i] == other)),
        (
            f"CASEI({name}) = CASEI({quoted(other)})",
            where(lambda i: values[i] is not None and values[i].lower() == v.lower()),
        ),
        (
            f"{name} LIKE {quoted(first + '%')}",
            where(lambda i: values[i] is not None and values[i].startswith(v[0])),
        ),
        (
            f"{name} LIKE {quoted('_' * len(v))}",
            where(lambda i: values[i] is not None and len(values[i]) == len(v)),
        ),
        (f"{name} = 'O''Brien'", where(lambda i: values[i] == "O'Brien")),
        (f"{name} = 1", "400"),
    ]


def date_cases(name, values, where):
    """A date compares with DATE('...') and with text that spells one, and with nothing else."""
    d = sorted(v for v in values if v is not None)[len(values) // 2]
    return [
        (f"{name} = '{d}'", where(lambda i: values[i] == d)),
        (f"{name} = DATE('{d}')", where(lambda i: values[i] == d)),
        (f"{name} > '{d}'", where(lambda i: values[i] is not None and values[i] > d)),
        (f"{name} = 'tomorrow'", "400"),
    ]


def decimal_cases(latitudes, where):
    """Latitude is a number, though the records carry it as a string."""
    known = sorted(v for v in latitudes if v is not None)
    if not known:
        return []
    middle = known[len(known) // 2]
    return [
        (f"latitude > {middle!r}", where(lambda i: latitudes[i] is not None and
                                          latitudes[i] > middle)),
        ("latitude = 'x'", "400"),
    ]


def spatial_cases(lons, lats, where):
    """A record asked for by its own point; the points in and out of a box around it; the
    records without a point."""
    at = next((i for i, (x, y) in enumerate(zip(lons, lats)) if None not in (x, y)), None)
    cases = [("geometry IS NULL", where(lambda i: None in (lons[i], lats[i])))]
    if at is None:
        return cases
    x, y = lons[at], lats[at]
    box = (x - 0.05, y - 0.05, x + 0.05, y + 0.05)
    inside = where(lambda i: None not in (lons[i], lats[i]) and box[0] < lons[i] < box[2]
                   and box[1] < lats[i] < box[3])
    has_point = where(lambda i: None not in (lons[i], lats[i]))
    same = where(lambda i: (lons[i], lats[i]) == (x, y))
    return cases + [
        (f"S_INTERSECTS(geometry, POINT({x!r} {y!r}))", same),
        (f"S_EQUALS(POINT({x!r} {y!r}), geometry)", same),
        (f"S_DISJOINT(geometry, POINT({x!r} {y!r}))", has_point - same),
        (f"S_WITHIN(geometry, BBOX({', '.join(map(repr, box))}))", inside),
        (f"NOT S_WITHIN(geometry, BBOX({', '.join(map(repr, box))}))", has_point - inside),
        ("S_INTERSECTS(geometry, POINT(200 0))", "400"),
        ("S_INTERSECTS(geometry, 1)", "400"),
        ("geometry = 1", "400"),
    ]
