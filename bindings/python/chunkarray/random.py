"""Random arrays: NumPy's ``Generator`` API (and dask's ``RandomState``) over counter-based Philox streams.

Every element is a function of ``(key, its C-order index)`` only (``ca_array_random``, array.h), so
values never depend on the chunks, the threads or the order of computation, and random arrays are
never stored: expressions and reductions over them regenerate the regions they read.

Keys. ``default_rng(seed)`` (or ``RandomState(seed)``) gives a generator whose n-th call draws with
key ``seed`` for n = 0 and a 64-bit mix of ``(seed, n)`` after that: a generator's successive arrays
differ, the same seed repeats them. The module-level functions take ``seed=`` (default 0) and draw
with that key, so ``random.gamma(2.0, size=9, seed=5)`` equals ``default_rng(5).gamma(2.0, size=9)``.

Parameters may be scalars or arrays (array-likes or chunkarray arrays), broadcast against ``size``
as NumPy broadcasts them (``size=None``: their broadcast shape). Array-valued parameters of the
location-scale families (normal, uniform, exponential, gumbel, laplace, logistic, lognormal,
rayleigh) are ``loc + scale * (a standard draw)``; every other distribution draws natively
(``ca_array_random_params``): element g uses the stream it uses with scalar parameters, so constant
parameter arrays give the scalar draw's values. Parameter arrays stay lazy, so a bad value (e.g. a
negative scale) raises NumPy's message when the array is computed, not when it is built. binomial's
n and hypergeometric's parameters need integer arrays (NumPy's rule: a float array raises
``TypeError``). The multivariate distributions (dirichlet,
multivariate_normal, multinomial: native, ``ca_array_random_multinomial``) take their vector
parameters as NumPy does; their last axis is one chunk (dask's layout).
"""
import ctypes
import numbers
import os

import numpy as np

from . import _lib as C
from ._lib import lib

c_vp = ctypes.c_void_p
from .core import Array, _ca_dtype, _i64arr, _shape_chunks, asarray

# CA_RANDOM_* (array.h).
_CODES = {
    "uniform": 0, "normal": 1, "integers": 2, "beta": 3, "binomial": 4, "chisquare": 5, "exponential": 6,
    "f": 7, "gamma": 8, "geometric": 9, "gumbel": 10, "hypergeometric": 11, "laplace": 12, "logistic": 13,
    "lognormal": 14, "logseries": 15, "negative_binomial": 16, "noncentral_chisquare": 17, "noncentral_f": 18,
    "pareto": 19, "poisson": 20, "power": 21, "rayleigh": 22, "standard_cauchy": 23, "standard_exponential": 24,
    "standard_gamma": 25, "standard_t": 26, "triangular": 27, "vonmises": 28, "wald": 29, "weibull": 30,
    "zipf": 31,
}

_MASK64 = (1 << 64) - 1


def _mix(seed, n):
    """splitmix64 of (seed, n): the key of a generator's n-th call (n >= 1)."""
    z = (seed + 0x9E3779B97F4A7C15 * (n + 1)) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _seed_value(seed):
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(seed, (numbers.Integral, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError("Seed must be non-negative")
        return int(seed) & _MASK64
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, np.uint64)[0])
    raise TypeError(f"seed must be None, a non-negative int or a numpy SeedSequence, not {type(seed).__name__}")


def _param(fname, pname, v):
    """A scalar parameter as a float; an array-like or chunkarray Array parameter as it is."""
    if isinstance(v, Array):
        return v
    if np.ndim(v) != 0:
        return np.asarray(v)
    return float(v)


def _is_array_param(v):
    return isinstance(v, Array) or np.ndim(v) != 0


def _size(size):
    if size is None:
        return ()
    if isinstance(size, (numbers.Integral, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _draw(name, key, size, chunks, dtype, p0=0.0, p1=1.0, p2=0.0):
    params = (p0, p1, p2)
    if any(isinstance(p, (Array, np.ndarray)) for p in params):
        return _draw_params(name, key, size, chunks, dtype, params)
    shape, st, keep = _shape_chunks(_size(size), chunks, dtype)
    opts = C.RandomOptions(ctypes.sizeof(C.RandomOptions), 0, int(key) & _MASK64, float(p0), float(p1), float(p2))
    return Array._new(lib().ca_array_random, _CODES[name], len(shape), _i64arr(shape), ctypes.byref(st),
                      _ca_dtype(dtype), ctypes.byref(opts))


def _draw_params(name, key, size, chunks, dtype, params):
    """Array-valued parameters (``ca_array_random_params``): each broadcast against ``size`` as NumPy
    broadcasts them (size None: their broadcast shape); bad values raise when the array is computed."""
    shapes = [tuple(p.shape) for p in params if isinstance(p, (Array, np.ndarray))]
    if size is None:
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{name}: shape mismatch: objects cannot be broadcast to a single shape "
                             f"(parameters of shapes {shapes})") from None
    else:
        shape = _size(size)
    shape, st, keep = _shape_chunks(shape, chunks, dtype)
    arrays = [asarray(p) if isinstance(p, np.ndarray) else p if isinstance(p, Array) else None for p in params]
    scal = [0.0 if a is not None else float(p) for a, p in zip(arrays, params)]
    handles = (c_vp * 3)(*[a._h if a is not None else None for a in arrays])
    opts = C.RandomOptions(ctypes.sizeof(C.RandomOptions), 0, int(key) & _MASK64, *scal)
    out = Array._new(lib().ca_array_random_params, _CODES[name], len(shape), _i64arr(shape), ctypes.byref(st),
                     _ca_dtype(dtype), handles, 3, ctypes.byref(opts))
    del arrays
    return out


def _doc(summary, params, returns="Array\n    The samples (float64 unless noted).", extra=""):
    """A numpydoc docstring: summary, the distribution's parameters, then size, chunks (and dtype)."""
    def deco(fn):
        lines = [summary, "", "Parameters", "----------"]
        for p in params:
            lines.append(p[0])
            lines.append("    " + p[1])
        lines += ["size : int or tuple of int, optional", "    The output shape (default None: a 0-d array).",
                  'chunks : str, int, tuple or dict, default "auto"', "    Block sizes (dask's normalize_chunks)."]
        import inspect
        if "dtype" in inspect.signature(fn).parameters:
            lines += ["dtype : numpy.dtype, optional", "    The output dtype (as NumPy allows for this method)."]
        lines += ["", "Returns", "-------"] + returns.splitlines()
        if extra:
            lines += ["", "Notes", "-----", extra]
        fn.__doc__ = "\n".join(lines) + "\n"
        return fn
    return deco


def _check_float_dtype(fname, dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"Unsupported dtype {dt!r} for {fname}")
    return dt


class Generator:
    """NumPy's ``Generator`` over chunkarray's counter-based Philox streams (``default_rng``).

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or None
        The stream's seed; None draws one from the operating system.
    """

    def __init__(self, seed=None):
        self._seed = _seed_value(seed)
        self._calls = 0

    def _key(self):
        n = self._calls
        self._calls += 1
        return self._seed if n == 0 else _mix(self._seed, n)

    def _d(self, name, size, chunks, dtype, *params):
        return _draw(name, self._key(), size, chunks, dtype, *params)

    def __repr__(self):
        return f"Generator(Philox, seed={self._seed})"

    def _loc_scale(self, fname, loc, scale, size, chunks, dtype, std, loc_name="loc", scale_name="scale",
                   check_scale=True, post=None):
        """Array-valued loc/scale of a location-scale family: loc + scale * (a standard draw), broadcast
        as NumPy broadcasts parameters against size (NumPy's law; its values differ, as all draws do)."""
        lv = loc if isinstance(loc, Array) else np.asarray(loc, dtype=np.float64)
        sv = scale if isinstance(scale, Array) else np.asarray(scale, dtype=np.float64)
        if isinstance(lv, np.ndarray) and not np.all(np.isfinite(lv)) and fname != "normal":
            raise ValueError(f"{fname}: {loc_name} must be finite")
        if check_scale and isinstance(sv, np.ndarray) and np.any(~(sv >= 0)):
            raise ValueError(f"{fname}: {scale_name} < 0")
        pshape = np.broadcast_shapes(tuple(lv.shape), tuple(sv.shape))
        shape = pshape if size is None else _size(size)
        try:
            ok = np.broadcast_shapes(shape, pshape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{fname}: shape mismatch: parameters of shape {pshape} cannot be broadcast to size {shape}")
        z = self._d(std[0], shape, chunks, dtype, *std[1:])
        out = z * asarray(sv) + asarray(lv)
        return post(out) if post is not None else out

    # ---- uniform, normal, integers ---------------------------------------------------------------

    @_doc("Uniform floats in ``[0, 1)``.", [])
    def random(self, size=None, chunks="auto", dtype=np.float64):
        return self._d("uniform", size, chunks, _check_float_dtype("random", dtype), 0.0, 1.0)

    @_doc("Uniform samples in ``[low, high)``.",
          [("low : float, default 0.0", "Lower bound."), ("high : float, default 1.0", "Upper bound (excluded).")])
    def uniform(self, low=0.0, high=1.0, size=None, chunks="auto", dtype=np.float64):
        if _is_array_param(low) or _is_array_param(high):
            lo = low if isinstance(low, Array) else np.asarray(low, dtype=np.float64)
            hi = high if isinstance(high, Array) else np.asarray(high, dtype=np.float64)
            return self._loc_scale("uniform", lo, hi - lo, size, chunks, _check_float_dtype("uniform", dtype),
                                   ("uniform", 0.0, 1.0), check_scale=False)
        return self._d("uniform", size, chunks, _check_float_dtype("uniform", dtype), _param("uniform", "low", low),
                       _param("uniform", "high", high))

    @_doc("Normal (Gaussian) samples.",
          [("loc : float, default 0.0", "Mean."), ("scale : float, default 1.0", "Standard deviation, >= 0.")])
    def normal(self, loc=0.0, scale=1.0, size=None, chunks="auto", dtype=np.float64):
        if _is_array_param(loc) or _is_array_param(scale):
            return self._loc_scale("normal", loc, scale, size, chunks, _check_float_dtype("normal", dtype),
                                   ("normal", 0.0, 1.0))
        return self._d("normal", size, chunks, _check_float_dtype("normal", dtype), _param("normal", "loc", loc),
                       _param("normal", "scale", scale))

    @_doc("Standard normal samples.", [])
    def standard_normal(self, size=None, chunks="auto", dtype=np.float64):
        return self._d("normal", size, chunks, _check_float_dtype("standard_normal", dtype), 0.0, 1.0)

    @_doc("Uniform integers in ``[low, high)`` (``[low, high]`` with endpoint=True).",
          [("low : int", "Lower bound (or the upper bound when high is None, with low 0)."),
           ("high : int, optional", "Upper bound."),
           ("endpoint : bool, default False", "Whether high is included.")],
          returns="Array\n    The samples (int64 unless dtype says otherwise).")
    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False, chunks="auto"):
        if high is None:
            low, high = 0, low
        if _is_array_param(low) or _is_array_param(high):
            return self._integers_arrays(low, high, size, np.dtype(dtype), endpoint, chunks)
        low = int(_param("integers", "low", low)) if not isinstance(low, (int, np.integer)) else int(low)
        high = int(_param("integers", "high", high)) if not isinstance(high, (int, np.integer)) else int(high)
        if endpoint:
            high += 1
        if low >= high:
            raise ValueError("low >= high" if not endpoint else "low > high")
        return self._d("integers", size, chunks, np.dtype(dtype), low, high)

    def _integers_arrays(self, low, high, size, dtype, endpoint, chunks):
        """integers() with array bounds (``ca_array_random_params``): NumPy arrays are checked now, as
        NumPy does; chunkarray arrays when computed (the same messages)."""
        if dtype.kind not in "iub":
            raise TypeError(f"Unsupported dtype {dtype!r} for integers")
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        lo_min, hi_max = (0, 1) if info is None else (info.min, info.max)
        bounds = []
        for nm, v in (("low", low), ("high", high)):
            if isinstance(v, Array):
                bounds.append(v)
                continue
            a = np.asarray(v)
            if a.dtype.kind not in "biuf":
                raise TypeError(f"integers: {nm} must be real numbers (got dtype {a.dtype})")
            t = np.trunc(a.astype(np.float64))
            if nm == "low" and np.any(t < lo_min):
                raise ValueError(f"low is out of bounds for {dtype}")
            if nm == "high" and np.any(t > hi_max if endpoint else t > hi_max + 1.0):
                raise ValueError(f"high is out of bounds for {dtype}")
            bounds.append(a)
        lo, hi = bounds
        if isinstance(lo, np.ndarray) and isinstance(hi, np.ndarray):
            lt, ht = np.trunc(lo.astype(np.float64)), np.trunc(hi.astype(np.float64))
            if np.any(lt > ht) if endpoint else np.any(lt >= ht):
                raise ValueError("low > high" if endpoint else "low >= high")
        if endpoint:
            hi = hi + 1 if isinstance(hi, Array) else np.trunc(hi.astype(np.float64)) + 1.0
        return self._d("integers", size, chunks, dtype, lo, hi)

    # ---- continuous ------------------------------------------------------------------------------

    @_doc("Beta distribution samples.", [("a : float", "Alpha, > 0."), ("b : float", "Beta, > 0.")])
    def beta(self, a, b, size=None, chunks="auto"):
        return self._d("beta", size, chunks, np.float64, _param("beta", "a", a), _param("beta", "b", b))

    @_doc("Chi-square samples.", [("df : float", "Degrees of freedom, > 0.")])
    def chisquare(self, df, size=None, chunks="auto"):
        return self._d("chisquare", size, chunks, np.float64, _param("chisquare", "df", df))

    @_doc("Exponential samples.", [("scale : float, default 1.0", "The scale (1 / rate), >= 0.")])
    def exponential(self, scale=1.0, size=None, chunks="auto"):
        if _is_array_param(scale):
            return self._loc_scale("exponential", 0.0, scale, size, chunks, np.float64, ("standard_exponential",))
        return self._d("exponential", size, chunks, np.float64, _param("exponential", "scale", scale))

    @_doc("F (Fisher-Snedecor) samples.",
          [("dfnum : float", "Numerator degrees of freedom, > 0."), ("dfden : float", "Denominator degrees of freedom, > 0.")])
    def f(self, dfnum, dfden, size=None, chunks="auto"):
        return self._d("f", size, chunks, np.float64, _param("f", "dfnum", dfnum), _param("f", "dfden", dfden))

    @_doc("Gamma samples.", [("shape : float", "Shape k, >= 0."), ("scale : float, default 1.0", "Scale theta, >= 0.")])
    def gamma(self, shape, scale=1.0, size=None, chunks="auto"):
        return self._d("gamma", size, chunks, np.float64, _param("gamma", "shape", shape),
                       _param("gamma", "scale", scale))

    @_doc("Gumbel samples.", [("loc : float, default 0.0", "Mode."), ("scale : float, default 1.0", "Scale, >= 0.")])
    def gumbel(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        if _is_array_param(loc) or _is_array_param(scale):
            return self._loc_scale("gumbel", loc, scale, size, chunks, np.float64, ("gumbel", 0.0, 1.0))
        return self._d("gumbel", size, chunks, np.float64, _param("gumbel", "loc", loc), _param("gumbel", "scale", scale))

    @_doc("Laplace (double exponential) samples.",
          [("loc : float, default 0.0", "Location."), ("scale : float, default 1.0", "Scale, >= 0.")])
    def laplace(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        if _is_array_param(loc) or _is_array_param(scale):
            return self._loc_scale("laplace", loc, scale, size, chunks, np.float64, ("laplace", 0.0, 1.0))
        return self._d("laplace", size, chunks, np.float64, _param("laplace", "loc", loc),
                       _param("laplace", "scale", scale))

    @_doc("Logistic samples.", [("loc : float, default 0.0", "Location."), ("scale : float, default 1.0", "Scale, >= 0.")])
    def logistic(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        if _is_array_param(loc) or _is_array_param(scale):
            return self._loc_scale("logistic", loc, scale, size, chunks, np.float64, ("logistic", 0.0, 1.0))
        return self._d("logistic", size, chunks, np.float64, _param("logistic", "loc", loc),
                       _param("logistic", "scale", scale))

    @_doc("Log-normal samples.",
          [("mean : float, default 0.0", "Mean of the underlying normal."),
           ("sigma : float, default 1.0", "Standard deviation of the underlying normal, >= 0.")])
    def lognormal(self, mean=0.0, sigma=1.0, size=None, chunks="auto"):
        if _is_array_param(mean) or _is_array_param(sigma):
            return self._loc_scale("lognormal", mean, sigma, size, chunks, np.float64, ("normal", 0.0, 1.0),
                                   loc_name="mean", scale_name="sigma", post=np.exp)
        return self._d("lognormal", size, chunks, np.float64, _param("lognormal", "mean", mean),
                       _param("lognormal", "sigma", sigma))

    @_doc("Noncentral chi-square samples.",
          [("df : float", "Degrees of freedom, > 0."), ("nonc : float", "Non-centrality, >= 0.")])
    def noncentral_chisquare(self, df, nonc, size=None, chunks="auto"):
        return self._d("noncentral_chisquare", size, chunks, np.float64, _param("noncentral_chisquare", "df", df),
                       _param("noncentral_chisquare", "nonc", nonc))

    @_doc("Noncentral F samples.",
          [("dfnum : float", "Numerator degrees of freedom, > 0."), ("dfden : float", "Denominator degrees of freedom, > 0."),
           ("nonc : float", "Non-centrality, >= 0.")])
    def noncentral_f(self, dfnum, dfden, nonc, size=None, chunks="auto"):
        return self._d("noncentral_f", size, chunks, np.float64, _param("noncentral_f", "dfnum", dfnum),
                       _param("noncentral_f", "dfden", dfden), _param("noncentral_f", "nonc", nonc))

    @_doc("Pareto II (Lomax) samples, as NumPy's pareto.", [("a : float", "Shape, > 0.")])
    def pareto(self, a, size=None, chunks="auto"):
        return self._d("pareto", size, chunks, np.float64, _param("pareto", "a", a))

    @_doc("Power-distribution samples in [0, 1].", [("a : float", "Exponent, > 0.")])
    def power(self, a, size=None, chunks="auto"):
        return self._d("power", size, chunks, np.float64, _param("power", "a", a))

    @_doc("Rayleigh samples.", [("scale : float, default 1.0", "Scale (mode), >= 0.")])
    def rayleigh(self, scale=1.0, size=None, chunks="auto"):
        if _is_array_param(scale):
            return self._loc_scale("rayleigh", 0.0, scale, size, chunks, np.float64, ("rayleigh", 1.0))
        return self._d("rayleigh", size, chunks, np.float64, _param("rayleigh", "scale", scale))

    @_doc("Standard Cauchy (Lorentz) samples.", [])
    def standard_cauchy(self, size=None, chunks="auto"):
        return self._d("standard_cauchy", size, chunks, np.float64)

    @_doc("Standard exponential samples.", [])
    def standard_exponential(self, size=None, chunks="auto", dtype=np.float64):
        return self._d("standard_exponential", size, chunks, _check_float_dtype("standard_exponential", dtype))

    @_doc("Standard gamma samples (scale 1).", [("shape : float", "Shape k, >= 0.")])
    def standard_gamma(self, shape, size=None, chunks="auto", dtype=np.float64):
        return self._d("standard_gamma", size, chunks, _check_float_dtype("standard_gamma", dtype),
                       _param("standard_gamma", "shape", shape))

    @_doc("Student's t samples.", [("df : float", "Degrees of freedom, > 0.")])
    def standard_t(self, df, size=None, chunks="auto"):
        return self._d("standard_t", size, chunks, np.float64, _param("standard_t", "df", df))

    @_doc("Triangular samples over ``[left, right]``.",
          [("left : float", "Lower limit."), ("mode : float", "Peak, left <= mode <= right."),
           ("right : float", "Upper limit, > left.")])
    def triangular(self, left, mode, right, size=None, chunks="auto"):
        return self._d("triangular", size, chunks, np.float64, _param("triangular", "left", left),
                       _param("triangular", "mode", mode), _param("triangular", "right", right))

    @_doc("von Mises samples in ``[-pi, pi]``.",
          [("mu : float", "Mode."), ("kappa : float", "Concentration, >= 0.")])
    def vonmises(self, mu, kappa, size=None, chunks="auto"):
        return self._d("vonmises", size, chunks, np.float64, _param("vonmises", "mu", mu),
                       _param("vonmises", "kappa", kappa))

    @_doc("Wald (inverse Gaussian) samples.", [("mean : float", "Mean, > 0."), ("scale : float", "Scale, > 0.")])
    def wald(self, mean, scale, size=None, chunks="auto"):
        return self._d("wald", size, chunks, np.float64, _param("wald", "mean", mean), _param("wald", "scale", scale))

    @_doc("Weibull samples (scale 1).", [("a : float", "Shape, >= 0.")])
    def weibull(self, a, size=None, chunks="auto"):
        return self._d("weibull", size, chunks, np.float64, _param("weibull", "a", a))

    # ---- discrete (int64) ------------------------------------------------------------------------

    _INT = "Array\n    The samples (int64)."

    @_doc("Binomial samples.", [("n : int", "Trials, >= 0."), ("p : float", "Success probability in [0, 1].")],
          returns=_INT)
    def binomial(self, n, p, size=None, chunks="auto"):
        return self._d("binomial", size, chunks, np.int64, _param("binomial", "n", n), _param("binomial", "p", p))

    @_doc("Geometric samples (trials up to the first success, >= 1).", [("p : float", "Success probability in (0, 1].")],
          returns=_INT)
    def geometric(self, p, size=None, chunks="auto"):
        return self._d("geometric", size, chunks, np.int64, _param("geometric", "p", p))

    @_doc("Hypergeometric samples.",
          [("ngood : int", "Good items, >= 0."), ("nbad : int", "Bad items, >= 0."),
           ("nsample : int", "Items drawn, <= ngood + nbad.")], returns=_INT)
    def hypergeometric(self, ngood, nbad, nsample, size=None, chunks="auto"):
        return self._d("hypergeometric", size, chunks, np.int64, _param("hypergeometric", "ngood", ngood),
                       _param("hypergeometric", "nbad", nbad), _param("hypergeometric", "nsample", nsample))

    @_doc("Logarithmic series samples.", [("p : float", "Shape in [0, 1).")], returns=_INT)
    def logseries(self, p, size=None, chunks="auto"):
        return self._d("logseries", size, chunks, np.int64, _param("logseries", "p", p))

    @_doc("Negative binomial samples.",
          [("n : float", "Successes, > 0."), ("p : float", "Success probability in (0, 1].")], returns=_INT)
    def negative_binomial(self, n, p, size=None, chunks="auto"):
        return self._d("negative_binomial", size, chunks, np.int64, _param("negative_binomial", "n", n),
                       _param("negative_binomial", "p", p))

    @_doc("Poisson samples.", [("lam : float, default 1.0", "Expected count, >= 0.")], returns=_INT)
    def poisson(self, lam=1.0, size=None, chunks="auto"):
        return self._d("poisson", size, chunks, np.int64, _param("poisson", "lam", lam))

    @_doc("Zipf samples.", [("a : float", "Exponent, > 1.")], returns=_INT)
    def zipf(self, a, size=None, chunks="auto"):
        return self._d("zipf", size, chunks, np.int64, _param("zipf", "a", a))

    # ---- multivariate ----------------------------------------------------------------------------

    def _component_keys(self, k):
        base = self._key()
        return [_mix(base ^ 0x5EED5EED5EED5EED, j + 1) for j in range(k)]

    def dirichlet(self, alpha, size=None, chunks="auto"):
        """Dirichlet samples: gamma(alpha_j) draws normalized by their sum.

        Parameters
        ----------
        alpha : sequence of float
            Concentrations, each > 0.
        size : int or tuple of int, optional
            Shape of the draws; the result has shape ``size + (len(alpha),)``.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes of the ``size`` axes; the last axis is one chunk.

        Returns
        -------
        Array
            float64 samples; each row sums to 1.
        """
        from ._shape import stack
        alpha = np.asarray(alpha, dtype=np.float64)
        if alpha.ndim != 1:
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        if np.any(~(alpha > 0)):
            raise ValueError("alpha <= 0")
        keys = self._component_keys(len(alpha))
        g = [_draw("standard_gamma", keys[j], size, chunks, np.float64, float(alpha[j])) for j in range(len(alpha))]
        x = stack(g, axis=-1)
        x = x.rechunk(tuple(x.chunks[:-1]) + ((len(alpha),),))
        return x / x.sum(axis=-1, keepdims=True)

    def multivariate_normal(self, mean, cov, size=None, chunks="auto", check_valid="warn", tol=1e-8, method="svd"):
        """Multivariate normal samples ``mean + z @ F`` with ``cov = F.T @ F`` (NumPy's factorizations).

        Parameters
        ----------
        mean : sequence of float
            The mean, length N.
        cov : array_like
            N x N covariance, symmetric positive-semidefinite.
        size : int or tuple of int, optional
            Shape of the draws; the result has shape ``size + (N,)``.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes of the ``size`` axes; the last axis is one chunk.
        check_valid : {"warn", "raise", "ignore"}, default "warn"
            What to do when cov is not positive-semidefinite.
        tol : float, default 1e-8
            Tolerance of that check.
        method : {"svd", "eigh", "cholesky"}, default "svd"
            The factorization of cov.

        Returns
        -------
        Array
            float64 samples.
        """
        from ._shape import stack
        mean = np.asarray(mean, dtype=np.float64)
        cov = np.asarray(cov, dtype=np.float64)
        if mean.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean.shape[0] != cov.shape[0]:
            raise ValueError("mean and cov must have same length")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        n = len(mean)
        if method == "cholesky":
            F = np.linalg.cholesky(cov).T
        else:
            if method == "eigh":
                s, u = np.linalg.eigh(cov)
                psd = not (s < -tol).any()
                v = u.T
            else:
                (u, s, v) = np.linalg.svd(cov)
                psd = np.allclose(np.dot(v.T * s, v), cov, rtol=tol, atol=tol)
            if not psd and check_valid != "ignore":
                if check_valid == "warn":
                    import warnings
                    warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
                else:
                    raise ValueError("covariance is not symmetric positive-semidefinite.")
            F = np.sqrt(np.abs(s))[:, None] * v
        keys = self._component_keys(n)
        z = [_draw("normal", keys[i], size, chunks, np.float64, 0.0, 1.0) for i in range(n)]
        cols = []
        for j in range(n):
            acc = None
            for i in range(n):
                if F[i, j] == 0:
                    continue
                t = z[i] * float(F[i, j])
                acc = t if acc is None else acc + t
            cols.append((acc + float(mean[j])) if acc is not None else z[0] * 0.0 + float(mean[j]))
        x = stack(cols, axis=-1)
        return x.rechunk(tuple(x.chunks[:-1]) + ((n,),))

    def multinomial(self, n, pvals, size=None, chunks="auto"):
        """Multinomial samples: counts of n draws over len(pvals) categories.

        Parameters
        ----------
        n : int
            Number of draws, >= 0.
        pvals : sequence of float
            Category probabilities, summing to 1 (the last one is taken as the remainder).
        size : int or tuple of int, optional
            Shape of the draws; the result has shape ``size + (len(pvals),)``.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes of the ``size`` axes; the last axis is one chunk.

        Returns
        -------
        Array
            int64 counts; each row sums to n.

        Notes
        -----
        Native (``ca_array_random_multinomial``): conditional binomials, row r drawn from Philox
        substream r of the call's key, so values do not depend on the chunks.
        """
        n = int(_param("multinomial", "n", n))
        if n < 0:
            raise ValueError("n < 0")
        pvals = np.ascontiguousarray(pvals, dtype=np.float64)
        if pvals.ndim != 1:
            raise ValueError("pvals must be a 1-d sequence")
        if np.any(~((pvals >= 0) & (pvals <= 1))):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if pvals[:-1].sum() > 1.0 + 1e-12:
            raise ValueError("sum(pvals[:-1]) > 1.0")
        k = len(pvals)
        shape = _size(size)
        if isinstance(chunks, (tuple, list)) and len(chunks) == len(shape):
            chunks = tuple(chunks) + (k,)
        elif not isinstance(chunks, (tuple, list, dict, str)) and chunks is not None:
            chunks = (chunks,) * len(shape) + (k,)
        elif isinstance(chunks, str):
            chunks = {**{d: chunks for d in range(len(shape))}, len(shape): k}
        full, st, keep = _shape_chunks(shape + (k,), chunks, np.int64)
        return Array._new(lib().ca_array_random_multinomial, n,
                          pvals.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), k, len(shape), _i64arr(shape),
                          ctypes.byref(st), self._key())

    # ---- choice, permutation, shuffle ------------------------------------------------------------

    def permutation(self, x, axis=0):
        """A random permutation of ``range(x)`` (int x) or of x's entries along an axis.

        Parameters
        ----------
        x : int or array_like
            An int n permutes ``arange(n)``; an array is reordered along ``axis`` (not in place).
        axis : int, default 0
            The axis to reorder.

        Returns
        -------
        Array
            The permuted values.

        Notes
        -----
        The order is the argsort of n uniform keys, so every permutation is equally likely (ties
        have probability below n**2 / 2**54).
        """
        from ._routines import argsort, take
        if isinstance(x, (numbers.Integral, np.integer)):
            n = int(x)
            if n < 0:
                raise ValueError("negative dimensions are not allowed")
            keys = self._d("uniform", (n,), "auto", np.float64, 0.0, 1.0)
            return argsort(keys)
        x = asarray(x)
        if x.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        ax = axis + x.ndim if axis < 0 else axis
        n = x.shape[ax]
        keys = self._d("uniform", (n,), (x.chunks[ax],), np.float64, 0.0, 1.0)
        return take(x, argsort(keys), axis=ax)

    def shuffle(self, x, axis=0):
        """x reordered along an axis by a random permutation: arrays are immutable, so the result is new.

        Parameters
        ----------
        x : array_like
            The array.
        axis : int, default 0
            The axis to reorder.

        Returns
        -------
        Array
            The shuffled array (``permutation(x, axis)``).
        """
        return self.permutation(x, axis=axis)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, chunks="auto"):
        """Random samples from a 1-d population.

        Parameters
        ----------
        a : int or array_like
            The population: an int n means ``arange(n)``.
        size : int or tuple of int, optional
            The output shape.
        replace : bool, default True
            Whether an element may be drawn more than once.
        p : array_like, optional
            Probabilities of the population's elements (default uniform).
        axis : int, default 0
            Only 0 (a is 1-d).
        shuffle : bool, default True
            Without replacement the result is always in random order.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes of the output.

        Returns
        -------
        Array
            The samples.

        Notes
        -----
        With replacement: uniform integers, or the inverse CDF of p on uniform draws. Without: the
        first ``size`` of a random permutation; with p, the top ``size`` of ``log p + Gumbel`` keys
        (Efraimidis-Spirakis sampling, the law of successive draws proportional to p).
        """
        from ._routines import argsort, searchsorted, take
        if axis != 0:
            raise ValueError("choice: only axis=0 is supported")
        if isinstance(a, (numbers.Integral, np.integer)):
            n = int(a)
            if n <= 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
            pop = None
        else:
            pop = asarray(a)
            if pop.ndim != 1:
                raise ValueError("a must be one-dimensional")
            n = pop.shape[0]
            if n == 0:
                raise ValueError("a cannot be empty unless no samples are taken")
        shape = _size(size)
        m = int(np.prod(shape, dtype=np.int64))
        if p is not None:
            p = np.asarray(p, dtype=np.float64)
            if p.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if p.size != n:
                raise ValueError("a and p must have same size")
            if np.any(~(p >= 0)):
                raise ValueError("probabilities are not non-negative")
            if abs(p.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if replace:
            if p is None:
                idx = self._d("integers", shape, chunks, np.int64, 0, n)
            else:
                cdf = np.cumsum(p)
                cdf /= cdf[-1]
                u = self._d("uniform", shape, chunks, np.float64, 0.0, 1.0)
                idx = searchsorted(asarray(cdf), u, side="right")
                idx = idx.clip(0, n - 1)
        else:
            if m > n:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            if p is None:
                keys = self._d("uniform", (n,), "auto", np.float64, 0.0, 1.0)
                order = argsort(keys)
            else:
                if np.count_nonzero(p > 0) < m:
                    raise ValueError("Fewer non-zero entries in p than size")
                with np.errstate(divide="ignore"):
                    logp = np.log(p)
                keys = self._d("gumbel", (n,), "auto", np.float64, 0.0, 1.0) + asarray(logp)
                order = argsort(keys, descending=True)
            idx = order[:m]
            from ._shape import reshape
            idx = reshape(idx, shape).rechunk(chunks) if shape != (m,) else idx.rechunk(chunks)
        if pop is None:
            return idx
        flat = take(pop, idx.reshape(-1) if idx.ndim != 1 else idx, axis=0)
        return flat.reshape(shape) if len(shape) != 1 else flat


class RandomState(Generator):
    """dask's ``RandomState``: the Generator's distributions plus NumPy's legacy method names.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or None
        The stream's seed; None draws one from the operating system.
    """

    def seed(self, seed=None):
        """Restart the stream from a seed.

        Parameters
        ----------
        seed : int or None
            The new seed (None: from the operating system).
        """
        self._seed = _seed_value(seed)
        self._calls = 0

    def random_sample(self, size=None, chunks="auto"):
        """Uniform floats in ``[0, 1)``.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output shape.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes.

        Returns
        -------
        Array
            float64 samples.
        """
        return self.random(size=size, chunks=chunks)

    def randint(self, low, high=None, size=None, chunks="auto", dtype="l"):
        """Uniform integers in ``[low, high)`` (``[0, low)`` when high is None).

        Parameters
        ----------
        low : int
            Lower bound, or the upper bound when high is None.
        high : int, optional
            Upper bound (excluded).
        size : int or tuple of int, optional
            The output shape.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes.
        dtype : numpy.dtype, default "l"
            An integer dtype.

        Returns
        -------
        Array
            The samples.
        """
        return self.integers(low, high, size=size, dtype=dtype, chunks=chunks)

    def random_integers(self, low, high=None, size=None, chunks="auto"):
        """Uniform integers in ``[low, high]`` (``[1, low]`` when high is None; deprecated in NumPy).

        Parameters
        ----------
        low : int
            Lower bound, or the upper bound when high is None.
        high : int, optional
            Upper bound (included).
        size : int or tuple of int, optional
            The output shape.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes.

        Returns
        -------
        Array
            int64 samples.
        """
        if high is None:
            low, high = 1, low
        return self.integers(low, high, size=size, endpoint=True, chunks=chunks)

    def tomaxint(self, size=None, chunks="auto"):
        """Uniform integers in ``[0, 2**63 - 1)``.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output shape.
        chunks : str, int, tuple or dict, default "auto"
            Block sizes.

        Returns
        -------
        Array
            int64 samples.
        """
        return self.integers(0, np.iinfo(np.int64).max, size=size, chunks=chunks)


def default_rng(seed=None):
    """A Generator seeded with ``seed`` (NumPy's / dask's ``default_rng``).

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence, Generator or None
        The seed; a Generator is returned as is; None draws a seed from the operating system.

    Returns
    -------
    Generator
        The generator.
    """
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


# ---- module-level functions: seed= keyword (default 0), drawn with that key -------------------------

_METHODS = ["beta", "binomial", "chisquare", "choice", "dirichlet", "exponential", "f", "gamma", "geometric",
            "gumbel", "hypergeometric", "integers", "laplace", "logistic", "lognormal", "logseries",
            "multinomial", "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f",
            "normal", "pareto", "permutation", "poisson", "power", "random", "rayleigh", "shuffle",
            "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
            "triangular", "uniform", "vonmises", "wald", "weibull", "zipf"]


def _module_function(name, cls=None):
    cls = cls or Generator
    method = getattr(cls, name)

    def fn(*args, seed=0, **kwargs):
        return method(cls(seed), *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    import inspect
    doc = inspect.cleandoc(method.__doc__ or "")
    head, sep, rest = doc.partition("----------\n")
    seed_doc = "seed : int, default 0\n    The key of the Philox stream (same seed, same values).\n"
    fn.__doc__ = (head + sep + rest.replace("\nReturns\n", seed_doc.replace("\n    ", "\n    ") + "\nReturns\n", 1))
    # The signature the docstring documents: the method's parameters plus seed.
    import inspect
    sig = inspect.signature(method)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    params.append(inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=0))
    fn.__signature__ = sig.replace(parameters=params)
    return fn


for _name in _METHODS:
    globals()[_name] = _module_function(_name)
del _name

# The legacy signature of the first chunkarray release: uniform(low, high, size, chunks, seed, dtype).
random_sample = _module_function("random_sample", RandomState)
randint = _module_function("randint", RandomState)
random_integers = _module_function("random_integers", RandomState)

__all__ = sorted(_METHODS + ["Generator", "RandomState", "default_rng", "random_sample", "randint",
                             "random_integers"])
