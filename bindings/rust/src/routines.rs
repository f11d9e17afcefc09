//! NumPy's routines over the C library's `routines.h` and `ca_array_quantile`: the `*_like`
//! constructors, `indices`, `meshgrid`, `broadcast_arrays`, `tril`/`triu` (and their indices),
//! `diagonal`; `sort`, `argsort`, `unique`, `isin`, `union1d`, `searchsorted`, `digitize`,
//! `nonzero`, `flatnonzero`, `argwhere`; `roll`, `rot90`, `rollaxis`; `median`, `quantile`,
//! `percentile` (exact, as dask's median: the reduced axes become one chunk each).
//!
//! Values are NumPy's and chunks dask's. Results whose size depends on the data (`unique`,
//! `nonzero`, `argwhere`, the triangle indices, ...) have blocks of unknown size until computed
//! ([`Array::chunks`] reports them as -1).

use std::os::raw::c_int;
use std::ptr;

use crate::sys::*;
use crate::{check, cstring, lib, new_array, normalize_chunks, Array, CChunks, ComputeOptions, Context, DType, Error, Result};

// ------------------------------------------------------------------------------------------------
// Options
// ------------------------------------------------------------------------------------------------

/// The options of [`Array::empty_like`] and friends (`ca_like_options_t`): each `None` keeps the
/// input's (dtype, shape, chunks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LikeOptions {
    /// The result's dtype; None: the input's.
    pub dtype: Option<DType>,
    /// A new shape; None: the input's.
    pub shape: Option<Vec<i64>>,
    /// The result's chunks (block sizes per dimension, summing to the shape); None: the input's
    /// chunks for its own shape, dask's "auto" chunks for a new shape.
    pub chunks: Option<Vec<Vec<i64>>>,
    /// "auto" chunks: bytes per block; 0: the library's default (128 MiB).
    pub limit: i64,
}

/// `np.meshgrid`'s `indexing` (`ca_meshgrid_indexing_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian (NumPy's default): the first two output axes swapped.
    #[default]
    Xy,
    /// Matrix indexing.
    Ij,
}

/// `np.searchsorted`'s `side` (`ca_side_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// The first suitable position (NumPy's default).
    #[default]
    Left,
    /// The last suitable position.
    Right,
}

/// What [`Array::unique_with`] returns besides the values, and how NaNs count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UniqueOptions {
    /// Also the index of each value's first occurrence (`return_index`).
    pub index: bool,
    /// Also each element's position among the values (`return_inverse`, flattened as NumPy 1.x).
    pub inverse: bool,
    /// Also how often each value occurs (`return_counts`).
    pub counts: bool,
    /// Each NaN is a value of its own (the array API's rule); false: NaNs collapse into one (NumPy).
    pub distinct_nan: bool,
}

/// The result of [`Array::unique_with`]: the sorted unique values and the arrays asked for.
#[derive(Debug, Clone)]
pub struct Unique {
    /// The sorted unique values (the input's dtype; one block of unknown size).
    pub values: Array,
    /// int64 indices of the first occurrences, if asked for.
    pub index: Option<Array>,
    /// int64 positions of each element's value among `values`, if asked for.
    pub inverse: Option<Array>,
    /// int64 counts, if asked for.
    pub counts: Option<Array>,
}

/// How a quantile between two order statistics is taken (NumPy's `method`, `ca_quantile_method_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantileMethod {
    /// Linear interpolation (NumPy's default).
    #[default]
    Linear,
    /// The order statistic below.
    Lower,
    /// The order statistic above.
    Higher,
    /// The nearer one (half to even).
    Nearest,
    /// The mean of both.
    Midpoint,
}

impl QuantileMethod {
    fn code(self) -> i32 {
        match self {
            QuantileMethod::Linear => CA_QUANTILE_LINEAR,
            QuantileMethod::Lower => CA_QUANTILE_LOWER,
            QuantileMethod::Higher => CA_QUANTILE_HIGHER,
            QuantileMethod::Nearest => CA_QUANTILE_NEAREST,
            QuantileMethod::Midpoint => CA_QUANTILE_MIDPOINT,
        }
    }
}

/// The options of [`Array::quantile`] and friends (`ca_quantile_options_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuantileOptions {
    /// How to take values between order statistics.
    pub method: QuantileMethod,
    /// Keep the reduced axes with extent 1.
    pub keepdims: bool,
    /// Ignore NaNs (`np.nanquantile`); false: a row with a NaN gives NaN.
    pub skip_nan: bool,
    /// The result dtype: Float16/32/64 (or the input's for lower/higher/nearest); None: NumPy's
    /// (float64 for linear/midpoint, the input's for the others).
    pub dtype: Option<DType>,
}

/// One dimension's bins of [`Array::histogram`] / [`Array::histogramdd`].
#[derive(Clone, Copy, Debug)]
pub enum HistogramBins<'a> {
    /// `nbins` equal bins over `[lo, hi]` (NumPy's `bins=int, range=(lo, hi)`; `lo == hi` widens
    /// to `[lo - 0.5, hi + 0.5]`).
    Uniform {
        /// The number of bins (>= 1).
        nbins: i64,
        /// The lower outer edge (finite).
        lo: f64,
        /// The upper outer edge (finite, >= lo).
        hi: f64,
    },
    /// The edges (1-d, at least one, increasing; checked at compute), returned as given.
    Edges(&'a Array),
}

/// Options of [`Array::histogram`] / [`Array::histogramdd`].
#[derive(Clone, Copy, Debug, Default)]
pub struct HistogramOptions<'a> {
    /// One weight per value (the samples' shape): each value adds its weight instead of 1.
    pub weights: Option<&'a Array>,
    /// NumPy's `density=True`: counts / total / bin volume.
    pub density: bool,
    /// Partial histograms summed per tree node (0: dask's 16).
    pub split_every: i32,
}

/// `np.choose`'s `mode`: what an index outside `[0, n)` does (`ca_choose_mode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChooseMode {
    /// The compute fails (NumPy's default).
    #[default]
    Raise,
    /// The index is taken modulo n.
    Wrap,
    /// The index is clipped to `[0, n - 1]`.
    Clip,
}

/// A scalar operand promoted as a Python scalar of that kind is (NumPy's value-based rule: an `Int`
/// does not widen an int8 array, a `Float` makes an integer array's result float64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A Python bool.
    Bool(bool),
    /// A Python int.
    Int(i64),
    /// A Python float.
    Float(f64),
}

impl Scalar {
    pub(crate) fn raw(self) -> ca_scalar_t {
        match self {
            Scalar::Bool(b) => ca_scalar_t { kind: DType::Bool.code(), reserved: 0, re: f64::from(u8::from(b)), im: 0.0,
                                             i64_: i64::from(b) },
            Scalar::Int(v) => ca_scalar_t { kind: DType::Int64.code(), reserved: 0, re: v as f64, im: 0.0, i64_: v },
            Scalar::Float(v) => ca_scalar_t { kind: DType::Float64.code(), reserved: 0, re: v, im: 0.0, i64_: 0 },
        }
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Scalar {
        Scalar::Bool(v)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::Int(v)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::Float(v)
    }
}

// ------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------

fn handles(arrays: &[&Array]) -> Vec<*const ca_array_t> {
    arrays.iter().map(|a| a.h as *const ca_array_t).collect()
}

/// Runs `f` with a vector of `n` output pointers and wraps them all (or none, on failure).
fn many(n: usize, f: impl FnOnce(*mut *mut ca_array_t) -> i32) -> Result<Vec<Array>> {
    let mut out: Vec<*mut ca_array_t> = vec![ptr::null_mut(); n.max(1)];
    check(f(out.as_mut_ptr()))?;
    out.truncate(n);
    Ok(out.into_iter().map(|h| Array { h }).collect())
}

fn opt_ptr(v: &[i32]) -> *const i32 {
    if v.is_empty() {
        ptr::null()
    } else {
        v.as_ptr()
    }
}

fn check_axis(name: &str, axis: i32, ndim: usize) -> Result<()> {
    let n = ndim as i32;
    if axis < -n || axis >= n {
        return Err(Error::raw(CA_EINVAL, format!("{}: axis {} is out of range for {} dimensions", name, axis, ndim)));
    }
    Ok(())
}

impl Array {
    // -- creation ------------------------------------------------------------------------------

    fn like(&self, opts: &LikeOptions, f: impl FnOnce(*mut *mut ca_array_t, *const ca_like_options_t) -> i32)
            -> Result<Array> {
        let cc = opts.chunks.as_ref().map(|c| CChunks::new(c));
        let raw = cc.as_ref().map(|c| c.raw());
        let o = ca_like_options_t {
            struct_size: std::mem::size_of::<ca_like_options_t>() as u32,
            dtype: opts.dtype.map_or(0, |d| d.code()),
            ndim: opts.shape.as_ref().map_or(-1, |s| s.len() as i32),
            shape: opts.shape.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            chunks: raw.as_ref().map_or(ptr::null(), |r| r as *const ca_chunks_t),
            limit: opts.limit,
        };
        new_array(|h| f(h, &o))
    }

    /// dask's `empty_like(self, dtype=, shape=, chunks=)`: contents unspecified (zeros in practice).
    ///
    /// Errors: `InvalidArgument` (chunks that do not fit the shape, negative extents, unknown chunk
    /// sizes of self without a shape or chunks), `Type` (an invalid dtype).
    pub fn empty_like(&self, opts: &LikeOptions) -> Result<Array> {
        let l = lib()?;
        self.like(opts, |h, o| unsafe { (l.ca_array_empty_like)(h, self.h, o) })
    }
    /// dask's `zeros_like` (see [`Array::empty_like`] for the options and errors).
    pub fn zeros_like(&self, opts: &LikeOptions) -> Result<Array> {
        let l = lib()?;
        self.like(opts, |h, o| unsafe { (l.ca_array_zeros_like)(h, self.h, o) })
    }
    /// dask's `ones_like` (see [`Array::empty_like`]).
    pub fn ones_like(&self, opts: &LikeOptions) -> Result<Array> {
        let l = lib()?;
        self.like(opts, |h, o| unsafe { (l.ca_array_ones_like)(h, self.h, o) })
    }
    /// dask's `full_like(self, value)`: `value` cast to the result's dtype as NumPy's unsafe cast
    /// (integers truncate, bool is `value != 0`).
    pub fn full_like(&self, value: f64, opts: &LikeOptions) -> Result<Array> {
        let l = lib()?;
        let s = ca_scalar_t { kind: DType::Float64.code(), reserved: 0, re: value, im: 0.0, i64_: 0 };
        self.like(opts, |h, o| unsafe { (l.ca_array_full_like)(h, self.h, s, o) })
    }

    /// `np.indices(dims, dtype)` with dask's chunks `((1,) * ndim, *chunks)`: shape `(ndim, *dims)`,
    /// element `[c, i0, i1, ...]` is `i_c`. `chunks`: one block size per dimension (-1 whole, 0 auto).
    pub fn indices(dims: &[i64], chunks: &[i64], dtype: DType) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(dims, chunks, dtype)?);
        let raw = cc.raw();
        let dp = if dims.is_empty() { ptr::null() } else { dims.as_ptr() };
        new_array(|h| unsafe { (l.ca_array_indices)(h, dims.len() as i32, dp, &raw, dtype.code()) })
    }

    /// `np.meshgrid(*arrays, indexing, sparse)` with dask's chunks: each input is raveled and keeps
    /// its chunks along its own output axis.
    pub fn meshgrid(arrays: &[&Array], indexing: Indexing, sparse: bool) -> Result<Vec<Array>> {
        let l = lib()?;
        let hs = handles(arrays);
        let ix = match indexing {
            Indexing::Xy => CA_MESHGRID_XY,
            Indexing::Ij => CA_MESHGRID_IJ,
        };
        many(arrays.len(), |out| unsafe {
            (l.ca_array_meshgrid)(out, hs.as_ptr(), hs.len(), ix, c_int::from(sparse))
        })
    }

    /// `np.broadcast_arrays(*arrays)` with dask's chunks (unified along the trailing axes).
    ///
    /// Errors: `InvalidArgument` for shapes that do not broadcast.
    pub fn broadcast_arrays(arrays: &[&Array]) -> Result<Vec<Array>> {
        let l = lib()?;
        let hs = handles(arrays);
        many(arrays.len(), |out| unsafe { (l.ca_array_broadcast_arrays)(out, hs.as_ptr(), hs.len()) })
    }

    /// `np.tril(self, k)`: the elements above the k-th diagonal of the last two axes set to zero
    /// (chunks and dtype kept).
    pub fn tril(&self, k: i64) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_tril)(h, self.h, k) })
    }
    /// `np.triu(self, k)`: the elements below the k-th diagonal set to zero.
    pub fn triu(&self, k: i64) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_triu)(h, self.h, k) })
    }

    fn tri_indices(upper: bool, n: i64, k: i64, m: Option<i64>, chunks: &[Vec<i64>]) -> Result<(Array, Array)> {
        let l = lib()?;
        let cc = CChunks::new(chunks);
        let raw = cc.raw();
        let (mut r, mut c) = (ptr::null_mut(), ptr::null_mut());
        let f = if upper { l.ca_array_triu_indices } else { l.ca_array_tril_indices };
        check(unsafe { f(&mut r, &mut c, n, k, m.unwrap_or(-1), &raw) })?;
        Ok((Array { h: r }, Array { h: c }))
    }

    /// `np.tril_indices(n, k, m)` (m None: n) as dask: (rows, cols), int64, in C order, blocks of
    /// unknown size. `chunks`: one block size per dimension of the (n, m) mask.
    pub fn tril_indices(n: i64, k: i64, m: Option<i64>, chunks: &[i64]) -> Result<(Array, Array)> {
        let ch = normalize_chunks(&[n, m.unwrap_or(n)], chunks, DType::Bool)?;
        Array::tri_indices(false, n, k, m, &ch)
    }
    /// `np.triu_indices(n, k, m)` (see [`Array::tril_indices`]).
    pub fn triu_indices(n: i64, k: i64, m: Option<i64>, chunks: &[i64]) -> Result<(Array, Array)> {
        let ch = normalize_chunks(&[n, m.unwrap_or(n)], chunks, DType::Bool)?;
        Array::tri_indices(true, n, k, m, &ch)
    }
    /// `np.tril_indices_from(self, k)`: self must be 2-d; its shape and chunks are used.
    pub fn tril_indices_from(&self, k: i64) -> Result<(Array, Array)> {
        let s = self.shape();
        if s.len() != 2 {
            return Err(Error::raw(CA_EINVAL, format!("tril_indices_from: the input must be 2-d, it has {} dimensions",
                                                     s.len())));
        }
        Array::tri_indices(false, s[0], k, Some(s[1]), &self.chunks())
    }
    /// `np.triu_indices_from(self, k)`: self must be 2-d.
    pub fn triu_indices_from(&self, k: i64) -> Result<(Array, Array)> {
        let s = self.shape();
        if s.len() != 2 {
            return Err(Error::raw(CA_EINVAL, format!("triu_indices_from: the input must be 2-d, it has {} dimensions",
                                                     s.len())));
        }
        Array::tri_indices(true, s[0], k, Some(s[1]), &self.chunks())
    }

    /// `np.diagonal(self, offset, axis1, axis2)` with dask's chunks: the diagonal is the last axis.
    pub fn diagonal(&self, offset: i64, axis1: i32, axis2: i32) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_diagonal)(h, self.h, offset, axis1, axis2) })
    }

    // -- sorting, sets, searching --------------------------------------------------------------

    /// `np.sort(self, axis)` (stable, NaNs last); `descending`: the stable descending order with
    /// NaNs first. The sorted axis becomes one block; the others keep their chunks.
    pub fn sort(&self, axis: i32, descending: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_sort)(h, self.h, axis, c_int::from(descending)) })
    }
    /// `np.argsort(self, axis, kind='stable')`: int64 indices that sort self along `axis`.
    pub fn argsort(&self, axis: i32, descending: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_argsort)(h, self.h, axis, c_int::from(descending)) })
    }

    /// `np.unique(self)`: the sorted unique values of the flattened array.
    pub fn unique(&self) -> Result<Array> {
        Ok(self.unique_with(UniqueOptions::default())?.values)
    }
    /// `np.unique(self, return_index, return_inverse, return_counts)`.
    pub fn unique_with(&self, opts: UniqueOptions) -> Result<Unique> {
        let l = lib()?;
        let (mut v, mut i, mut inv, mut c) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let pick = |want: bool, p: &mut *mut ca_array_t| if want { p as *mut *mut ca_array_t } else { ptr::null_mut() };
        let (pi, pinv, pc) = (pick(opts.index, &mut i), pick(opts.inverse, &mut inv), pick(opts.counts, &mut c));
        let flags = if opts.distinct_nan { CA_UNIQUE_DISTINCT_NAN } else { 0 };
        check(unsafe { (l.ca_array_unique)(&mut v, pi, pinv, pc, self.h, flags) })?;
        let wrap = |h: *mut ca_array_t| if h.is_null() { None } else { Some(Array { h }) };
        Ok(Unique { values: Array { h: v }, index: wrap(i), inverse: wrap(inv), counts: wrap(c) })
    }

    /// `np.isin(self, test, invert)`: bool with self's chunks (NaN is never found).
    pub fn isin(&self, test: &Array, invert: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_isin)(h, self.h, test.h, c_int::from(invert)) })
    }
    /// `np.union1d(self, other)`: the sorted unique values of both, flattened.
    pub fn union1d(&self, other: &Array) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_union1d)(h, self.h, other.h) })
    }
    /// `np.searchsorted(self, v, side, sorter)`: int64 insertion positions of `v` (any shape) into
    /// the sorted 1-d self (or self put in order by the indices `sorter`), with v's chunks.
    pub fn searchsorted(&self, v: &Array, side: Side, sorter: Option<&Array>) -> Result<Array> {
        let l = lib()?;
        let s = if side == Side::Right { CA_SIDE_RIGHT } else { CA_SIDE_LEFT };
        let so = sorter.map_or(ptr::null(), |a| a.h as *const ca_array_t);
        new_array(|h| unsafe { (l.ca_array_searchsorted)(h, self.h, v.h, s, so) })
    }
    /// `np.digitize(self, bins, right)`: int64 bin indices with self's chunks. `bins` (1-d,
    /// monotonic) is checked when computed.
    pub fn digitize(&self, bins: &Array, right: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_digitize)(h, self.h, bins.h, c_int::from(right)) })
    }
    /// `np.nonzero(self)`: one int64 array of indices per axis (blocks of unknown size).
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        let l = lib()?;
        if self.ndim() == 0 {
            return Err(Error::raw(CA_EINVAL, "nonzero: a 0-d array has no axes to index (use atleast_1d)"));
        }
        many(self.ndim(), |out| unsafe { (l.ca_array_nonzero)(out, self.h) })
    }
    /// `np.flatnonzero(self)`: the nonzero positions of the raveled array (int64).
    pub fn flatnonzero(&self) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_flatnonzero)(h, self.h) })
    }
    /// `np.argwhere(self)`: `(unknown, ndim)` int64 indices of the nonzero elements in C order.
    pub fn argwhere(&self) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_argwhere)(h, self.h) })
    }

    // -- manipulation --------------------------------------------------------------------------

    /// `np.roll(self, shifts, axes)`: `axes` None rolls the flattened array by `shifts[0]` (one
    /// shift) and reshapes it back; otherwise one shift per axis.
    pub fn roll(&self, shifts: &[i64], axes: Option<&[i32]>) -> Result<Array> {
        let l = lib()?;
        if let Some(ax) = axes {
            if ax.len() != shifts.len() {
                return Err(Error::raw(CA_EINVAL, format!("roll: {} shifts for {} axes", shifts.len(), ax.len())));
            }
        }
        let ap = axes.map_or(ptr::null(), |a| a.as_ptr());
        new_array(|h| unsafe { (l.ca_array_roll)(h, self.h, shifts.as_ptr(), ap, shifts.len() as i32) })
    }
    /// dask's `take(self, indices, axis)`: `self[..., indices, ...]` along `axis` (indices may be
    /// unsorted, repeated or negative).
    ///
    /// Errors: `InvalidArgument` (an axis out of range, an index out of bounds, unknown chunk sizes
    /// along `axis`).
    pub fn take(&self, indices: &[i64], axis: i32) -> Result<Array> {
        let l = lib()?;
        let ip = if indices.is_empty() { ptr::null() } else { indices.as_ptr() };
        new_array(|h| unsafe { (l.ca_array_take)(h, self.h, ip, indices.len() as i64, axis) })
    }
    /// `np.rot90(self, k, axes=(axis0, axis1))`.
    pub fn rot90(&self, k: i64, axis0: i32, axis1: i32) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_rot90)(h, self.h, k, axis0, axis1) })
    }
    /// `np.rollaxis(self, axis, start)`.
    pub fn rollaxis(&self, axis: i32, start: i32) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_rollaxis)(h, self.h, axis, start) })
    }

    /// `np.einsum(subscripts, *operands)` as dask (blockwise over the letters, then a sum over the
    /// blocks of the contracted ones); `dtype` None: the operands' promotion.
    ///
    /// Errors: `InvalidArgument` (bad subscripts, shapes that do not broadcast, unknown chunk
    /// sizes), `Type` (an operand that is not a number).
    pub fn einsum(subscripts: &str, operands: &[&Array], dtype: Option<DType>) -> Result<Array> {
        let l = lib()?;
        let s = cstring(subscripts)?;
        let hs = handles(operands);
        new_array(|h| unsafe {
            (l.ca_linalg_einsum)(h, s.as_ptr(), hs.as_ptr(), hs.len(), dtype.map_or(0, |d| d.code()))
        })
    }

    // -- unknown chunk sizes ---------------------------------------------------------------------

    /// True when every block size is known (false after `unique`, `nonzero`, ... until
    /// [`Array::compute_chunk_sizes`]).
    pub fn chunks_known(&self) -> bool {
        lib().map_or(false, |l| unsafe { (l.ca_array_chunks_known)(self.h) } != 0)
    }
    /// dask's `compute_chunk_sizes()`: runs the graph keeping only each block's shape and returns the
    /// same array with known chunks.
    pub fn compute_chunk_sizes(&self, ctx: &Context) -> Result<Array> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        ComputeOptions::default().run(|o| unsafe { (l.ca_array_compute_chunk_sizes)(&mut h, ctx.h, self.h, o) })?;
        Ok(Array { h })
    }

    // -- insert, delete, choose, select, coarsen, bincount -------------------------------------

    /// `np.insert(self, positions, values, axis)` with dask's chunks: `values` (cast to self's dtype,
    /// broadcast to self's shape with `positions.len()` along `axis`) placed before each position
    /// (0..=extent; negative counts from the end).
    ///
    /// Errors: `InvalidArgument` (an axis or position out of range, values that do not broadcast,
    /// unknown chunk sizes), `Type` (values that do not cast).
    pub fn insert(&self, positions: &[i64], values: &Array, axis: i32) -> Result<Array> {
        let f = lib()?.ca_array_insert;
        let pp = if positions.is_empty() { ptr::null() } else { positions.as_ptr() };
        new_array(|h| unsafe { f(h, self.h, pp, positions.len(), values.h, axis) })
    }
    /// `np.delete(self, positions, axis)` with dask's chunks (repeats allowed, negative counts from
    /// the end).
    pub fn delete(&self, positions: &[i64], axis: i32) -> Result<Array> {
        let f = lib()?.ca_array_delete;
        let pp = if positions.is_empty() { ptr::null() } else { positions.as_ptr() };
        new_array(|h| unsafe { f(h, self.h, pp, positions.len(), axis) })
    }
    /// `np.choose(self, choices, mode)`: element i is `choices[self[i]][i]` (self bool or integer;
    /// everything broadcast together).
    pub fn choose(&self, choices: &[&Array], mode: ChooseMode) -> Result<Array> {
        let f = lib()?.ca_array_choose;
        let hs = handles(choices);
        let m = match mode {
            ChooseMode::Raise => CA_CHOOSE_RAISE,
            ChooseMode::Wrap => CA_CHOOSE_WRAP,
            ChooseMode::Clip => CA_CHOOSE_CLIP,
        };
        new_array(|h| unsafe { f(h, self.h, hs.as_ptr(), hs.len(), m) })
    }
    /// `np.select(conditions, choices, default)`: where the first true condition is, its choice;
    /// elsewhere `default` (NumPy's is `Scalar::Int(0)`).
    pub fn select(conditions: &[&Array], choices: &[&Array], default: Scalar) -> Result<Array> {
        let f = lib()?.ca_array_select;
        if conditions.len() != choices.len() {
            return Err(Error::raw(CA_EINVAL, format!("select: {} conditions for {} choices", conditions.len(),
                                                     choices.len())));
        }
        let (cs, hs) = (handles(conditions), handles(choices));
        new_array(|h| unsafe { f(h, cs.as_ptr(), hs.as_ptr(), hs.len(), default.raw()) })
    }
    /// dask's `coarsen(op, self, factors, trim_excess)`: `op` over non-overlapping windows of
    /// `factors` elements (one per axis, 1: untouched).
    pub fn coarsen(&self, op: crate::Reduction, factors: &[i64], trim_excess: bool) -> Result<Array> {
        let f = lib()?.ca_array_coarsen;
        if factors.len() != self.ndim() {
            return Err(Error::raw(CA_EINVAL, format!("coarsen: {} factors for {} dimensions", factors.len(),
                                                     self.ndim())));
        }
        let fp = if factors.is_empty() { ptr::null() } else { factors.as_ptr() };
        new_array(|h| unsafe { f(h, op as i32, self.h, fp, c_int::from(trim_excess)) })
    }
    /// `np.bincount(self, weights, minlength)` with a result of `length` elements (NumPy's length is
    /// `max(self.max() + 1, minlength)`: compute it first): int64 counts of each value in
    /// `0..length`, or with `weights` (self's shape, real numeric) their float64 sums. One block,
    /// made by dask's tree reduction (`split_every` blocks per node, 0: dask's default). A value
    /// outside `[0, length)` fails the compute.
    ///
    /// Errors: `InvalidArgument` (self not 1-d, a negative length, weights of another shape,
    /// unknown chunk sizes), `Type` (self not bool or integer, complex or non-numeric weights).
    pub fn bincount(&self, weights: Option<&Array>, length: i64, split_every: i32) -> Result<Array> {
        let f = lib()?.ca_array_bincount;
        let w = weights.map_or(ptr::null(), |w| w.h as *const ca_array_t);
        new_array(|h| unsafe { f(h, self.h, w, length, split_every) })
    }
    /// `np.bincount(self, weights, minlength)` with NumPy's length, `max(self.max() + 1, minlength)`,
    /// found by the one pass that counts (`CA_BINCOUNT_AT_LEAST`): the result's length is unknown
    /// until computed (dask's nan chunk; `compute_chunk_sizes` measures it). A negative value fails
    /// the compute.
    ///
    /// Errors: as [`Array::bincount`]; `InvalidArgument` for a negative `minlength`.
    pub fn bincount_minlength(&self, weights: Option<&Array>, minlength: i64, split_every: i32) -> Result<Array> {
        if minlength < 0 {
            return Err(Error::raw(CA_EINVAL, format!("bincount: minlength {} is negative", minlength)));
        }
        self.bincount(weights, -1 - minlength, split_every)
    }
    fn histogram_raw(samples: &[&Array], bins: &[HistogramBins], opts: &HistogramOptions, mode: i32)
        -> Result<(Array, Vec<Array>)> {
        let f = lib()?.ca_array_histogramdd;
        if bins.len() != samples.len() {
            return Err(Error::raw(CA_EINVAL, format!("histogramdd: {} bins for {} samples", bins.len(),
                                                     samples.len())));
        }
        let hs = handles(samples);
        let b: Vec<ca_histogram_bins_t> = bins.iter().map(|b| match *b {
            HistogramBins::Uniform { nbins, lo, hi } => ca_histogram_bins_t { nbins, lo, hi, edges: ptr::null() },
            HistogramBins::Edges(e) => ca_histogram_bins_t { nbins: 0, lo: 0.0, hi: 0.0, edges: e.h },
        }).collect();
        let o = ca_histogram_options_t {
            struct_size: std::mem::size_of::<ca_histogram_options_t>() as u32,
            weights: opts.weights.map_or(ptr::null(), |w| w.h as *const ca_array_t),
            density: i32::from(opts.density),
            mode,
            split_every: opts.split_every,
        };
        let mut hist: *mut ca_array_t = ptr::null_mut();
        let edges = many(samples.len(), |out| unsafe { f(&mut hist, out, hs.as_ptr(), hs.len(), b.as_ptr(), &o) })?;
        Ok((Array { h: hist }, edges))
    }
    /// `np.histogram(self, bins, range, weights=, density=)` with dask's scheme: one task per block
    /// counts (the expression producing self evaluated in it), a tree sums; the histogram (one block:
    /// int64 counts, the weights' dtype with weights, float64 with density) and the edges (NumPy's
    /// for uniform bins: float32 for float16/float32 data, float64 otherwise; the given array).
    /// Values outside the edges and NaNs are ignored; the last bin is closed.
    ///
    /// Errors: `InvalidArgument` (a range with lo > hi or not finite, nbins < 1, weights of another
    /// shape, edges not 1-d or empty; edges that do not increase fail the compute), `Type` (complex
    /// samples, non-numeric weights or edges).
    pub fn histogram(&self, bins: HistogramBins, opts: &HistogramOptions) -> Result<(Array, Array)> {
        if let HistogramBins::Uniform { nbins, .. } = bins {
            if nbins < 1 {
                return Err(Error::raw(CA_EINVAL, "histogram: `bins` must be positive, when an integer".to_string()));
            }
        }
        let (h, mut e) = Array::histogram_raw(&[self], &[bins], opts, CA_HISTOGRAM_1D)?;
        Ok((h, e.remove(0)))
    }
    /// `np.histogramdd(samples, bins, range, weights=, density=)` (two samples: `np.histogram2d`):
    /// the samples (one shape) placed by `searchsorted(edges, x, 'right')` in float64; float64
    /// result of shape (nbins per dimension), one block; the edges per dimension (float64
    /// linspace for uniform bins, the given arrays).
    ///
    /// Errors: as [`Array::histogram`]; `InvalidArgument` also for samples of different shapes or a
    /// count of bins other than of samples.
    pub fn histogramdd(samples: &[&Array], bins: &[HistogramBins], opts: &HistogramOptions)
        -> Result<(Array, Vec<Array>)> {
        for (i, b) in bins.iter().enumerate() {
            if let HistogramBins::Uniform { nbins, .. } = b {
                if *nbins < 1 {
                    return Err(Error::raw(CA_EINVAL, format!("histogramdd: `bins[{}]` must be positive, when an integer", i)));
                }
            }
        }
        Array::histogram_raw(samples, bins, opts, CA_HISTOGRAM_DD)
    }
    /// `np.ravel_multi_index(coords, dims, mode, order)`: the int64 flat index of each coordinate
    /// tuple, the coordinate arrays (integer dtypes) broadcast together. `modes`: empty (raise for
    /// every dimension) or one [`ChooseMode`] per dimension; `fortran_order`: NumPy's `order='F'`.
    /// A coordinate out of range in a `Raise` dimension fails the compute.
    ///
    /// Errors: `InvalidArgument` (no coordinates, a count of dims or modes other than the number of
    /// coordinate arrays, a negative extent, shapes that do not broadcast), `Type` (a coordinate
    /// array not of an integer dtype).
    pub fn ravel_multi_index(coords: &[&Array], dims: &[i64], modes: &[ChooseMode], fortran_order: bool)
        -> Result<Array> {
        let f = lib()?.ca_array_ravel_multi_index;
        if dims.len() != coords.len() || (!modes.is_empty() && modes.len() != coords.len()) {
            return Err(Error::raw(CA_EINVAL, format!("ravel_multi_index: {} coordinate arrays, {} dims, {} modes",
                                                     coords.len(), dims.len(), modes.len())));
        }
        let hs = handles(coords);
        let ms: Vec<i32> = modes.iter().map(|m| match m {
            ChooseMode::Raise => CA_CHOOSE_RAISE,
            ChooseMode::Wrap => CA_CHOOSE_WRAP,
            ChooseMode::Clip => CA_CHOOSE_CLIP,
        }).collect();
        let mp = if ms.is_empty() { ptr::null() } else { ms.as_ptr() };
        new_array(|h| unsafe { f(h, hs.as_ptr(), hs.len(), dims.as_ptr(), mp, c_int::from(fortran_order)) })
    }
    /// `np.unravel_index(self, dims, order)`: one int64 array of coordinates per dimension, with
    /// self's chunks. An index outside `[0, product of dims)` fails the compute.
    ///
    /// Errors: `InvalidArgument` (no dims, a negative extent), `Type` (self not of an integer dtype).
    pub fn unravel_index(&self, dims: &[i64], fortran_order: bool) -> Result<Vec<Array>> {
        let f = lib()?.ca_array_unravel_index;
        if dims.is_empty() {
            return Err(Error::raw(CA_EINVAL, "unravel_index: dims is empty".to_string()));
        }
        many(dims.len(), |out| unsafe { f(out, self.h, dims.as_ptr(), dims.len(), c_int::from(fortran_order)) })
    }

    // -- order statistics ----------------------------------------------------------------------

    fn quantile_raw(&self, q: &[f64], scalar: bool, axes: &[i32], opts: &QuantileOptions) -> Result<Array> {
        let l = lib()?;
        for &a in axes {
            check_axis("quantile", a, self.ndim())?;
        }
        let o = ca_quantile_options_t {
            struct_size: std::mem::size_of::<ca_quantile_options_t>() as u32,
            method: opts.method.code(),
            keepdims: i32::from(opts.keepdims),
            skip_nan: i32::from(opts.skip_nan),
            dtype: opts.dtype.map_or(0, |d| d.code()),
        };
        let qp = if q.is_empty() { ptr::null() } else { q.as_ptr() };
        new_array(|h| unsafe {
            (l.ca_array_quantile)(h, self.h, qp, q.len(), c_int::from(scalar), opt_ptr(axes), axes.len() as i32, &o)
        })
    }

    /// `np.quantile(self, q, axis=axes)` for one `q` in [0, 1], exact (`axes` empty: all). The
    /// reduced axes become one chunk each, as dask's median; no other axis is rechunked.
    ///
    /// Errors: `InvalidArgument` (q outside [0, 1] or NaN, an axis out of range or repeated, a 0-d
    /// array), `Type` (complex, string or time dtypes; bool with linear/midpoint and no float dtype).
    pub fn quantile(&self, q: f64, axes: &[i32], opts: &QuantileOptions) -> Result<Array> {
        self.quantile_raw(&[q], true, axes, opts)
    }
    /// `np.quantile(self, qs, axis=axes)` for several `qs`: the result's first axis is q's.
    pub fn quantiles(&self, qs: &[f64], axes: &[i32], opts: &QuantileOptions) -> Result<Array> {
        self.quantile_raw(qs, false, axes, opts)
    }
    /// `np.percentile(self, p, axis=axes)`: [`Array::quantile`] of `p / 100`.
    pub fn percentile(&self, p: f64, axes: &[i32], opts: &QuantileOptions) -> Result<Array> {
        self.quantile_raw(&[p / 100.0], true, axes, opts)
    }
    /// `np.percentile(self, ps, axis=axes)` for several `ps`: the result's first axis is ps'.
    pub fn percentiles(&self, ps: &[f64], axes: &[i32], opts: &QuantileOptions) -> Result<Array> {
        let q: Vec<f64> = ps.iter().map(|p| p / 100.0).collect();
        self.quantile_raw(&q, false, axes, opts)
    }

    fn median_raw(&self, axes: &[i32], keepdims: bool, skip_nan: bool) -> Result<Array> {
        // np.median keeps float16 and float32; everything else gives float64
        let dtype = match self.dtype() {
            d @ (DType::Float16 | DType::Float32) => d,
            _ => DType::Float64,
        };
        let o = QuantileOptions { method: QuantileMethod::Linear, keepdims, skip_nan, dtype: Some(dtype) };
        self.quantile_raw(&[0.5], true, axes, &o)
    }
    /// `np.median(self, axis=axes, keepdims)` (`axes` empty: all): float16/float32 stay, other
    /// dtypes give float64. The reduced axes become one chunk each, as dask's median.
    pub fn median(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        self.median_raw(axes, keepdims, false)
    }
    /// `np.nanmedian(self, axis=axes, keepdims)`: NaNs ignored (an all-NaN row gives NaN).
    pub fn nanmedian(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        self.median_raw(axes, keepdims, true)
    }
}
