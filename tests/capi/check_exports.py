#!/usr/bin/env python3
"""capi/chunkarray.map is the committed export list of libchunkarray.so.1: check it is exact.

    check_exports.py MAP LIB HEADER...        check (the meson test capi_exports)
    check_exports.py --write MAP HEADER...    rewrite MAP from the headers (after adding a function)

Three sets must be equal: the functions the public headers declare (every `CA_API ... ca_x(...)`,
experimental and deprecated ones included; chunkarray/mpi.h belongs to libchunkarray_mpi and is
skipped), the names MAP lists, and what `nm -D --defined-only LIB` shows (the CA_1 version node
aside). A function declared but not listed is not exported (the linker hides it); one listed but
not defined is a stale line; anything else exported is a leak. Each difference is printed by name.
"""
import os
import re
import subprocess
import sys

DECL = re.compile(r'CA_API\s+([^;{}]*?)\b(ca_\w+)\s*\(([^;{}]*?)\)\s*;', re.S)
SKIP_HEADERS = {'mpi.h'}
HEAD = """/* The export list of libchunkarray.so.1 (linker version script): every public function, by name.
 * Written by tests/capi/check_exports.py --write from include/chunkarray/*.h; the meson test
 * capi_exports checks it against the headers and against nm -D of the library (docs/abi.md). */
CA_1 {
  global:
"""
TAIL = """  local:
    *;
};
"""


def header_names(headers):
    names = set()
    for h in headers:
        if os.path.basename(h) in SKIP_HEADERS:
            continue
        text = re.sub(r'/\*.*?\*/', ' ', open(h, encoding='utf-8').read(), flags=re.S)
        names.update(m.group(2) for m in DECL.finditer(text))
    return names


def map_names(path):
    text = re.sub(r'/\*.*?\*/', ' ', open(path, encoding='utf-8').read(), flags=re.S)
    m = re.search(r'global:(.*?)local:', text, re.S)
    if not m:
        sys.exit('%s: no "global: ... local:" section' % path)
    return {n.strip() for n in m.group(1).split(';') if n.strip()}


def lib_names(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if f:
            names.add(f[-1].split('@')[0])
    names.discard('CA_1')
    return names


def report(what, names):
    if names:
        print('%s (%d):' % (what, len(names)))
        for n in sorted(names):
            print('  ' + n)
    return bool(names)


def main():
    args = sys.argv[1:]
    if args and args[0] == '--write':
        path, headers = args[1], args[2:]
        names = header_names(headers)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(HEAD + ''.join('    %s;\n' % n for n in sorted(names)) + TAIL)
        print('%s: %d functions' % (path, len(names)))
        return 0
    if len(args) < 3:
        sys.exit(__doc__)
    mp, lib, headers = args[0], args[1], args[2:]
    declared, listed, exported = header_names(headers), map_names(mp), lib_names(lib)
    if any('*' in n or '?' in n for n in listed):
        print('%s lists a pattern, not names: %s' % (mp, ', '.join(sorted(n for n in listed if '*' in n or '?' in n))))
        return 1
    bad = report('declared in the headers but not in ' + mp, declared - listed)
    bad |= report('listed in %s but declared in no header' % mp, listed - declared)
    bad |= report('listed but not exported by ' + lib, listed - exported)
    bad |= report('exported by %s but not listed' % lib, exported - listed)
    if not bad:
        print('%d functions: headers, %s and %s agree' % (len(declared), os.path.basename(mp), os.path.basename(lib)))
    else:
        print('after adding or removing a function: tests/capi/check_exports.py --write capi/chunkarray.map '
              'include/chunkarray/*.h')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
