#!/usr/bin/env python3
"""A fuzz of the loader with hostile and damaged inputs (issue 36, part 6).

Cases are built from the bundled sample (data/sample/) and the shared real files (read, never
copied into the repository), one folder per case, each from a seeded random generator named by
the case so that any case can be built and run again alone. Each case is run with the loader
under GNU time, one loader at a time, and the run must end (refused or loaded) within 15 s and
256 MiB of peak RSS, with no signal and no panic.

    python3 bench/loader_fuzz.py [--loader BIN] [--cases DIR] [--only SUBSTRING] [--keep]
                                 [--list] [--json OUT.json]

By default a case is built, run and deleted before the next is built, so the disk holds one case
at a time (the largest is about 45 MB; the bombs are small on disk by design).
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(REPO, "data", "sample")
REAL = os.path.join(os.path.dirname(REPO), "shared", "data", "real")
TIME_LIMIT_S = 15.0
RSS_LIMIT_KB = 256 * 1024
TIMEOUT_S = 60

MB = 1 << 20


# --- Inputs ---------------------------------------------------------------------------------


def sample(name):
    with open(os.path.join(SAMPLE, name), "rb") as f:
        return f.read()


SAMPLE_FILES = sorted(os.listdir(SAMPLE))
RAW = "dft_traffic_counts_raw_counts.csv"
CP = "count_points.csv"
AADF = "dft_traffic_counts_aadf.csv"
LA = "local_authority_traffic.csv"


def real_files():
    """The shared real CSVs (path, name), or none when ../shared is absent."""
    out = []
    if os.path.isdir(REAL):
        for d, _, files in sorted(os.walk(REAL)):
            for f in sorted(files):
                if f.endswith(".csv"):
                    out.append((os.path.join(d, f), f))
    return out


def split_header(text):
    nl = text.index(b"\n")
    return text[: nl + 1], text[nl + 1 :]


def rows_of(text):
    return text.split(b"\n")


def write(case_dir, name, data):
    path = os.path.join(case_dir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


def with_sample(case_dir, skip=()):
    for name in SAMPLE_FILES:
        if name not in skip:
            write(case_dir, name, sample(name))


def zip_bytes(members, method=zipfile.ZIP_DEFLATED, level=9, force_zip64=False):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method, compresslevel=level) as z:
        for name, data in members:
            with z.open(name, "w", force_zip64=force_zip64) as m:
                m.write(data)
    return buf.getvalue()


def zip_streamed(path, name, chunks, force_zip64=False):
    """A zip of one deflated member written chunk by chunk (a bomb without its bytes in memory)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open(name, "w", force_zip64=force_zip64) as m:
            for c in chunks:
                m.write(c)


# --- Case families ----------------------------------------------------------------------------
#
# Each family yields (name, builder); a builder takes (case_dir, rng) and writes the inputs. The
# case's inputs are the folder itself unless the builder returns a list of paths.

CASES = []


def family(name):
    """Registers every (case name, builder) a generator function yields under `name`."""

    def register(gen):
        for case_name, fn in gen():
            CASES.append((name, f"{name}/{case_name}", fn))
        return gen

    return register


@family("wide_header")
def wide_headers():
    for file in [CP, RAW, AADF, LA]:
        for cols in [1_000, 10_000, 100_015, 250_000]:
            for rows in [10, 3_630, 30_000]:

                def build(d, rng, file=file, cols=cols, rows=rows):
                    header, body = split_header(sample(file))
                    extra = b"".join(b",c%x" % i for i in range(cols))
                    body = (body * (rows // max(1, body.count(b"\n")) + 1))[: rows * 200]
                    write(d, file, header.rstrip(b"\n") + extra + b"\n" + body)

                yield f"{file}-{cols}cols-{rows}rows", build
    # A header that is the whole file: one 1 MB line, a 40 MB line.
    for size in [1 * MB, 10 * MB, 40 * MB]:

        def build(d, rng, size=size):
            header, body = split_header(sample(CP))
            name = b"x" * (size - len(header))
            write(d, CP, header.rstrip(b"\n") + b"," + name + b"\n" + body)

        yield f"one-header-name-{size // MB}MB", build

        def build_only(d, rng, size=size):
            write(d, CP, b",".join([b"count_point_id"] * (size // 15)) + b"\n")

        yield f"header-only-{size // MB}MB-repeated", build_only


@family("header_names")
def header_names():
    mutations = {
        "empty-names": lambda h, r: b"," * (h.count(b",") * 3) + b"\n",
        "all-empty-plus-key": lambda h, r: h.rstrip(b"\n") + b"," * 5000 + b"\n",
        "repeated-first": lambda h, r: b",".join([h.split(b",")[0]] * 100_000) + b"\n",
        "repeated-all": lambda h, r: (h.rstrip(b"\n") + b",") * 2000 + b"x\n",
        "unicode": lambda h, r: "ĉôúñţ_ƥöîñţ_íđ,年,🚗🚗,\u200b,\ufeffyear\n".encode(),
        "unicode-wide": lambda h, r: ",".join(f"列{i}🚗" for i in range(50_000)).encode()
        + b"\n",
        "bom-twice": lambda h, r: b"\xef\xbb\xbf\xef\xbb\xbf" + h,
        "quoted-newlines": lambda h, r: h.replace(b",", b',"a\nb",', 3),
        "case-changed": lambda h, r: h.upper(),
        "spaces": lambda h, r: h.replace(b",", b" , "),
        "tabs": lambda h, r: h.replace(b",", b"\t"),
        "semicolons": lambda h, r: h.replace(b",", b";"),
        "nul-names": lambda h, r: h.replace(b"_", b"\0"),
        "shuffled": lambda h, r: b",".join(
            r.sample(h.rstrip(b"\n").split(b","), h.count(b",") + 1)
        )
        + b"\n",
        "missing-one": lambda h, r: b",".join(h.rstrip(b"\n").split(b",")[1:]) + b"\n",
        "header-alone": None,
        "no-header": None,
        "long-quoted-name": lambda h, r: b'"' + b"q" * (900_000) + b'",' + h,
        "unterminated-quote-in-header": lambda h, r: b'"' + h,
    }
    for file in [CP, RAW, LA]:
        for name, mutate in mutations.items():

            def build(d, rng, file=file, name=name, mutate=mutate):
                header, body = split_header(sample(file))
                if name == "header-alone":
                    write(d, file, header)
                elif name == "no-header":
                    write(d, file, body)
                else:
                    write(d, file, mutate(header, rng) + body)

            yield f"{file}-{name}", build


@family("long_field")
def long_fields():
    for file in [CP, RAW, LA]:
        for size_mb in [2, 10, 45]:
            for quoted in [False, True]:

                def build(d, rng, file=file, size_mb=size_mb, quoted=quoted):
                    header, body = split_header(sample(file))
                    rows = rows_of(body)
                    field = b"9" * (size_mb * MB)
                    if quoted:
                        field = b'"' + field.replace(b"9", b"a", 1000) + b'"'
                    rows[1] = field + b"," + rows[1]
                    write(d, file, header + b"\n".join(rows))

                yield f"{file}-{size_mb}MB-{'quoted' if quoted else 'bare'}", build
        # An opening quote that is never closed: the rest of the file is one field.
        for tail_mb in [0, 5, 40]:

            def build(d, rng, file=file, tail_mb=tail_mb):
                header, body = split_header(sample(file))
                rows = rows_of(body)
                rows[2] = b'"' + rows[2]
                filler = b"a,b,c\n" * (tail_mb * MB // 6)
                write(d, file, header + b"\n".join(rows) + filler)

            yield f"{file}-unterminated-quote-{tail_mb}MB-to-eof", build
    # 100 MB in one field: zipped (small on disk), and --max-record-bytes raised to it.
    for size_mb in [100, 300]:

        def build(d, rng, size_mb=size_mb):
            header, body = split_header(sample(CP))
            chunks = [header, b"501,2024,"] + [b"7" * MB] * size_mb + [b"\n", body]
            zip_streamed(os.path.join(d, "long.zip"), CP, chunks)

        yield f"zipped-{size_mb}MB-field", build

        # `build` bound now: a name looked up when called is the last loop's (300 MB).
        def build_raised(d, rng, build=build):
            build(d, rng)
            return ["--max-record-bytes", str(400 * MB), os.path.join(d, "long.zip")]

        yield f"zipped-{size_mb}MB-field-limit-raised", build_raised


@family("many_rows")
def many_rows():
    for file in [CP, RAW, LA]:
        for shape, line in [
            ("empty-lines", b"\n"),
            ("one-comma", b",\n"),
            ("one-digit", b"1\n"),
            ("crlf-only", b"\r\n"),
            ("quotes", b'""\n'),
        ]:

            def build(d, rng, file=file, line=line):
                header, _ = split_header(sample(file))
                write(d, file, header + line * (40 * MB // len(line)))

            yield f"{file}-{shape}-40MB", build


@family("wrong_width")
def wrong_width():
    for file in SAMPLE_FILES:
        for how in ["short", "long", "mixed", "empty-row", "one-field", "10k-fields"]:
            for seed in range(2):

                def build(d, rng, file=file, how=how):
                    header, body = split_header(sample(file))
                    rows = [r for r in rows_of(body) if r]
                    out = []
                    for r in rows:
                        fields = r.split(b",")
                        pick = how if how != "mixed" else rng.choice(["short", "long", "same"])
                        if rng.random() < 0.3 or how in ("one-field", "10k-fields"):
                            if pick == "short":
                                fields = fields[: rng.randrange(1, len(fields))]
                            elif pick == "long":
                                fields = fields + [b"x"] * rng.randrange(1, 50)
                            elif pick == "empty-row":
                                fields = [b""]
                            elif pick == "one-field":
                                fields = fields[:1]
                            elif pick == "10k-fields":
                                fields = fields + [b"1"] * 10_000
                        out.append(b",".join(fields))
                    write(d, file, header + b"\n".join(out) + b"\n")
                    with_sample(d, skip=(file,))

                yield f"{file}-{how}-{seed}", build


def flip_bytes(data, rng, count, alphabet):
    data = bytearray(data)
    for _ in range(count):
        data[rng.randrange(len(data))] = rng.choice(alphabet)
    return bytes(data)


@family("bytes")
def byte_damage():
    binary = list(range(256))
    kinds = {
        "nul": [0],
        "binary": binary,
        "invalid-utf8": [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF, 0xFE, 0xED],
        "quotes-commas": list(b'",\n\r'),
    }
    for file in SAMPLE_FILES:
        for kind, alphabet in kinds.items():
            for count in [1, 50]:

                def build(d, rng, file=file, alphabet=alphabet, count=count):
                    with_sample(d)
                    write(d, file, flip_bytes(sample(file), rng, count, alphabet))

                yield f"{file}-{kind}-x{count}", build
    # A file of random bytes; a file of NULs; a gzip named .csv; an ELF binary named .csv.
    for size_mb in [1, 40]:

        def build(d, rng, size_mb=size_mb):
            write(d, RAW, rng.randbytes(size_mb * MB))

        yield f"random-{size_mb}MB", build

        def build_nul(d, rng, size_mb=size_mb):
            header, _ = split_header(sample(RAW))
            write(d, RAW, header + b"\0" * (size_mb * MB))

        yield f"nul-{size_mb}MB-after-header", build_nul

    def gz_as_csv(d, rng):
        write(d, RAW, gzip.compress(sample(RAW), mtime=0))

    yield "gzip-named-csv", gz_as_csv

    def gz_beside(d, rng):
        with_sample(d)
        write(d, RAW + ".gz", gzip.compress(sample(RAW), mtime=0))
        return [os.path.join(d, RAW + ".gz")]

    yield "gzip-given-alone", gz_beside

    def gz_in_folder(d, rng):
        with_sample(d, skip=(RAW,))
        write(d, RAW + ".gz", gzip.compress(sample(RAW), mtime=0))

    yield "gzip-in-folder", gz_in_folder

    def gz_bomb(d, rng):
        header, body = split_header(sample(RAW))
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        out = [comp.compress(header)]
        row = rows_of(body)[0] + b"\n"
        chunk = row * (MB // len(row))
        for _ in range(1024):
            out.append(comp.compress(chunk))
        out.append(comp.flush())
        write(d, RAW, b"".join(out))

    yield "gzip-bomb-named-csv", gz_bomb

    def elf(d, rng):
        with open(sys.executable, "rb") as f:
            write(d, RAW, f.read(8 * MB))

    yield "elf-named-csv", elf


@family("encoding")
def encodings():
    for file in SAMPLE_FILES:
        for enc, bom in [
            ("utf-16-le", b"\xff\xfe"),
            ("utf-16-be", b"\xfe\xff"),
            ("utf-16-le", b""),
            ("utf-16-be", b""),
            ("utf-32-le", b"\xff\xfe\x00\x00"),
            ("utf-8", b"\xef\xbb\xbf"),
        ]:

            def build(d, rng, file=file, enc=enc, bom=bom):
                text = sample(file).decode()
                write(d, file, bom + text.encode(enc))

            yield f"{file}-{enc}{'-bom' if bom else ''}", build
        # UTF-16 with a BOM, cut at an odd byte; with a lone surrogate.
        for damage in ["odd-cut", "lone-surrogate"]:

            def build(d, rng, file=file, damage=damage):
                data = b"\xff\xfe" + sample(file).decode().encode("utf-16-le")
                if damage == "odd-cut":
                    data = data[: len(data) // 2 * 2 - 1]
                else:
                    at = len(data) // 2 // 2 * 2
                    data = data[:at] + b"\x00\xd8" + data[at:]
                write(d, file, data)

            yield f"{file}-utf16-{damage}", build


@family("line_ends")
def line_ends():
    for file in SAMPLE_FILES:
        for name, end in [("crlf", b"\r\n"), ("cr-only", b"\r"), ("lfcr", b"\n\r"), ("mixed", None)]:

            def build(d, rng, file=file, end=end):
                lines = sample(file).split(b"\n")
                if end is None:
                    text = b"".join(l + rng.choice([b"\n", b"\r\n", b"\r"]) for l in lines)
                else:
                    text = end.join(lines)
                write(d, file, text)

            yield f"{file}-{name}", build
    # One 40 MB file of CR-only line ends: every row on one "line" to a CR-blind reader.

    def cr_big(d, rng):
        header, body = split_header(sample(RAW))
        body = body.replace(b"\n", b"\r")
        write(d, RAW, header.replace(b"\n", b"\r") + body * (40 * MB // len(body)))

    yield "raw-cr-only-40MB", cr_big


@family("repeated_rows")
def repeated_rows():
    for file in [CP, RAW, AADF, LA]:
        for kind in ["same-row", "whole-body", "bad-row"]:

            def build(d, rng, file=file, kind=kind):
                header, body = split_header(sample(file))
                row = rows_of(body)[0] + b"\n"
                if kind == "whole-body":
                    unit = body
                elif kind == "bad-row":
                    unit = b"x" + row
                else:
                    unit = row
                write(d, file, header + unit * (40 * MB // len(unit)))

            yield f"{file}-{kind}-40MB", build


OUT_OF_RANGE = [
    b"1e308", b"-1e308", b"1e309", b"-0", b"-0.0", b"NaN", b"nan", b"-inf", b"Infinity",
    b"99999999999999999999", b"-99999999999999999999", b"18446744073709551616",
    b"9223372036854775808", b"-9223372036854775809", b"0x7f", b"1_000", b"+5", b" 5", b"5 ",
    b"1.", b".5", b"1e", b"--1", b"\xd9\xa3", b"\xef\xbc\x95", b"1" * 400, b"0" * 400 + b"1",
    b"4.9e-324", b"2.5e-400", b"", b'""', b'"5"',
]


@family("numbers")
def numbers():
    # Each value in place of a number in a column that holds numbers.
    for file, column in [(RAW, 4), (RAW, 22), (CP, 0), (LA, 7)]:
        for i, value in enumerate(OUT_OF_RANGE):

            def build(d, rng, file=file, column=column, value=value):
                with_sample(d)
                header, body = split_header(sample(file))
                rows = rows_of(body)
                r = rng.randrange(len(rows) - 1)
                fields = rows[r].split(b",")
                if column < len(fields):
                    fields[column] = value
                rows[r] = b",".join(fields)
                write(d, file, header + b"\n".join(rows))

            yield f"{file}-col{column}-{i}", build


@family("dates")
def dates():
    bad = [
        b"2019-02-30", b"2023-13-01", b"2023-00-10", b"0000-01-01", b"9999-12-31", b"2023/10/23",
        b"23-10-2023", b"2023-10-23T07:00:00", b"2023-10-23 07:00:00", b"20231023",
        b"2023-1-2", b"2023-10-23\0", b"\xff\xfe", b"-2023-10-23", b"2023-10-32",
        b"1e3", b"2023-10", b"", b"2024-02-29", b"2023-02-29",
    ]
    for i, value in enumerate(bad):

        def build(d, rng, value=value):
            with_sample(d)
            text = sample(RAW)
            write(d, RAW, text.replace(b"2023-10-23", value, rng.randrange(1, 20)))

        yield f"count_date-{i}", build


# --- Zips -------------------------------------------------------------------------------------


@family("zip")
def zips():
    def repeated_row_bomb(d, rng, size_mb=1024, file=CP, zip64=False):
        header, body = split_header(sample(file))
        row = rows_of(body)[0] + b"\n"
        chunk = row * (MB // len(row))
        n = size_mb * MB // len(chunk)
        zip_streamed(os.path.join(d, "bomb.zip"), file, [header] + [chunk] * n, zip64)

    for file in [CP, RAW, LA]:
        for size_mb in [256, 1024]:
            yield f"bomb-{file}-repeated-row-{size_mb}MB", (
                lambda d, rng, f=file, s=size_mb: repeated_row_bomb(d, rng, s, f)
            )
    yield "bomb-cp-repeated-row-1GiB-zip64", (
        lambda d, rng: repeated_row_bomb(d, rng, 1024, CP, True)
    )

    def bomb_bad_rows(d, rng):
        header, body = split_header(sample(RAW))
        row = b"x" + rows_of(body)[0] + b"\n"
        chunk = row * (MB // len(row))
        zip_streamed(os.path.join(d, "bomb.zip"), RAW, [header] + [chunk] * 1024)

    yield "bomb-raw-unreadable-row-1GiB", bomb_bad_rows

    def bomb_nul(d, rng):
        zip_streamed(os.path.join(d, "bomb.zip"), RAW, [b"\0" * MB] * 2048, force_zip64=True)

    yield "bomb-nul-2GiB", bomb_nul

    def bomb_newlines(d, rng):
        header, _ = split_header(sample(RAW))
        zip_streamed(os.path.join(d, "bomb.zip"), RAW, [header] + [b"\n" * MB] * 1024)

    yield "bomb-empty-lines-1GiB", bomb_newlines

    def bomb_commas(d, rng):
        header, _ = split_header(sample(CP))
        zip_streamed(os.path.join(d, "bomb.zip"), CP, [header] + [b"," * MB] * 1024)

    yield "bomb-one-line-of-commas-1GiB", bomb_commas

    def bomb_wide_header(d, rng):
        header, body = split_header(sample(CP))
        extra = b"".join(b",c%x" % i for i in range(100_000))
        row = rows_of(body)[0] + b"\n"
        chunk = row * (MB // len(row))
        zip_streamed(
            os.path.join(d, "bomb.zip"), CP, [header.rstrip(b"\n") + extra + b"\n"] + [chunk] * 256
        )

    yield "bomb-wide-header-256MB-rows", bomb_wide_header

    def many_bombs(d, rng):
        header, body = split_header(sample(CP))
        row = rows_of(body)[0] + b"\n"
        chunk = row * (MB // len(row))
        with zipfile.ZipFile(os.path.join(d, "many.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for i in range(8):
                with z.open(f"cp{i}.csv", "w") as m:
                    m.write(header)
                    for _ in range(128):
                        m.write(chunk)

    yield "eight-members-of-128MB", many_bombs

    def nested(depth):
        def build(d, rng):
            data = zip_bytes([(CP, sample(CP))])
            for i in range(depth):
                data = zip_bytes([(f"level{i}.zip", data)])
            write(d, "nested.zip", data)
            with_sample(d, skip=(CP,))

        return build

    for depth in [1, 3, 20]:
        yield f"nested-{depth}", nested(depth)

    def nested_zip_named_csv(d, rng):
        write(d, "n.zip", zip_bytes([(CP, zip_bytes([(CP, sample(CP))]))]))

    yield "zip-inside-named-csv", nested_zip_named_csv

    for n in [1_000, 10_000, 60_000]:
        for content in ["sample", "empty", "header"]:

            def build(d, rng, n=n, content=content):
                header, _ = split_header(sample(LA))
                data = {"sample": sample(LA), "empty": b"", "header": header}[content]
                with zipfile.ZipFile(os.path.join(d, "many.zip"), "w", zipfile.ZIP_DEFLATED) as z:
                    for i in range(n):
                        z.writestr(f"la/{i:06d}.csv", data)

            yield f"many-entries-{n}-{content}", build

    for n in [10_000]:

        def build(d, rng, n=n):
            with zipfile.ZipFile(os.path.join(d, "many.zip"), "w", zipfile.ZIP_STORED) as z:
                for i in range(n):
                    z.writestr(f"junk/{i}.txt", b"")
                z.writestr(CP, sample(CP))

        yield f"many-non-csv-entries-{n}", build

    for name in ["../count_points.csv", "../../../../../../tmp/evil.csv", "/etc/cron.d/x.csv",
                 "a/../../b.csv", "C:\\evil\\count_points.csv", "count_points.csv\0.txt",
                 "\xff.csv", "./count_points.csv", "a" * 60_000 + ".csv", ""]:

        def build(d, rng, name=name):
            raw = name.encode("utf-8") if name != "\xff.csv" else b"\xff.csv"
            write(d, "paths.zip", rename_member(sample(CP), raw))

        yield f"member-path-{hashlib.sha1(name.encode()).hexdigest()[:8]}", build

    for target in ["/etc/passwd", "../../../etc/shadow", "count_points.csv", "/dev/zero"]:

        def build(d, rng, target=target):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                info = zipfile.ZipInfo("link.csv")
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                info.create_system = 3
                z.writestr(info, target)
                z.writestr(CP, sample(CP))
            write(d, "links.zip", buf.getvalue())

        yield f"symlink-member-{target.replace('/', '_')}", build

    for how in ["zero-length-member", "zero-length-zip", "only-dirs", "dir-named-csv"]:

        def build(d, rng, how=how):
            if how == "zero-length-zip":
                write(d, "empty.zip", b"")
                with_sample(d)
                return
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                if how == "zero-length-member":
                    z.writestr(CP, b"")
                    z.writestr(LA, sample(LA))
                elif how == "only-dirs":
                    z.writestr(zipfile.ZipInfo("a/"), b"")
                else:
                    z.writestr(zipfile.ZipInfo("count_points.csv/"), b"")
                    z.writestr("count_points.csv/x.csv", sample(CP))
            write(d, "z.zip", buf.getvalue())

        yield how, build

    # Cut short at seeded places: in the local header, the data, the central directory, the end.
    for i in range(24):

        def build(d, rng, i=i):
            data = zip_bytes([(name, sample(name)) for name in SAMPLE_FILES])
            cut = rng.randrange(1, len(data)) if i >= 4 else [1, 30, len(data) - 22, len(data) - 1][i]
            write(d, "cut.zip", data[:cut])

        yield f"truncated-{i}", build

    # Bytes damaged at seeded places in a zip of the sample.
    for i in range(30):

        def build(d, rng, i=i):
            data = zip_bytes([(name, sample(name)) for name in SAMPLE_FILES],
                             method=zipfile.ZIP_STORED if i % 2 else zipfile.ZIP_DEFLATED)
            write(d, "flipped.zip", flip_bytes(data, rng, 1 + i % 5, list(range(256))))

        yield f"flipped-{i}", build

    # Size fields that lie: a tiny declared size, a huge one, zip64 extra fields.
    for field, value in [("compressed", 0xFFFFFFFF), ("uncompressed", 0xFFFFFFFF),
                         ("uncompressed", 0), ("compressed", 0), ("offset", 0xFFFFFFFF),
                         ("offset", 0x7FFFFFFF), ("entries", 0xFFFF), ("cd-size", 0xFFFFFFFF)]:

        def build(d, rng, field=field, value=value):
            data = bytearray(zip_bytes([(CP, sample(CP))]))
            write(d, "lying.zip", patch_zip(data, field, value))

        yield f"lying-{field}-{value:x}", build

    for method in ["zip64-small", "bzip2", "lzma", "stored-big"]:

        def build(d, rng, method=method):
            if method == "zip64-small":
                data = zip_bytes([(n, sample(n)) for n in SAMPLE_FILES], force_zip64=True)
            elif method == "stored-big":
                header, body = split_header(sample(RAW))
                data = zip_bytes([(RAW, header + body * 400)], method=zipfile.ZIP_STORED)
            else:
                m = zipfile.ZIP_BZIP2 if method == "bzip2" else zipfile.ZIP_LZMA
                data = zip_bytes([(n, sample(n)) for n in SAMPLE_FILES], method=m)
            write(d, "z.zip", data)

        yield f"method-{method}", build

    def zip_as_csv(d, rng):
        write(d, CP, zip_bytes([(CP, sample(CP))]))

    yield "zip-named-csv", zip_as_csv

    def csv_as_zip(d, rng):
        write(d, "cp.zip", sample(CP))

    yield "csv-named-zip", csv_as_zip

    def encrypted_flag(d, rng):
        data = bytearray(zip_bytes([(CP, sample(CP))]))
        # General purpose flag bit 0 (encrypted) in the local and central headers.
        for sig, off in [(b"PK\x03\x04", 6), (b"PK\x01\x02", 8)]:
            at = data.find(sig)
            data[at + off] |= 1
        write(d, "enc.zip", bytes(data))

    yield "encrypted-flag", encrypted_flag


def rename_member(data, name):
    """A zip of one stored member whose name is the raw bytes `name` in both headers."""
    crc = zlib.crc32(data)
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(data),
                        len(data), len(name), 0) + name + data
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc,
                          len(data), len(data), len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local), 0)
    return local + central + end


def patch_zip(data, field, value):
    cd = data.find(b"PK\x01\x02")
    end = data.rfind(b"PK\x05\x06")
    if field == "compressed":
        struct.pack_into("<I", data, 18, value)
        struct.pack_into("<I", data, cd + 20, value)
    elif field == "uncompressed":
        struct.pack_into("<I", data, 22, value)
        struct.pack_into("<I", data, cd + 24, value)
    elif field == "offset":
        struct.pack_into("<I", data, cd + 42, value)
    elif field == "entries":
        struct.pack_into("<HH", data, end + 8, value, value)
    elif field == "cd-size":
        struct.pack_into("<I", data, end + 12, value)
    return bytes(data)


# --- Real files and mixtures --------------------------------------------------------------------


@family("real")
def real_mutations():
    for path, name in real_files():
        for kind in ["as-is", "bytes", "truncate", "wide-header", "utf16", "cr-only", "rows-x20"]:

            def build(d, rng, path=path, name=name, kind=kind):
                with open(path, "rb") as f:
                    data = f.read()
                if kind == "bytes":
                    data = flip_bytes(data, rng, 40, list(range(256)))
                elif kind == "truncate":
                    data = data[: rng.randrange(len(data))]
                elif kind == "wide-header":
                    header, body = split_header(data)
                    extra = b"".join(b",c%x" % i for i in range(100_000))
                    data = header.rstrip(b"\r\n") + extra + b"\n" + body
                elif kind == "utf16":
                    data = b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le")
                elif kind == "cr-only":
                    data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
                elif kind == "rows-x20":
                    header, body = split_header(data)
                    data = header + body * 20
                write(d, name, data)

            yield f"{name[:40]}-{kind}", build


@family("mixture")
def mixtures():
    hostile = {
        "wide-header": lambda rng: split_header(sample(CP))[0].rstrip(b"\n")
        + b"".join(b",c%x" % i for i in range(100_015))
        + b"\n"
        + split_header(sample(CP))[1] * 300,
        "random": lambda rng: rng.randbytes(MB),
        "empty": lambda rng: b"",
        "header-only": lambda rng: split_header(sample(RAW))[0],
        "utf16-no-bom": lambda rng: sample(LA).decode().encode("utf-16-le"),
        "unknown-columns": lambda rng: b"a,b,c\n1,2,3\n",
        "duplicate-of-sample": lambda rng: sample(RAW),
        "long-field": lambda rng: split_header(sample(RAW))[0] + b"9" * (20 * MB) + b"\n",
    }
    for kind, make in hostile.items():
        for where in ["beside", "in-zip", "subfolder"]:

            def build(d, rng, make=make, where=where):
                with_sample(d)
                data = make(rng)
                if where == "beside":
                    write(d, "zz_extra.csv", data)
                elif where == "in-zip":
                    write(d, "zz_extra.zip", zip_bytes([("zz_extra.csv", data)]))
                else:
                    write(d, "deeper/and/deeper/zz_extra.csv", data)

            yield f"{kind}-{where}", build
    # The whole sample zipped with one hostile member.
    for kind, make in hostile.items():

        def build(d, rng, make=make):
            members = [(n, sample(n)) for n in SAMPLE_FILES] + [("zz_extra.csv", make(rng))]
            write(d, "release.zip", zip_bytes(members))

        yield f"{kind}-member-of-release-zip", build


# --- Running ------------------------------------------------------------------------------------


def run_case(loader, case_dir, out_dir, args):
    db = os.path.join(out_dir, "x.db")
    measured = os.path.join(out_dir, "time.txt")
    tmp = os.path.join(out_dir, "tmp")
    os.makedirs(tmp, exist_ok=True)
    # `timeout` inside GNU time: the loader is killed even if it leaves this script's process
    # group, and time still reports its peak RSS (a waited-for grandchild's counts).
    cmd = ["nice", "-n", "10", "/usr/bin/time", "-o", measured, "-f", "%e %M",
           "timeout", "-s", "KILL", str(TIMEOUT_S), loader, "--quiet", "--db", db]
    cmd += args or [case_dir]
    env = dict(os.environ, TMPDIR=tmp, SQLITE_TMPDIR=tmp, RUST_BACKTRACE="1")
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    timed_out = False
    try:
        _, err = proc.communicate(timeout=TIMEOUT_S + 30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        timed_out = True
    wall = time.monotonic() - started
    report = open(measured).read() if os.path.exists(measured) else ""
    sig = re.search(r"Command terminated by signal (\d+)", report)
    last = report.strip().splitlines()[-1].split() if report.strip() else []
    seconds, rss = (float(last[0]), int(last[1])) if len(last) == 2 else (wall, -1)
    stderr = err.decode("utf-8", "replace")
    first = next((l for l in stderr.splitlines() if l.strip()), "")
    code = proc.returncode
    # 128 + N: the loader (or `timeout`, killing it at the limit) ended by signal N.
    signum = int(sig.group(1)) if sig else (code - 128 if code and code > 128 else None)
    timed_out = timed_out or (signum == 9 and seconds >= TIMEOUT_S - 1)
    return {
        "code": None if (signum or timed_out) else code,
        "signal": signum or (9 if timed_out else None),
        "timed_out": timed_out,
        "seconds": seconds,
        "rss_kb": rss,
        "stderr_first": first[:200],
        "panicked": "panicked at" in stderr or "RUST_BACKTRACE" in stderr
        or "stack backtrace" in stderr,
    }


def verdict(r):
    bad = []
    if r["timed_out"]:
        bad.append(f"killed after {TIMEOUT_S}s")
    elif r["signal"]:
        bad.append(f"signal {r['signal']}")
    if r["panicked"]:
        bad.append("panic")
    if r["code"] not in (0, 1) and not r["signal"]:
        bad.append(f"exit {r['code']}")
    if r["seconds"] > TIME_LIMIT_S:
        bad.append(f"over {TIME_LIMIT_S:.0f} s")
    if r["rss_kb"] > RSS_LIMIT_KB:
        bad.append("over 256 MiB")
    return bad


def table(title, rows):
    print(f"\n{title}")
    print(f"{'case':<64} {'exit':>4} {'s':>7} {'RSS MB':>7}  first line of stderr")
    for r in rows:
        code = r["code"] if r["code"] is not None else f"s{r['signal']}"
        print(f"{r['case'][:64]:<64} {code!s:>4} {r['seconds']:7.2f} {r['rss_kb'] / 1024:7.1f}"
              f"  {r['stderr_first'][:70]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loader", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "roadtraffic-load"))
    ap.add_argument("--cases", default=os.path.join(tempfile.gettempdir(), "loader-fuzz-cases"))
    ap.add_argument("--only", help="run the cases whose name this regular expression finds")
    ap.add_argument("--keep", action="store_true", help="keep each case's folder after its run")
    ap.add_argument("--list", action="store_true", help="list the cases and run nothing")
    ap.add_argument("--json", help="write every case's result here")
    opts = ap.parse_args()

    cases = [c for c in CASES if not opts.only or re.search(opts.only, c[1])]
    if opts.list:
        for fam, name, _ in cases:
            print(name)
        print(f"{len(cases)} cases", file=sys.stderr)
        return 0
    os.makedirs(opts.cases, exist_ok=True)
    results = []
    for i, (fam, name, build) in enumerate(cases):
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
        case_dir = os.path.join(opts.cases, slug, "in")
        out_dir = os.path.join(opts.cases, slug, "out")
        shutil.rmtree(os.path.join(opts.cases, slug), ignore_errors=True)
        os.makedirs(case_dir)
        os.makedirs(out_dir)
        rng = random.Random(int(hashlib.sha256(name.encode()).hexdigest()[:16], 16))
        try:
            args = build(case_dir, rng)
        except Exception as e:  # a case this script cannot build is reported, not fatal
            print(f"[{i + 1}/{len(cases)}] {name}: not built: {e}", flush=True)
            shutil.rmtree(os.path.join(opts.cases, slug), ignore_errors=True)
            continue
        r = run_case(opts.loader, case_dir, out_dir, args)
        r.update(case=name, family=fam)
        r["bad"] = verdict(r)
        results.append(r)
        flag = " <-- " + ", ".join(r["bad"]) if r["bad"] else ""
        print(f"[{i + 1}/{len(cases)}] {name}: exit {r['code']} {r['seconds']:.2f}s "
              f"{r['rss_kb'] / 1024:.0f}MB{flag}", flush=True)
        if not opts.keep:
            shutil.rmtree(os.path.join(opts.cases, slug), ignore_errors=True)

    by_family = {}
    for r in results:
        by_family[r["family"]] = by_family.get(r["family"], 0) + 1
    print(f"\n{len(results)} cases: " + ", ".join(f"{f} {n}" for f, n in by_family.items()))
    print("exit 0 (loaded): %d, exit 1 (refused): %d" % (
        sum(r["code"] == 0 for r in results), sum(r["code"] == 1 for r in results)))
    table("Slowest 15", sorted(results, key=lambda r: -r["seconds"])[:15])
    table("Biggest 15 (peak RSS)", sorted(results, key=lambda r: -r["rss_kb"])[:15])
    bad = [r for r in results if r["bad"]]
    print(f"\nOver {TIME_LIMIT_S:.0f} s or 256 MiB, or crashed: {len(bad)}")
    for r in bad:
        print(f"  {r['case']}: {', '.join(r['bad'])}: {r['stderr_first'][:100]}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
