#!/usr/bin/env python3
"""Generate the NULL-argument catalogue test from the public headers.

For every exported function (every `CA_API ... ca_*(...);` in include/chunkarray/*.h) and every pointer
parameter of it, the generated C file holds one case that calls the function with valid fixtures
for all arguments except that one, which is NULL. tests/capi/null_catalogue_main.c runs each case in a
forked child (so a crash or hang is reported against the function and parameter, not lost) and checks:

- no crash, no hang, no sanitizer report;
- a status-returning function either fails with a non-empty message that names the parameter, or
  the header documents what NULL means for that parameter (a doc line that mentions both the
  parameter and NULL, e.g. "@param opts borrowed, may be NULL");
- on failure, a `T **out` output that was set to a sentinel before the call is NULL afterwards.

At generation time it also checks every status-returning function's doc: it must list the status
codes the function returns (a CA_E* name, or "as ca_other()" for one that returns what another
does). A function whose doc lists none stops the build with its name and header (docs/abi.md).

A new public function is covered the moment it is declared: nothing here lists functions by hand
except the few whose fixtures must be built differently (see SPECIAL).

usage: gen_null_catalogue.py OUT.c HEADER...
"""
import os
import re
import sys

DECL = re.compile(r'CA_API\s+([^;{}]*?)\b(ca_\w+)\s*\(([^;{}]*?)\)\s*;', re.S)


def split_params(params):
    out, depth, cur = [], 0, ''
    for ch in params:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [' '.join(p.split()) for p in out]


def parse_param(p):
    """Returns (type, name). Function-pointer parameters are spelled 'void (*fn)(void)'."""
    m = re.match(r'^(.*)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$', p)
    if m:
        return ('fnptr:' + p, m.group(2))
    m = re.match(r'^(.*?)(\w+)$', p)
    if not m:
        return (p, '')
    return (m.group(1).strip(), m.group(2))


def doc_before(text, pos):
    """The comment block(s) directly above a declaration (and the declaration's own trailing doc)."""
    start = text.rfind('\n', 0, pos)
    lines = text[:start].split('\n')
    doc = []
    # Walk upwards over comment lines and over blank-free declaration groups that share a comment.
    i = len(lines) - 1
    in_block = False
    while i >= 0:
        ln = lines[i].strip()
        if ln.endswith('*/'):
            in_block = True
        if in_block or ln.startswith('/*') or ln.startswith('*') or ln.startswith('//'):
            doc.append(ln)
            if ln.startswith('/*'):
                in_block = False
                # Keep going only if the comment is directly above another comment.
            i -= 1
            continue
        if doc == [] and (ln.startswith('CA_API') or (ln.endswith((',', ');')) and not ln.startswith(('}', '#')))):
            # Declarations grouped under one comment share it; continuation lines of them too. Nothing
            # else is walked over, so a struct's or another section's comment is never borrowed.
            i -= 1
            continue
        break
    return '\n'.join(reversed(doc))


# Functions typed ca_status_t that report a status rather than fail (no codes to list).
STATUS_VALUES = {'ca_last_error_code', 'ca_set_error'}


def documents_codes(doc):
    """True when a status-returning function's doc lists its codes: a CA_E* name, or a reference to
    another function's list ("@return as ca_load()", "fails as ca_compute() does")."""
    return bool(re.search(r'\bCA_E[A-Z]+\b', doc) or
                re.search(r'(@return|[Rr]eturns?|[Ff]ails)\s+(as|like)\s+ca_\w+', doc))


def documents_null(doc, name):
    """True when the doc says what NULL means for the parameter: its @param paragraph mentions NULL,
    or a sentence mentions both the parameter and NULL."""
    for m in re.finditer(r'@param(?:\[\w+\])?\s+(\w+)(.*?)(?=@\w|\*/|$)', doc, re.S):
        if m.group(1) == name and 'NULL' in m.group(2):
            return True
    for sentence in re.split(r'(?<=\.)\s', doc):
        if re.search(r'\b' + re.escape(name) + r'\b', sentence) and 'NULL' in sentence:
            return True
    return False


def is_pointer(ptype):
    return ptype.startswith('fnptr:') or '*' in ptype or ptype.endswith('_fn')


# Fixtures: an expression of the parameter's type, valid in the sense of "a real object of that type".
# F is the per-child fixture set built by null_catalogue_main.c (fixtures_make()).
FIXTURES = {
    'const ca_array_t *': 'F.array',
    'ca_array_t **': '(ca_array_t **)&F.out_ptr',
    'ca_array_t ***': '(ca_array_t ***)&F.out_ptr',
    'const ca_array_t *const *': 'F.arrays',
    'ca_graph_t *': 'F.graph',
    'const ca_graph_t *': 'F.graph',
    'ca_graph_t **': '(ca_graph_t **)&F.out_ptr',
    'ca_context_t *': 'F.ctx',
    'const ca_context_t *': 'F.ctx',
    'ca_context_t **': '(ca_context_t **)&F.out_ptr',
    'const char *': 'F.name',
    'const char **': '(const char **)&F.out_ptr',
    'char **': '(char **)&F.out_ptr',
    'char *': 'F.textbuf',
    'const char *const *': 'F.names',
    'const int64_t *': 'F.i64',
    'const double *': 'F.f64',
    'const int64_t *const *': 'F.i64s',
    'int64_t *': 'F.i64_out',
    'const int32_t *': 'F.i32',
    'int32_t *': 'F.i32_out',
    'size_t *': 'F.size_out',
    'const ca_chunks_t *': '&F.chunks',
    'const ca_dimchunks_t *': 'F.dimchunks',
    'const ca_chunkset_t *': 'F.chunkset',
    'ca_chunkset_t *': 'F.chunkset',
    'ca_chunkset_t **': '(ca_chunkset_t **)&F.out_ptr',
    'const ca_block_t *': 'F.block',
    'ca_block_t **': '(ca_block_t **)&F.out_ptr',
    'const ca_key_t *': 'F.keys',
    'ca_key_t *': 'F.key_out',
    'ca_keylist_t **': '(ca_keylist_t **)&F.out_ptr',
    'const ca_keylist_t *': 'F.keylist',
    'ca_keylist_t *': 'F.keylist',
    'ca_kernel_list_t **': '(ca_kernel_list_t **)&F.out_ptr',
    'const ca_kernel_list_t *': 'F.kernel_list',
    'ca_kernel_list_t *': 'F.kernel_list',
    'ca_kernel_info_t *': 'F.kernel_info',
    'const ca_arg_t *': 'F.args',
    'ca_kernel_t *': 'F.kernel',
    'const ca_kernel_t *': 'F.kernel',
    'ca_kernel_t **': '(ca_kernel_t **)&F.out_ptr',
    'ca_kernel_ctx_t *': 'F.kctx',
    'const ca_kernel_ctx_t *': 'F.kctx',
    'ca_cancel_t *': 'F.cancel',
    'const ca_cancel_t *': 'F.cancel',
    'ca_cancel_t **': '(ca_cancel_t **)&F.out_ptr',
    'ca_dtype_t *': 'F.dtype_out',
    'void *': 'F.buffer',
    'const void *': 'F.buffer',
    'void **': '(void **)&F.out_ptr',
    'ca_layer_info_t *': 'F.layer_info',
    'ca_dist_rank_plan_t *': '(ca_dist_rank_plan_t *)F.buffer',
    'const ca_index_t *': 'F.index',
    'const ca_boundary_t *': 'F.boundary',
    'const ca_store_region_t *': 'F.region',
    'const ca_array_arg_t *': 'F.array_args',
    'const ca_masked_t *': 'F.masked',
    'ca_masked_t **': '(ca_masked_t **)&F.out_ptr',
    'ca_masked_t ***': '(ca_masked_t ***)&F.out_ptr',
    'const ca_masked_t *const *': 'F.maskeds',
    'ca_scalar_t *': 'F.scalars',
    'const ca_scalar_t *': 'F.scalars',
    'const ca_histogram_bins_t *': 'F.hist_bins',
    'ca_kernel_fn': 'fixture_kernel_fn',
    'ca_progress_fn': 'fixture_progress_fn',
    'ca_store_fn': 'fixture_store_fn',
    'ca_plugin_init_fn': 'fixture_plugin_init_fn',
}
# Options structs: a default-initialised one (every *_options_t has a CA_*_INIT macro).
OPTIONS = re.compile(r'^const (ca_\w+_options_t) \*$')

# Outputs whose failure contract is "*out is NULL": checked after a failed call.
OUT_TYPES = {t for t in FIXTURES if t.endswith('**') and not t.startswith('const char') and t != 'char **'
             and t != 'void **'} | {'ca_array_t ***', 'ca_masked_t ***'}

# Scalars: values that make a valid-looking call over the fixtures (2-d float64, shape (4, 6)).
SCALAR_BY_NAME = {
    'ndim': '2', 'nindex': '2', 'n': '1', 'nargs': '1', 'nkeys': '1', 'narrays': '1', 'nidx': '1',
    'ninputs': '1', 'nnames': '1', 'count': '1', 'size': '16', 'num': '4', 'dtype': 'CA_FLOAT64',
    'axis': '0', 'dim': '0', 'i': '0', 'k': '0',
}


def scalar_value(ptype, name):
    if name in SCALAR_BY_NAME:
        return SCALAR_BY_NAME[name]
    if ptype in ('double', 'float'):
        return '1.0'
    if ptype == 'bool':
        return 'false'
    if ptype == 'ca_dtype_t':
        return 'CA_FLOAT64'
    if ptype.endswith('_t') and ptype.startswith('ca_') and ptype not in (
            'ca_dtype_t', 'ca_status_t', 'ca_op_t', 'ca_reduction_t', 'ca_scan_t'):
        # A struct passed by value (ca_scalar_t, ca_key_t ...): zero-initialised.
        return '(%s){0}' % ptype
    return '1'


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def main():
    out_path, headers = sys.argv[1], sys.argv[2:]
    cases = []
    baselines, baseline_calls = {}, []
    unknown = set()
    no_codes = []
    for h in sorted(headers):
        text = open(h, encoding='utf-8').read()
        # Experimental/guarded declarations are still public: take them all.
        for m in DECL.finditer(text):
            ret, fname, params = ' '.join(m.group(1).split()), m.group(2), m.group(3).strip()
            ret = re.sub(r'CA_DEPRECATED\([^)]*\)\s*', '', ret).strip()
            doc = doc_before(text, m.start())
            if ret == 'ca_status_t' and fname not in STATUS_VALUES and not documents_codes(doc):
                no_codes.append('%s (%s)' % (fname, os.path.basename(h)))
            if params == 'void' or not params:
                continue
            plist = [parse_param(p) for p in split_params(params)]
            for idx in [-1] + list(range(len(plist))):
                ptype, pname = plist[idx] if idx >= 0 else ('', '')
                if idx >= 0 and not is_pointer(ptype):
                    continue
                args = []
                ok = True
                for j, (t, n) in enumerate(plist):
                    if j == idx:
                        args.append('NULL')
                    elif t.startswith('fnptr:'):
                        args.append('(%s)fixture_void_fn' % re.sub(r'\(\s*\*\s*\w+\s*\)', '(*)', t[6:]))
                    elif is_pointer(t):
                        om = OPTIONS.match(t)
                        if om:
                            macro = 'CA_' + om.group(1)[3:-2].upper() + '_INIT'
                            args.append('&(%s)%s' % (om.group(1), macro))
                        elif t in FIXTURES:
                            args.append(FIXTURES[t])
                        else:
                            unknown.add(t)
                            ok = False
                    else:
                        args.append(scalar_value(t, n))
                if not ok:
                    continue
                kind = 'status' if ret == 'ca_status_t' else ('void' if ret == 'void' else 'value')
                has_out = any(t in OUT_TYPES for j, (t, _) in enumerate(plist) if j != idx)
                if idx < 0:
                    if not any(is_pointer(t) for t, _ in plist):
                        continue
                    baselines[fname] = len(baseline_calls)
                    baseline_calls.append((kind, '%s(%s)' % (fname, ', '.join(args))))
                    continue
                cases.append(dict(fname=fname, baseline=baselines.get(fname, -1), pname=pname, kind=kind, has_out=has_out,
                                  documented=documents_null(doc, pname), header=os.path.basename(h),
                                  call='%s(%s)' % (fname, ', '.join(args))))
    if unknown:
        sys.stderr.write('gen_null_catalogue.py: no fixture for parameter type(s): %s\n'
                         % ', '.join(sorted(unknown)))
        sys.exit(1)
    if no_codes:
        sys.stderr.write('gen_null_catalogue.py: %d status-returning function(s) whose doc lists no status '
                         'code (write "@return CA_OK; CA_EINVAL (...); ..." in the header):\n  %s\n'
                         % (len(no_codes), '\n  '.join(no_codes)))
        sys.exit(1)

    with open(out_path, 'w', encoding='utf-8') as f:
        f.write('/* Generated by tests/capi/gen_null_catalogue.py from the public headers: do not edit. */\n')
        # Every public function, the deprecated aliases and the experimental API included.
        f.write('#define CA_DISABLE_DEPRECATE_WARNINGS\n#define CA_EXPERIMENTAL\n')
        f.write('#include "null_catalogue.h"\n\n')
        def body(kind, call):
            if kind == 'status':
                return '  return %s;\n' % call
            if kind == 'void':
                return '  %s;\n  return CA_OK;\n' % call
            return '  (void)%s;\n  return CA_OK;\n' % call
        for i, (kind, call) in enumerate(baseline_calls):
            f.write('static ca_status_t baseline_%d(void) {\n%s}\n' % (i, body(kind, call)))
        for i, c in enumerate(cases):
            f.write('static ca_status_t case_%d(void) {\n' % i)
            if c['kind'] == 'status':
                f.write('  return %s;\n' % c['call'])
            elif c['kind'] == 'void':
                f.write('  %s;\n  return CA_OK;\n' % c['call'])
            else:
                f.write('  (void)%s;\n  return CA_OK;\n' % c['call'])
            f.write('}\n')
        f.write('\nconst null_case_t NULL_CASES[] = {\n')
        for i, c in enumerate(cases):
            f.write('  {%s, %s, %s, %d, %d, %d, case_%d, %s},\n' % (
                c_string(c['fname']), c_string(c['pname']), c_string(c['header']),
                {'status': 0, 'void': 1, 'value': 2}[c['kind']], int(c['documented']), int(c['has_out']), i,
                'baseline_%d' % c['baseline'] if c['baseline'] >= 0 else 'NULL'))
        f.write('};\nconst size_t NUM_NULL_CASES = %d;\n' % len(cases))


if __name__ == '__main__':
    main()
