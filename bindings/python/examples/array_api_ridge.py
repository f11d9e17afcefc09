"""One function written against the Python array API standard, run on numpy.array_api and on
chunkarray.array_api (docs/array-api.md). scikit-learn's ``array_api_dispatch`` works the same way: the
estimator asks its input for ``__array_namespace__()`` and uses only that namespace.

Run: python3 array_api_ridge.py (prints both results and checks they agree).
"""
import warnings

import numpy as np


def ridge_fit(X, y, alpha=1.0):
    """Standardize the columns of X, then solve the ridge normal equations; return (coef, intercept).

    Written once against the standard: every operation comes from ``X.__array_namespace__()``.
    """
    xp = X.__array_namespace__()
    mean = xp.mean(X, axis=0)
    scale = xp.std(X, axis=0, correction=1)
    scale = xp.where(scale == 0, xp.ones_like(scale), scale)
    Xs = (X - mean) / scale
    y_mean = xp.mean(y)
    gram = Xs.mT @ Xs + alpha * xp.eye(X.shape[1], dtype=X.dtype)
    coef = xp.linalg.solve(gram, Xs.mT @ (y - y_mean)) / scale
    intercept = y_mean - xp.linalg.vecdot(mean, coef)
    return coef, intercept


def main():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = X @ np.array([1.5, -2.0, 0.0, 0.5, 3.0]) + 4.0 + rng.normal(scale=0.1, size=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # numpy.array_api warns that it is experimental
        import numpy.array_api as npx
    import chunkarray.array_api as cax
    results = {}
    for name, xp in (("numpy.array_api", npx), ("chunkarray.array_api", cax)):
        coef, intercept = ridge_fit(xp.asarray(X), xp.asarray(y), alpha=0.5)
        results[name] = (np.asarray(coef), float(intercept))
        print(f"{name:22s} coef={np.round(results[name][0], 4)} intercept={results[name][1]:.4f}")
    a, b = results.values()
    np.testing.assert_allclose(a[0], b[0], rtol=1e-10)
    assert abs(a[1] - b[1]) < 1e-10
    print("the two namespaces agree")


if __name__ == "__main__":
    main()
