#!/usr/bin/env python3
"""The engine's layering, checked on the built archives (docs/architecture.md).

usage: check_layering.py NM 'CC COMMAND' LAYER=ARCHIVE ...   (lowest layer first)

Each layer may use only the layers listed before it. For every layer this reads the symbols its
archive leaves undefined (nm) and fails if any is defined by a layer above it: an upward call,
whether declared in a header or inside a function body. A self-test first proves the check can fail:
an object that calls the array layer's register_array_kernels, placed in the kernel layer, must be
reported (and nothing else must be).
"""
import os
import shlex
import subprocess
import sys
import tempfile


def symbols(nm, path):
    """(defined, undefined) global symbol names of an archive or object."""
    out = subprocess.run([nm, '-g', '--defined-only', path], check=True, capture_output=True, text=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 3}
    out = subprocess.run([nm, '-g', '--undefined-only', path], check=True, capture_output=True, text=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.split()}
    return defined, undefined - defined


def upward(layers, defs, undefs):
    """[(layer, symbol, upper layer)] for every symbol a layer takes from a layer above it."""
    found = []
    for i, name in enumerate(layers):
        for sym in sorted(undefs[name]):
            for upper in layers[i + 1:]:
                if sym in defs[upper]:
                    found.append((name, sym, upper))
                    break
    return found


def main():
    nm, cc = sys.argv[1], sys.argv[2]
    layers, defs, undefs = [], {}, {}
    for arg in sys.argv[3:]:
        name, path = arg.split('=', 1)
        layers.append(name)
        defs[name], undefs[name] = symbols(nm, path)
        if not defs[name]:
            print(f'layer {name}: {path} defines no symbols (wrong archive?)')
            return 1

    # Self-test: a probe calling ca::register_array_kernels(KernelRegistry&) added to the kernel layer.
    target = next((s for s in defs['array'] if s.startswith('_ZN2ca22register_array_kernels')), None)
    if target is None:
        print('self-test: the array layer does not define ca::register_array_kernels')
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, 'probe.c'), os.path.join(tmp, 'probe.o')
        with open(src, 'w') as f:
            f.write(f'extern void {target}(void *);\nvoid layering_probe(void *r) {{ {target}(r); }}\n')
        subprocess.run(shlex.split(cc) + ['-c', src, '-o', obj], check=True)
        pd, pu = symbols(nm, obj)
    probe_undefs = dict(undefs)
    probe_undefs['kernel'] = undefs['kernel'] | pu
    got = upward(layers, defs, probe_undefs)
    if got != [('kernel', target, 'array')] + upward(layers, defs, undefs):
        print('self-test failed: the upward call probe -> array was not reported alone:', got)
        return 1
    print(f'self-test: an upward call kernel -> array ({target}) is reported')

    bad = upward(layers, defs, undefs)
    for name, sym, upper in bad:
        dem = subprocess.run(['c++filt', sym], capture_output=True, text=True).stdout.strip() or sym
        print(f'upward call: layer {name} uses {dem}, defined by the upper layer {upper}')
    if bad:
        return 1
    print('layers (lowest first):', ' -> '.join(layers), '- no layer uses a layer above it')
    return 0


if __name__ == '__main__':
    sys.exit(main())
