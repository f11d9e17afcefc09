"""Every public name of the Python binding has a numpydoc docstring.

Public names: what ``chunkarray.__all__``, ``chunkarray.linalg.__all__`` and ``chunkarray.mpi.__all__``
export, and the public methods and properties of the exported classes. A docstring passes when it
has a one-line summary, a ``Parameters`` section naming every parameter of the signature (for a
class: of its constructor), and a ``Returns`` (or ``Yields``) section when the function's code
returns a value. The test lists every name that fails, with the reason.
"""
import ast
import inspect
import re
import textwrap
import types

import chunkarray as ca


def _public_objects():
    seen = set()
    for mod, names in ((ca, ca.__all__), (ca.linalg, ca.linalg.__all__), (ca.mpi, ca.mpi.__all__),
                       (ca.fft, ca.fft.__all__), (ca.ma, ca.ma.__all__),
                       (ca.random, ca.random.__all__)):
        for n in names:
            obj = getattr(mod, n)
            if isinstance(obj, types.ModuleType):
                continue
            qual = f"{mod.__name__}.{n}"
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield qual, obj, None
            if inspect.isclass(obj):
                for mname, member in vars(obj).items():
                    if mname.startswith("_"):
                        continue
                    yield f"{qual}.{mname}", member, obj


def _sections(doc):
    """numpydoc section titles: a line followed by a line of dashes of (at least) its length."""
    lines = doc.splitlines()
    return {lines[i].strip(): i for i in range(len(lines) - 1)
            if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip())}


def _section_text(doc, title):
    lines = doc.splitlines()
    secs = _sections(doc)
    start = secs[title] + 2
    ends = [i for i in secs.values() if i > secs[title]]
    return "\n".join(lines[start:min(ends) if ends else len(lines)])


def _documented_params(doc):
    text = _section_text(doc, "Parameters")
    names = set()
    for line in text.splitlines():
        if line and not line.startswith(" "):
            head = line.split(" : ")[0]
            for n in head.split(","):
                names.add(n.strip())
    return names


def _signature_params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    out = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        prefix = "*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else ""
        out.append(prefix + p.name)
    return out


def _returns_value(fn):
    """Whether the function's own code has a ``return <value>`` (nested functions excluded)."""
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return False
    tree = ast.parse(src)
    top = tree.body[0]

    class Finder(ast.NodeVisitor):
        found = False

        def visit_FunctionDef(self, node):
            if node is top:
                self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Lambda(self, node):
            pass

        def visit_Return(self, node):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                self.found = True

    f = Finder()
    f.visit(top)
    return f.found


def _problems(qual, obj, owner):
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        doc = obj.__doc__
        return [] if doc and doc.strip() else ["no docstring"]
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj)):
        return []  # a constant attribute
    doc = inspect.getdoc(obj) if not inspect.isclass(obj) else obj.__doc__
    if not doc or not doc.strip():
        return ["no docstring"]
    doc = inspect.cleandoc(doc)
    out = []
    if not doc.splitlines()[0].strip():
        out.append("no summary line")
    if inspect.isclass(obj):
        init = obj.__dict__.get("__init__")
        params = _signature_params(init) if init is not None and inspect.isfunction(init) else []
        if issubclass(obj, BaseException):
            params = []  # exceptions document their attributes, built by the library
    else:
        params = _signature_params(obj)
    if params:
        if "Parameters" not in _sections(doc):
            out.append("no Parameters section")
        else:
            missing = [p for p in params if p not in _documented_params(doc)
                       and p.lstrip("*") not in _documented_params(doc)]
            if missing:
                out.append(f"parameters not documented: {', '.join(missing)}")
    if inspect.isfunction(obj) and _returns_value(obj):
        secs = _sections(doc)
        if "Returns" not in secs and "Yields" not in secs:
            out.append("no Returns section")
    return out


def test_every_public_name_has_a_numpydoc_docstring():
    failures = []
    count = 0
    for qual, obj, owner in _public_objects():
        count += 1
        for p in _problems(qual, obj, owner):
            failures.append(f"{qual}: {p}")
    assert count > 200  # the walk found the surface (a broken walk must not pass)
    assert not failures, f"{len(failures)} docstring problems:\n" + "\n".join(failures)


def test_the_checker_catches_a_missing_docstring():
    def undocumented(a, b):
        return a + b

    def no_params(a, b):
        """Add.

        Returns
        -------
        int
            The sum.
        """
        return a + b

    def no_returns(a):
        """Identity.

        Parameters
        ----------
        a : int
            The value.
        """
        return a

    def good(a, *rest, key=None):
        """Good.

        Parameters
        ----------
        a : int
            The value.
        *rest
            More.
        key : str, optional
            A key.

        Returns
        -------
        int
            The value.
        """
        return a

    assert _problems("u", undocumented, None) == ["no docstring"]
    assert _problems("p", no_params, None) == ["no Parameters section"]
    assert _problems("r", no_returns, None) == ["no Returns section"]
    assert _problems("g", good, None) == []
