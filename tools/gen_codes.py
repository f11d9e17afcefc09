#!/usr/bin/env python3
"""Generate the public code constants from the engine's tables (Python 3 stdlib only).

    gen_codes.py [--root DIR] --check   exit 1 (saying which file differs and how) unless every
                                        generated file is up to date; what the meson test runs
    gen_codes.py [--root DIR] --write   rewrite them

The single source of each code set is an X-macro table in src/array/: ops.def (CA_OP_*),
reductions.def (CA_RED_*), scans.def (CA_SCAN_*). From them this writes
  * the enum blocks of include/chunkarray/array.h, between `@generated <set> begin/end` marker
    comments (the rest of the header is hand-written; the header stays committed and readable);
  * bindings/python/chunkarray/_codes.py, bindings/rust/src/codes.rs, bindings/julia/src/codes.jl;
  * bindings/go/codes.go: typed Go constants whose values are the header's, through cgo
    (`OpAdd Op = C.CA_OP_ADD`), with String() methods.
The engine reads the same tables (src/array/op_table.hpp) and static_asserts the header's values.
"""
import argparse
import difflib
import os
import re
import sys

TABLES = {
    # set: (def file, macro, columns, C prefix, C type, header comment)
    "ops": ("src/array/ops.def", "CA_OP",
            ["enum", "code", "arity", "name", "numpy", "result", "compute", "functor", "doc"],
            "CA_OP_", "ca_op_t",
            "Elementwise operators (ca_array_unary, ca_array_binary, ca_array_binary_scalar)."),
    "reductions": ("src/array/reductions.def", "CA_RED", ["enum", "code", "name", "base", "nan", "doc"],
                   "CA_RED_", "ca_reduction_t", "Builtin reductions (ca_array_reduce)."),
    "scans": ("src/array/scans.def", "CA_SCAN", ["enum", "code", "name", "prod", "nan", "doc"],
              "CA_SCAN_", "ca_scan_t", "Builtin scans (ca_array_scan)."),
}

HEADER = "include/chunkarray/array.h"
PYTHON = "bindings/python/chunkarray/_codes.py"
RUST = "bindings/rust/src/codes.rs"
JULIA = "bindings/julia/src/codes.jl"
GO = "bindings/go/codes.go"
REGEN = "python3 tools/gen_codes.py --write"


def split_args(s):
    out, cur, quoted = [], "", False
    for i, ch in enumerate(s):
        if ch == '"' and (i == 0 or s[i - 1] != "\\"):
            quoted = not quoted
        if ch == "," and not quoted:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def unquote(s):
    if not (len(s) >= 2 and s[0] == '"' and s[-1] == '"'):
        raise ValueError("expected a string literal, got %s" % s)
    return s[1:-1].replace('\\"', '"')


def read_table(root, kind):
    path, macro, cols = TABLES[kind][:3]
    rows, codes, enums = [], set(), set()
    with open(os.path.join(root, path)) as f:
        for lineno, line in enumerate(f, 1):
            m = re.match(r"^%s\((.*)\)\s*$" % macro, line)
            if not m:
                continue
            vals = split_args(m.group(1))
            where = "%s:%d" % (path, lineno)
            if len(vals) != len(cols):
                raise SystemExit("%s: %d columns, expected %d (%s)" % (where, len(vals), len(cols), ", ".join(cols)))
            row = dict(zip(cols, vals))
            row["code"] = int(row["code"], 0)
            for c in ("name", "numpy", "doc"):
                if c in row:
                    row[c] = unquote(row[c])
            if not re.match(r"^[A-Z][A-Z0-9_]*$", row["enum"]):
                raise SystemExit("%s: bad enum name %s" % (where, row["enum"]))
            if row["code"] in codes or row["enum"] in enums:
                raise SystemExit("%s: duplicate code %d or name %s" % (where, row["code"], row["enum"]))
            if not 0 <= row["code"] < 0x7fffffff:
                raise SystemExit("%s: code %d out of range" % (where, row["code"]))
            codes.add(row["code"])
            enums.add(row["enum"])
            rows.append(row)
    if not rows:
        raise SystemExit("%s: no %s rows" % (path, macro))
    return rows


def wrap_doc(doc, indent, width=112):
    """A /**< ... */ comment wrapped to width, continuation lines at indent."""
    words, lines, cur = doc.split(), [], "/**< "
    for w in words:
        if len(cur) + len(w) + 1 + indent > width and cur != "/**< ":
            lines.append(cur.rstrip())
            cur = "   "
        cur += w + " "
    lines.append(cur.rstrip() + " */")
    return ("\n" + " " * indent).join(lines)


def header_block(kind, rows):
    path, _, _, prefix, ctype, what = TABLES[kind]
    out = ["/** %s" % what, " * Values are pinned: never renumbered or reused.",
           " * Generated from %s by tools/gen_codes.py: edit the table, then run" % path,
           " * `%s`. 32 bits wide (CA_ENUM32, common.h). */" % REGEN,
           "typedef enum %s CA_ENUM32 {" % ctype]
    names = ["%s%s = %d," % (prefix, r["enum"], r["code"]) for r in rows]
    pad = max(len(n) for n in names) + 1
    last_arity = None
    for r, n in zip(rows, names):
        if kind == "ops" and r["arity"] != last_arity:
            out.append("  /* %s */" % ("unary" if r["arity"] == "1" else "binary"))
            last_arity = r["arity"]
        line = "  " + n
        if r["doc"]:
            line = "  " + n.ljust(pad) + wrap_doc(r["doc"], 2 + pad)
        out.append(line)
    out.append("  %s_FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */" % prefix)
    out.append("} %s;" % ctype)
    return "\n".join(out)


def markers(kind):
    return ("/* @generated %s begin: tools/gen_codes.py */" % kind, "/* @generated %s end */" % kind)


def gen_header(text, tables):
    for kind, rows in tables.items():
        begin, end = markers(kind)
        a, b = text.find(begin), text.find(end)
        if a < 0 or b < a:
            raise SystemExit("%s: the markers %r ... %r are missing" % (HEADER, begin, end))
        text = text[:a + len(begin)] + "\n" + header_block(kind, rows) + "\n" + text[b:]
    return text


def banner(comment):
    return ("%s Generated by tools/gen_codes.py from src/array/ops.def, reductions.def and scans.def:\n"
            "%s do not edit; change the tables and run `%s`.\n" % (comment, comment, REGEN))


def gen_python(tables):
    out = ['"""The C library\'s operation codes (include/chunkarray/array.h)."""', "# " + banner("#")[2:].rstrip()]
    for kind, rows in tables.items():
        prefix = TABLES[kind][3]
        out.append("")
        for r in rows:
            out.append("%s%s = %d" % (prefix, r["enum"], r["code"]))
    def mapping(name, doc, pairs):
        out.append("")
        out.append("# %s" % doc)
        out.append("%s = {" % name)
        for k, v in pairs:
            out.append('    "%s": %s,' % (k, v))
        out.append("}")
    ops = tables["ops"]
    # rows without a NumPy name are parts of a two-result function (frexp, modf): not a ufunc alone
    mapping("UNARY", "NumPy ufunc name -> CA_OP_* code (unary)",
            [(r["numpy"], "CA_OP_" + r["enum"]) for r in ops if r["arity"] == "1" and r["numpy"]])
    mapping("BINARY", "NumPy ufunc name -> CA_OP_* code (binary)",
            [(r["numpy"], "CA_OP_" + r["enum"]) for r in ops if r["arity"] == "2" and r["numpy"]])
    mapping("REDUCTIONS", "NumPy name -> CA_RED_* code", [(r["name"], "CA_RED_" + r["enum"]) for r in tables["reductions"]])
    mapping("SCANS", "NumPy name -> CA_SCAN_* code", [(r["name"], "CA_SCAN_" + r["enum"]) for r in tables["scans"]])
    return "\n".join(out) + "\n"


def gen_rust(tables):
    out = ["//! The C library's operation codes (include/chunkarray/array.h).", banner("//").rstrip()]
    for kind, rows in tables.items():
        prefix = TABLES[kind][3]
        out.append("")
        for r in rows:
            out.append("pub const %s%s: i32 = %d;" % (prefix, r["enum"], r["code"]))
    return "\n".join(out) + "\n"


def gen_julia(tables):
    out = ["# The C library's operation codes (include/chunkarray/array.h).", banner("#").rstrip()]
    for kind, rows in tables.items():
        prefix = TABLES[kind][3]
        out.append("")
        for r in rows:
            out.append("const %s%s = Int32(%d)" % (prefix, r["enum"], r["code"]))
    return "\n".join(out) + "\n"


GO_TYPES = {
    # set: (Go type, constant prefix, what it is)
    "ops": ("Op", "Op", "an elementwise operator (CA_OP_*) for Array.Unary, Array.Binary and Array.Scalar"),
    "reductions": ("Reduction", "Red", "a builtin reduction (CA_RED_*) for Array.Reduce"),
    "scans": ("Scan", "Scan", "a cumulative scan (CA_SCAN_*) for Array.Scan"),
}


def go_name(enum):
    """ARGMIN -> ArgMin, NANCUMSUM -> NanCumSum, ISFINITE -> IsFinite, FLOORDIV -> FloorDiv."""
    if enum == "FLOORDIV":
        return "FloorDiv"
    for prefix in ("NAN", "ARG", "CUM", "BIT", "IS"):
        if enum.startswith(prefix) and len(enum) > len(prefix):
            return prefix.capitalize() + go_name(enum[len(prefix):])
    return enum.capitalize()


def gen_go(tables):
    out = ["// Code generated by tools/gen_codes.py from src/array/ops.def, reductions.def and scans.def; DO NOT EDIT.",
           "// Change the tables and run `%s`." % REGEN, "",
           "package chunkarray", "", "// #include <chunkarray/chunkarray.h>", 'import "C"', "", 'import "strconv"']
    for kind, rows in tables.items():
        gotype, prefix, what = GO_TYPES[kind]
        cprefix = TABLES[kind][3]
        out += ["", "// %s is %s; the values are the C header's." % (gotype, what), "type %s int32" % gotype, "", "const ("]
        # laid out as gofmt does: names padded to one column, trailing comments aligned over each
        # run of consecutive commented lines
        width = max(len(prefix + go_name(r["enum"])) for r in rows)
        lines = [("\t%-*s %s = C.%s%s" % (width, prefix + go_name(r["enum"]), gotype, cprefix, r["enum"]), r.get("doc") or "")
                 for r in rows]
        i = 0
        while i < len(lines):
            if not lines[i][1]:
                out.append(lines[i][0])
                i += 1
                continue
            j = i
            while j < len(lines) and lines[j][1]:
                j += 1
            cw = max(len(code) for code, _ in lines[i:j])
            out += ["%-*s // %s" % (cw, code, doc) for code, doc in lines[i:j]]
            i = j
        out.append(")")
        out += ["", "// String is the operation's name (\"%s\", ...)." % rows[0]["name"], "func (v %s) String() string {" % gotype,
                "\tswitch v {"]
        for r in rows:
            out.append("\tcase %s%s:" % (prefix, go_name(r["enum"])))
            out.append("\t\treturn %s" % ('"' + r["name"] + '"'))
        out += ["\t}", '\treturn "%s(" + strconv.Itoa(int(v)) + ")"' % gotype, "}"]
    return "\n".join(out) + "\n"


def outputs(root):
    tables = {k: read_table(root, k) for k in TABLES}
    with open(os.path.join(root, HEADER)) as f:
        header = f.read()
    return {
        HEADER: gen_header(header, tables),
        PYTHON: gen_python(tables),
        RUST: gen_rust(tables),
        JULIA: gen_julia(tables),
        GO: gen_go(tables),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    a = ap.parse_args()
    stale = []
    for rel, text in outputs(a.root).items():
        path = os.path.join(a.root, rel)
        old = open(path).read() if os.path.exists(path) else ""
        if old == text:
            continue
        if a.write:
            with open(path, "w") as f:
                f.write(text)
            print("wrote", rel)
        else:
            stale.append(rel)
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       "a/" + rel, "b/" + rel))
    if stale:
        print("\nout of date with src/array/{ops,reductions,scans}.def: %s\nregenerate with `%s` (from %s)"
              % (", ".join(stale), REGEN, a.root))
        return 1
    if a.check:
        print("generated code constants are up to date (%s)" % ", ".join((HEADER, PYTHON, RUST, JULIA, GO)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
