#!/usr/bin/env python3
"""Check the Julia module's C calls against the public headers (no Julia toolchain is needed).

    check_abi.py <include/chunkarray dir> <ChunkArray.jl>

For every `@ccall $(sym(:NAME))(arg::T, ...)::R` in the module: NAME must be declared in a header
(or be one of the planned functions below), with the same number of arguments, and each Julia type
must match the C type (same pointer depth; Int32 for int32_t/ca_status_t/ca_dtype_t, Csize_t for
size_t, Cstring/Ptr{Cchar} for char *, Ptr{Cvoid} for opaque handles and function pointers, the
mirrored struct for struct pointers and by-value structs). Every Julia struct marked `# ca_x_t` must
have the C struct's fields in order with matching types. Exits 1 listing every mismatch.
"""
import os
import re
import sys

# Functions other work adds later: their planned C signatures ("ca_x": "ca_status_t ca_x(...);", enum
# parameters written as int32_t, which CA_ENUM32 makes them). Once a header declares the function,
# the header's declaration is the one checked: remove its entry then. Empty: every function the
# module calls is in the headers (insert/delete/choose/select/coarsen were planned until wt/surface).
PLANNED = {}

SCALARS = {
    "int8_t": {"Int8"}, "int16_t": {"Int16"}, "int32_t": {"Int32", "Cint"}, "int64_t": {"Int64"},
    "uint8_t": {"UInt8"}, "uint16_t": {"UInt16"}, "uint32_t": {"UInt32", "Cuint"}, "uint64_t": {"UInt64"},
    "size_t": {"Csize_t", "UInt64"}, "double": {"Cdouble", "Float64"}, "float": {"Cfloat", "Float32"},
    "bool": {"Bool"}, "void": {"Cvoid"}, "char": {"Cchar", "UInt8", "Int8"},
    "ca_status_t": {"Int32"}, "ca_dtype_t": {"Int32"}, "int": {"Cint", "Int32"},
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


def c_type(decl, fnptr_types):
    """(base, pointer depth) of a C declaration with or without a trailing name."""
    decl = decl.strip()
    if re.search(r"\(\s*\*", decl):
        return ("fnptr", 0)
    decl = re.sub(r"\bconst\b", " ", decl)
    decl = re.sub(r"\bstruct\s+", "", decl)
    nptr = decl.count("*")
    words = decl.replace("*", " ").split()
    base = words[0]
    if base in ("unsigned", "signed"):
        base = " ".join(words[:2])
    if base in fnptr_types and nptr == 0:
        return ("fnptr", 0)
    return (base, nptr)


def parse_headers(inc):
    text = ""
    for f in sorted(os.listdir(inc)):
        if f.endswith(".h"):
            with open(os.path.join(inc, f)) as fh:
                text += strip_comments(fh.read()) + "\n"
    opaque = set(re.findall(r"typedef\s+struct\s+\w+\s+(ca_\w+_t)\s*;", text))
    for e in re.findall(r"typedef\s+enum\s+\w*\s*(?:CA_ENUM32\s*)?\{.*?\}\s*(ca_\w+_t)\s*;", text, flags=re.S):
        SCALARS.setdefault(e, {"Int32", "Cint"})  # typed enums are 32 bits wide (CA_*__FORCE32)
    fnptr_types = set(re.findall(r"typedef\s+[^;()]*\(\s*\*\s*(ca_\w+)\s*\)", text))
    structs = {}
    for m in re.finditer(r"typedef\s+struct\s+\w*\s*\{(.*?)\}\s*(ca_\w+_t)\s*;", text, flags=re.S):
        body, name = m.group(1), m.group(2)
        if "union" in body or "struct {" in body.replace("struct\n", "struct ") or re.search(r"struct\s*\{", body):
            structs[name] = None  # nested aggregates: not mirrored field by field
            continue
        fields = []
        for decl in body.split(";"):
            decl = decl.strip()
            if not decl:
                continue
            if re.search(r"\(\s*\*", decl):
                fields.append(("fnptr", 0))
                continue
            first, *rest = split_top(decl)
            t = c_type(first, fnptr_types)
            fields.append(t)
            for r in rest:  # `double re, im;`
                fields.append((t[0], r.count("*") + t[1]))
        structs[name] = fields
    protos = {}
    decls = re.sub(r"^[ \t]*#.*$", " ", text, flags=re.M)  # not `#define CA_API ...`
    for m in re.finditer(r"CA_API\s+(.*?)\b(ca_\w+)\s*\((.*?)\)\s*;", decls, flags=re.S):
        protos[m.group(2)] = (re.sub(r"\bCA_DEPRECATED\([^)]*\)", " ", m.group(1)), m.group(3))
    for name, sig in PLANNED.items():
        if name not in protos:
            m = re.match(r"(.*?)\b(ca_\w+)\s*\((.*?)\)\s*;", sig)
            protos[name] = (m.group(1), m.group(3))
    funcs = {}
    for name, (ret, params) in protos.items():
        ps = [] if params.strip() in ("", "void") else [c_type(p, fnptr_types) for p in split_top(params)]
        funcs[name] = (c_type(ret + " x", fnptr_types), ps)
    return funcs, opaque, structs, fnptr_types


def julia_type(t):
    """(innermost name, pointer depth) of a Julia type expression."""
    t = t.strip()
    depth = 0
    while True:
        m = re.match(r"^(Ptr|Ref)\{(.*)\}$", t)
        if not m:
            break
        depth += 1
        t = m.group(2).strip()
    if t == "Cstring":
        return ("Cchar", depth + 1)
    return (t, depth)


def compatible(ct, jt, opaque, struct_names):
    base, n = ct
    jname, jn = jt
    if base == "fnptr":
        return (jname, jn) == ("Cvoid", 1)
    if n != jn:
        return False
    if n > 0 and jname == "Cvoid":
        return True  # any pointer is ABI-equal to Ptr{Cvoid}
    if base in opaque:
        return jname == "Cvoid"
    if base in struct_names:
        return jname == struct_names[base]
    return jname in SCALARS.get(base, set())


def parse_julia(path):
    with open(path) as f:
        src = f.read()
    code = re.sub(r"#[^\n]*", "", src)
    calls = []
    for m in re.finditer(r"@ccall\s+\$\(sym\(:(\w+)\)\)\(", code):
        i = m.end()
        depth = 1
        j = i
        while depth:
            if code[j] in "([{":
                depth += 1
            elif code[j] in ")]}":
                depth -= 1
            j += 1
        args = code[i:j - 1]
        rm = re.match(r"\s*::\s*([\w{}]+(?:\{[\w{}, ]*\})?)", code[j:])
        ret = rm.group(1) if rm else None
        line = code[:m.start()].count("\n") + 1
        arg_types = []
        for a in split_top(args):
            k = a.rfind("::")
            arg_types.append(a[k + 2:] if k >= 0 else None)
        calls.append((m.group(1), arg_types, ret, line))
    # mirrored structs: `struct CaX  # ca_x_t` followed by fields until `end`
    mirrors = {}
    for m in re.finditer(r"^struct\s+(\w+)\s*#\s*(ca_\w+_t)[^\n]*\n(.*?)^end", src, flags=re.M | re.S):
        fields = [f.split("::", 1)[1].strip() for f in m.group(3).splitlines() if "::" in f]
        mirrors[m.group(2)] = (m.group(1), fields)
    return calls, mirrors


def julia_errors(inc, jl):
    """(every mismatch of the module `jl` against the headers in `inc`, the number of @ccall sites)."""
    funcs, opaque, structs, fnptr_types = parse_headers(inc)
    calls, mirrors = parse_julia(jl)
    struct_names = {c: j for c, (j, _) in mirrors.items()}
    errors = []
    for cname, (jname, fields) in mirrors.items():
        if cname not in structs:
            errors.append(f"struct {jname}: {cname} is not a struct in the headers")
            continue
        cf = structs[cname]
        if cf is None:
            continue
        if len(cf) != len(fields):
            errors.append(f"struct {jname}: {len(fields)} fields, {cname} has {len(cf)}")
            continue
        for k, (c, j) in enumerate(zip(cf, fields)):
            if not compatible(c, julia_type(j), opaque, struct_names):
                errors.append(f"struct {jname} field {k + 1}: Julia {j} does not match C {c}")
    if not calls:
        errors.append("no @ccall found in " + jl)
    for name, args, ret, line in calls:
        where = f"{os.path.basename(jl)}:{line}: {name}"
        if name not in funcs:
            errors.append(f"{where}: not declared in any header")
            continue
        cret, cparams = funcs[name]
        if len(args) != len(cparams):
            errors.append(f"{where}: {len(args)} arguments, the header declares {len(cparams)}")
            continue
        for k, (a, c) in enumerate(zip(args, cparams)):
            if a is None:
                errors.append(f"{where}: argument {k + 1} has no ::Type")
            elif not compatible(c, julia_type(a), opaque, struct_names):
                errors.append(f"{where}: argument {k + 1} is {a}, the header has {c[0]}{'*' * c[1]}")
        if ret is None or not compatible(cret, julia_type(ret), opaque, struct_names):
            errors.append(f"{where}: returns {ret}, the header has {cret[0]}{'*' * cret[1]}")
    return errors, len(calls)


def main():
    inc, jl = sys.argv[1], sys.argv[2]
    errors, ncalls = julia_errors(inc, jl)
    for e in errors:
        print("error:", e)
    print(f"{ncalls} @ccall sites checked, {len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
