#!/usr/bin/env python3
"""Check every binding's C declarations and constants against the public headers (stdlib only).

    check_bindings.py <repo root>

The headers (include/chunkarray/*.h) are the truth. For each binding this fails, naming the
function or constant, when
  * Python (bindings/python/chunkarray/_lib.py, loaded without the library): a `_PROTOS` /
    `_OPTIONAL` prototype has another number of arguments, an argument or result of another kind
    (integer width and signedness, float, bool, pointer depth, struct by value) than the header's
    declaration, or names a function no header declares;
  * Rust (bindings/rust/src/sys.rs): the same for the `api!` declarations (`name: fn(..) -> R;`);
  * Julia (bindings/julia/src/ChunkArray.jl): the same for its `@ccall`s and mirrored structs
    (bindings/julia/check_abi.py does that part);
  * any binding defines an integer constant whose name is a header constant (CA_X, or X for CA_X:
    Python's ARG_NONE is CA_ARG_NONE) with another value: _lib.py, _codes.py, sys.rs, codes.rs,
    ChunkArray.jl, codes.jl. The generated code files are also checked against their tables by
    tools/gen_codes.py --check (the `codes_generated` test);
  * a Go source spells an operation code as a number instead of C.CA_* (Go's declarations are
    checked by its compiler: the `go` test builds the package against the headers).
Exits 1 listing every mismatch, one line each.
"""
import ctypes
import importlib.util
import os
import re
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "julia"))
import check_abi as jl  # noqa: E402  (the headers' parser and the Julia check)


# ---- the headers -----------------------------------------------------------------------------------

def header_constants(inc):
    """{name: int} of the headers' integer #defines and enum members (simple literals only)."""
    consts = {}
    for f in sorted(os.listdir(inc)):
        if not f.endswith(".h"):
            continue
        text = jl.strip_comments(open(os.path.join(inc, f)).read())
        for m in re.finditer(r"^\s*#\s*define\s+(CA_\w+)\s+(.+?)\s*$", text, flags=re.M):
            v = literal(m.group(2))
            if v is not None:
                consts[m.group(1)] = v
        for body in re.findall(r"typedef\s+enum\s+\w*\s*(?:CA_ENUM32\s*)?\{(.*?)\}", text, flags=re.S):
            for m in re.finditer(r"(CA_\w+)\s*=\s*([^,]+)", body):
                v = literal(m.group(2))
                if v is not None:
                    consts[m.group(1)] = v
    return consts


def literal(s):
    s = s.strip()
    m = re.match(r"^\(?\s*(-?)\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$", s)
    if not m:
        return None
    return int(m.group(2), 0) * (-1 if m.group(1) else 1)


def enum_types(inc):
    names = set()
    for f in sorted(os.listdir(inc)):
        if f.endswith(".h"):
            names |= set(re.findall(r"typedef\s+enum\s+\w*\s*(?:CA_ENUM32\s*)?\{.*?\}\s*(ca_\w+_t)\s*;",
                                    jl.strip_comments(open(os.path.join(inc, f)).read()), flags=re.S))
    return names


# A C type as (kind, pointer depth): kind is an integer kind ("i32", "u64"...), "f32"/"f64", "bool",
# "char", "void", "fnptr", "opaque" (a handle type) or "struct:<ca_x_t>".
C_KINDS = {
    "int8_t": "i8", "int16_t": "i16", "int32_t": "i32", "int64_t": "i64", "uint8_t": "u8", "uint16_t": "u16",
    "uint32_t": "u32", "uint64_t": "u64", "size_t": "u64", "int": "i32", "unsigned": "u32", "unsigned int": "u32",
    "double": "f64", "float": "f32", "bool": "bool", "char": "char", "void": "void",
    "ca_status_t": "i32", "ca_dtype_t": "i32",
}


def c_kind(t, opaque, structs, enums):
    base, depth = t
    if base == "fnptr":
        return ("fnptr", 0)
    if base in enums:
        return ("i32", depth)
    if base in opaque:
        return ("opaque", depth)
    if base in structs:
        return ("struct:" + base, depth)
    return (C_KINDS.get(base, "?" + base), depth)


def show(k):
    kind, depth = k
    return kind + "*" * depth


def compatible(c, b):
    """Whether binding kind b may stand for C kind c (void* stands for any pointer; an opaque handle
    pointer for any struct pointer of the same depth, as the bindings declare handles)."""
    if c == b:
        return True
    ck, cd = c
    bk, bd = b
    if ck == "fnptr":
        return b in (("fnptr", 0), ("void", 1))
    if cd != bd or cd == 0:
        return False
    if bk == "void" or ck == "void":
        return True
    return bk == "opaque" and (ck == "opaque" or ck.startswith("struct:"))


def check_function(errors, who, name, bargs, bret, funcs):
    """bargs/bret: binding kinds (None: not checkable)."""
    if name not in funcs:
        errors.append(f"{who}: {name} is not declared in any header")
        return
    cret, cargs = funcs[name]
    if len(bargs) != len(cargs):
        errors.append(f"{who}: {name} takes {len(bargs)} arguments, the header declares {len(cargs)}")
        return
    for i, (b, c) in enumerate(zip(bargs, cargs)):
        if b is not None and not compatible(c, b):
            errors.append(f"{who}: {name} argument {i + 1} is {show(b)}, the header has {show(c)}")
    if bret is not None and not compatible(cret, bret):
        errors.append(f"{who}: {name} returns {show(bret)}, the header has {show(cret)}")


# ---- Python (ctypes) -------------------------------------------------------------------------------

def ctypes_kind(t, struct_map):
    if t is None:
        return ("void", 0)
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):
        k, d = ctypes_kind(t._type_, struct_map)
        return (k, d + 1)
    if isinstance(t, type) and issubclass(t, ctypes.Structure):
        return ("struct:" + struct_map.get(t.__name__, "?" + t.__name__), 0)
    if isinstance(t, type) and issubclass(t, ctypes._CFuncPtr):
        return ("fnptr", 0)
    code = getattr(t, "_type_", None)
    if code == "z":
        return ("char", 1)
    if code == "P":
        return ("void", 1)
    if code == "?":
        return ("bool", 0)
    if code in ("f", "d"):
        return ("f32" if code == "f" else "f64", 0)
    if code == "c":
        return ("char", 0)
    if isinstance(code, str) and code in "bBhHiIlLqQ":
        return (("u" if code.isupper() else "i") + str(8 * ctypes.sizeof(t)), 0)
    return ("?" + getattr(t, "__name__", str(t)), 0)


def python_struct_map(mod, structs):
    """Python Structure class -> the C struct it mirrors, by name without case and underscores
    (Scalar: ca_scalar_t, _DimChunks: ca_dimchunks_t)."""
    by_key = {c[3:-2].replace("_", ""): c for c in structs}
    out = {}
    for n, v in vars(mod).items():
        if isinstance(v, type) and issubclass(v, ctypes.Structure) and v is not ctypes.Structure:
            out[n] = by_key.get(n.replace("_", "").lower(), "?" + n)
    return out


def check_python(root, funcs, structs, consts, errors):
    path = os.path.join(root, "bindings/python/chunkarray/_lib.py")
    spec = importlib.util.spec_from_file_location("_ca_lib_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    smap = python_struct_map(mod, structs)
    n = 0
    for table in ("_PROTOS", "_OPTIONAL"):
        for name, (res, args) in getattr(mod, table).items():
            n += 1
            bargs = [ctypes_kind(a, smap) for a in args]
            check_function(errors, "python _lib.py", name, bargs, ctypes_kind(res, smap), funcs)
    check_constants(errors, "python _lib.py", module_ints(mod), consts)
    for code, np_name in getattr(mod, "DTYPE_NAMES", {}).items():  # dtype code -> NumPy name
        cname = "CA_" + np_name.upper()
        if code != consts.get("CA_RAW") and consts.get(cname) != code:
            errors.append(f"python _lib.py: DTYPE_NAMES[{code}] = {np_name!r}, the header's {cname} is {consts.get(cname)}")
    for code, cname in getattr(mod, "STATUS_NAMES", {}).items():
        if consts.get(cname) != code:
            errors.append(f"python _lib.py: STATUS_NAMES[{code}] = {cname!r}, the header's {cname} is {consts.get(cname)}")
    cpath = os.path.join(root, "bindings/python/chunkarray/_codes.py")
    spec = importlib.util.spec_from_file_location("_ca_codes_check", cpath)
    cmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmod)
    check_constants(errors, "python _codes.py", module_ints(cmod), consts)
    for table in ("UNARY", "BINARY", "REDUCTIONS", "SCANS"):
        prefix = {"UNARY": "CA_OP_", "BINARY": "CA_OP_", "REDUCTIONS": "CA_RED_", "SCANS": "CA_SCAN_"}[table]
        valid = {v for k, v in consts.items() if k.startswith(prefix) and not k.endswith("_FORCE32")}
        for k, v in getattr(cmod, table).items():
            if v not in valid:
                errors.append(f"python _codes.py: {table}[{k!r}] = {v} is no {prefix}* value of the header")
    return n


def module_ints(mod):
    return {k: v for k, v in vars(mod).items() if re.match(r"^[A-Z][A-Z0-9_]*$", k) and type(v) is int}


def check_constants(errors, who, values, consts):
    for k, v in sorted(values.items()):
        for cname in (k, "CA_" + k):
            if cname in consts:
                if consts[cname] != v:
                    errors.append(f"{who}: {k} = {v}, the header's {cname} is {consts[cname]}")
                break


# ---- Rust ------------------------------------------------------------------------------------------

def rust_kind(t, aliases, opaque_aliases):
    t = t.strip()
    depth = 0
    while True:
        m = re.match(r"^\*\s*(?:mut|const)\s+(.*)$", t)
        if not m:
            break
        depth += 1
        t = m.group(1).strip()
    if t in aliases:
        k, d = rust_kind(aliases[t], aliases, opaque_aliases)
        return (k, d + depth)
    if t.startswith("Option<") or t.startswith("unsafe extern") or t.endswith("_fn"):
        return ("fnptr", 0) if depth == 0 else ("void", depth)
    prim = {"i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64", "u8": "u8", "u16": "u16", "u32": "u32",
            "u64": "u64", "usize": "u64", "isize": "i64", "f32": "f32", "f64": "f64", "bool": "bool",
            "c_char": "char", "c_void": "void", "()": "void", "c_int": "i32", "c_uint": "u32"}
    if t in prim:
        return (prim[t], depth)
    if t in opaque_aliases:
        return ("opaque", depth)
    if t.startswith("ca_") and t.endswith("_t"):
        return ("struct:" + t, depth)
    return ("?" + t, depth)


def check_rust(root, funcs, consts, errors):
    path = os.path.join(root, "bindings/rust/src/sys.rs")
    src = re.sub(r"//[^\n]*", "", open(path).read())
    aliases, opaque_aliases = {}, {"ca_opaque"}
    for m in re.finditer(r"^\s*(?:pub\s+)?type\s+(\w+)\s*=\s*([^;]+);", src, flags=re.M):
        name, t = m.group(1), m.group(2).strip()
        if t == "ca_opaque":
            opaque_aliases.add(name)
        elif not t.startswith("unsafe extern"):
            aliases[name] = t
    m = re.search(r"\bapi!\s*\{(.*)\n\}", src, flags=re.S)
    n = 0
    if not m:
        errors.append("rust sys.rs: no api! { ... } block found")
        return n
    for d in re.finditer(r"(\w+)\s*:\s*fn\s*\((.*?)\)\s*->\s*([^;]+);", m.group(1), flags=re.S):
        n += 1
        name, args, ret = d.group(1), d.group(2), d.group(3)
        bargs = [rust_kind(a, aliases, opaque_aliases) for a in jl.split_top(args)] if args.strip() else []
        check_function(errors, "rust sys.rs", name, bargs, rust_kind(ret, aliases, opaque_aliases), funcs)
    # lib.rs: the DType enum's discriminants and from_code's arms are the header's CA_<VARIANT> codes
    lib = re.sub(r"//[^\n]*", "", open(os.path.join(root, "bindings/rust/src/lib.rs")).read())
    m = re.search(r"pub\s+enum\s+DType\s*\{(.*?)\}", lib, flags=re.S)
    if not m:
        errors.append("rust lib.rs: no `pub enum DType` found")
    else:
        vals = {"CA_" + v.upper(): int(c) for v, c in re.findall(r"(\w+)\s*=\s*(\d+)", m.group(1))}
        check_constants(errors, "rust lib.rs DType", vals, consts)
    m = re.search(r"fn\s+from_code\b.*?\{(.*?)\n    \}", lib, flags=re.S)
    if m:
        vals = {"CA_" + v.upper(): int(c) for c, v in re.findall(r"(\d+)\s*=>\s*(\w+)", m.group(1))}
        check_constants(errors, "rust lib.rs DType::from_code", vals, consts)
    for f in ("sys.rs", "codes.rs"):
        text = open(os.path.join(root, "bindings/rust/src", f)).read()
        vals = {}
        for c in re.finditer(r"pub\s+const\s+(CA_\w+)\s*:\s*\w+\s*=\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*;", text):
            vals[c.group(1)] = int(c.group(2), 0)
        check_constants(errors, "rust " + f, vals, consts)
    return n


# ---- Julia -----------------------------------------------------------------------------------------

def check_julia(root, inc, consts, enums, errors):
    for e in enums:
        jl.SCALARS.setdefault(e, {"Int32", "Cint"})
    path = os.path.join(root, "bindings/julia/src/ChunkArray.jl")
    jerr, ncalls = jl.julia_errors(inc, path)
    errors.extend("julia " + e for e in jerr)
    src = re.sub(r"#[^\n]*", "", open(path).read())
    m = re.search(r"const\s+DTYPES\s*=\s*Dict\{DataType,\s*Int32\}\((.*?)\)\n", src, flags=re.S)
    if not m:
        errors.append("julia ChunkArray.jl: no `const DTYPES = Dict{DataType,Int32}(...)` found")
    else:
        jnames = {"ComplexF32": "CA_COMPLEX64", "ComplexF64": "CA_COMPLEX128"}
        vals = {jnames.get(t, "CA_" + t.upper()): int(c) for t, c in re.findall(r"(\w+)\s*=>\s*(\d+)", m.group(1))}
        check_constants(errors, "julia ChunkArray.jl DTYPES", vals, consts)
    for f in ("ChunkArray.jl", "codes.jl"):
        text = re.sub(r"#[^\n]*", "", open(os.path.join(root, "bindings/julia/src", f)).read())
        vals = {}
        for m in re.finditer(r"^const\s+([\w, ]+?)\s*=\s*(.+)$", text, flags=re.M):
            names = [x.strip() for x in m.group(1).split(",")]
            rhs = jl.split_top(m.group(2))
            if len(rhs) != len(names):
                continue
            for nm, v in zip(names, rhs):
                lit = re.match(r"^(?:Int32|Int64|UInt32|Cint)?\(?\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*\)?$", v.strip())
                if lit and nm.startswith("CA_"):
                    vals[nm] = int(lit.group(1), 0)
        check_constants(errors, "julia " + f, vals, consts)
    return ncalls


# ---- Go --------------------------------------------------------------------------------------------

def check_go(root, errors):
    """The operation codes come from the header through cgo: no numbers for them in Go sources."""
    d = os.path.join(root, "bindings/go")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".go"):
            continue
        for i, line in enumerate(open(os.path.join(d, f)), 1):
            m = re.match(r"^\s*((?:Op|Red|Scan)\w*(?:\s*,\s*(?:Op|Red|Scan)\w*)*)\s*=\s*(.+)$", line)
            if m and re.search(r"(?<![\w.])\d", m.group(2)):
                errors.append(f"go {f}:{i}: {m.group(1).strip()} spelled as numbers; use C.CA_* constants")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(HERE))
    inc = os.path.join(root, "include", "chunkarray")
    funcs_raw, opaque, structs, _ = jl.parse_headers(inc)
    enums = enum_types(inc)
    funcs = {n: (c_kind(r, opaque, structs, enums), [c_kind(p, opaque, structs, enums) for p in ps])
             for n, (r, ps) in funcs_raw.items()}
    consts = header_constants(inc)
    errors = []
    npy = check_python(root, funcs, structs, consts, errors)
    nrs = check_rust(root, funcs, consts, errors)
    njl = check_julia(root, inc, consts, enums, errors)
    check_go(root, errors)
    for e in errors:
        print("drift:", e)
    print(f"{len(funcs)} header functions, {len(consts)} header constants; checked {npy} Python prototypes, "
          f"{nrs} Rust declarations, {njl} Julia @ccall sites, the bindings' constants and Go's codes: "
          f"{len(errors)} mismatches")
    if errors:
        print("the headers are the truth: fix the binding's declaration (or, for CA_OP_/CA_RED_/CA_SCAN_ "
              "codes, run `python3 tools/gen_codes.py --write`)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
