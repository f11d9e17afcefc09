package chunkarray

// NumPy's routines over the C library's routines.h and ca_array_quantile: the *Like constructors,
// Indices, Meshgrid, BroadcastArrays, Tril/Triu (and their indices), Diagonal; Sort, Argsort,
// Unique, IsIn, Union1d, SearchSorted, Digitize, Nonzero, FlatNonzero, Argwhere; Roll, Rot90,
// Rollaxis; Median, Quantile, Percentile (exact, as dask's median: the reduced axes become one
// chunk each). Values are NumPy's and chunks dask's. Results whose size depends on the data
// (Unique, Nonzero, Argwhere, the triangle indices, ...) have blocks of unknown size (-1 in
// Chunks) until computed.

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"unsafe"
)

// cArrays copies array handles into C memory (free it with C.free).
func cArrays(arrays []*Array) (**C.ca_array_t, error) {
	n := len(arrays)
	p := (**C.ca_array_t)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	s := unsafe.Slice(p, n+1)
	for i, a := range arrays {
		if a == nil || a.h == nil {
			C.free(unsafe.Pointer(p))
			return nil, newError(StatusInvalidArgument, "array %d is nil or closed", i)
		}
		s[i] = a.h
	}
	return p, nil
}

// many runs f with n output pointers in C memory and wraps them all (or none, on failure).
func many(n int, f func(out **C.ca_array_t) C.ca_status_t) ([]*Array, error) {
	p := (**C.ca_array_t)(C.calloc(C.size_t(n+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(p))
	if err := call(func() C.ca_status_t { return f(p) }); err != nil {
		return nil, err
	}
	out := make([]*Array, n)
	for i, h := range unsafe.Slice(p, n) {
		out[i] = wrapArray(h)
	}
	return out, nil
}

// cInt32s copies a slice into C memory (nil for an empty slice; free it with C.free).
func cInt32s(v []int32) *C.int32_t {
	if len(v) == 0 {
		return nil
	}
	p := (*C.int32_t)(C.malloc(C.size_t(4 * len(v))))
	copy(unsafe.Slice((*int32)(unsafe.Pointer(p)), len(v)), v)
	return p
}

// ---------------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------------

// LikeOptions are the options of EmptyLike and friends (ca_like_options_t); a zero field keeps
// the input's value.
type LikeOptions struct {
	DType  DType     // the result's dtype; 0: the input's
	Shape  []int64   // a new shape; nil: the input's (a non-nil empty slice: 0-d)
	Chunks [][]int64 // the result's block sizes per dimension; nil: the input's for its own shape, "auto" for a new one
	Limit  int64     // "auto" chunks: bytes per block; 0: the library's default (128 MiB)
}

func (a *Array) like(o *LikeOptions, f func(out **C.ca_array_t, opts *C.ca_like_options_t) C.ca_status_t) (*Array, error) {
	opts := (*C.ca_like_options_t)(C.calloc(1, C.sizeof_ca_like_options_t))
	defer C.free(unsafe.Pointer(opts))
	opts.struct_size = C.uint32_t(C.sizeof_ca_like_options_t)
	opts.ndim = -1
	if o != nil {
		opts.dtype = C.ca_dtype_t(o.DType)
		opts.limit = C.int64_t(o.Limit)
		if o.Shape != nil {
			sp := cInt64s(o.Shape)
			defer C.free(unsafe.Pointer(sp))
			opts.ndim = C.int32_t(len(o.Shape))
			opts.shape = sp
		}
		if o.Chunks != nil {
			cc := newCChunks(o.Chunks)
			defer cc.free()
			cp := (*C.ca_chunks_t)(C.malloc(C.sizeof_ca_chunks_t))
			defer C.free(unsafe.Pointer(cp))
			*cp = cc.c
			opts.chunks = cp
		}
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t { return f(out, opts) })
}

// EmptyLike is dask's empty_like(a, dtype=, shape=, chunks=) (o may be nil): contents
// unspecified (zeros in practice). Errors: StatusInvalidArgument (chunks that do not fit the
// shape, negative extents, unknown chunk sizes of a without a shape or chunks), StatusType.
func (a *Array) EmptyLike(o *LikeOptions) (*Array, error) {
	return a.like(o, func(out **C.ca_array_t, opts *C.ca_like_options_t) C.ca_status_t {
		return C.ca_array_empty_like(out, a.h, opts)
	})
}

// ZerosLike is dask's zeros_like (see EmptyLike).
func (a *Array) ZerosLike(o *LikeOptions) (*Array, error) {
	return a.like(o, func(out **C.ca_array_t, opts *C.ca_like_options_t) C.ca_status_t {
		return C.ca_array_zeros_like(out, a.h, opts)
	})
}

// OnesLike is dask's ones_like (see EmptyLike).
func (a *Array) OnesLike(o *LikeOptions) (*Array, error) {
	return a.like(o, func(out **C.ca_array_t, opts *C.ca_like_options_t) C.ca_status_t {
		return C.ca_array_ones_like(out, a.h, opts)
	})
}

// FullLike is dask's full_like(a, value): value cast to the result's dtype as NumPy's unsafe cast
// (integers truncate, bool is value != 0).
func (a *Array) FullLike(value float64, o *LikeOptions) (*Array, error) {
	return a.like(o, func(out **C.ca_array_t, opts *C.ca_like_options_t) C.ca_status_t {
		return C.ca_array_full_like(out, a.h, C.cag_scalar_f64(C.double(value)), opts)
	})
}

// Indices is np.indices(dims, dtype) with dask's chunks ((1,) * ndim, *chunks): shape
// (ndim, *dims), element [c, i0, i1, ...] is i_c. chunks: one block size per dimension.
func Indices(dims, chunks []int64, dt DType) (*Array, error) {
	norm, err := NormalizeChunks(dims, chunks, dt)
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	dp := cInt64s(dims)
	defer C.free(unsafe.Pointer(dp))
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_indices(out, C.int32_t(len(dims)), dp, &cc.c, C.ca_dtype_t(dt))
	})
}

// Indexing is np.meshgrid's indexing (ca_meshgrid_indexing_t).
type Indexing int32

const (
	IndexingXY Indexing = C.CA_MESHGRID_XY // Cartesian (NumPy's default): the first two output axes swapped
	IndexingIJ Indexing = C.CA_MESHGRID_IJ // matrix indexing
)

// Meshgrid is np.meshgrid(*arrays, indexing, sparse) with dask's chunks: each input is raveled
// and keeps its chunks along its own output axis.
func Meshgrid(indexing Indexing, sparse bool, arrays ...*Array) ([]*Array, error) {
	hs, err := cArrays(arrays)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	return many(len(arrays), func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_meshgrid(out, hs, C.size_t(len(arrays)), C.ca_meshgrid_indexing_t(indexing), cbool(sparse))
	})
}

// BroadcastArrays is np.broadcast_arrays(*arrays) with dask's chunks (unified along the trailing
// axes). Errors: StatusInvalidArgument for shapes that do not broadcast.
func BroadcastArrays(arrays ...*Array) ([]*Array, error) {
	hs, err := cArrays(arrays)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	return many(len(arrays), func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_broadcast_arrays(out, hs, C.size_t(len(arrays)))
	})
}

// Tril is np.tril(a, k): the elements above the k-th diagonal of the last two axes set to zero
// (chunks and dtype kept).
func (a *Array) Tril(k int64) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_tril(o, a.h, C.int64_t(k)) })
}

// Triu is np.triu(a, k): the elements below the k-th diagonal set to zero.
func (a *Array) Triu(k int64) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_triu(o, a.h, C.int64_t(k)) })
}

func triIndices(upper bool, n, k, m int64, chunks [][]int64) (*Array, *Array, error) {
	cc := newCChunks(chunks)
	defer cc.free()
	var r, c *C.ca_array_t
	err := call(func() C.ca_status_t {
		if upper {
			return C.ca_array_triu_indices(&r, &c, C.int64_t(n), C.int64_t(k), C.int64_t(m), &cc.c)
		}
		return C.ca_array_tril_indices(&r, &c, C.int64_t(n), C.int64_t(k), C.int64_t(m), &cc.c)
	})
	if err != nil {
		return nil, nil, err
	}
	return wrapArray(r), wrapArray(c), nil
}

func triIndicesChunks(n, m int64, chunks []int64) (int64, [][]int64, error) {
	if m < 0 {
		m = n
	}
	norm, err := NormalizeChunks([]int64{n, m}, chunks, Bool)
	return m, norm, err
}

// TrilIndices is np.tril_indices(n, k, m) (m < 0: n) as dask: (rows, cols), int64, in C order,
// blocks of unknown size. chunks: one block size per dimension of the (n, m) mask.
func TrilIndices(n, k, m int64, chunks []int64) (rows, cols *Array, err error) {
	m, norm, err := triIndicesChunks(n, m, chunks)
	if err != nil {
		return nil, nil, err
	}
	return triIndices(false, n, k, m, norm)
}

// TriuIndices is np.triu_indices(n, k, m) (see TrilIndices).
func TriuIndices(n, k, m int64, chunks []int64) (rows, cols *Array, err error) {
	m, norm, err := triIndicesChunks(n, m, chunks)
	if err != nil {
		return nil, nil, err
	}
	return triIndices(true, n, k, m, norm)
}

// TrilIndicesFrom is np.tril_indices_from(a, k): a must be 2-d; its shape and chunks are used.
func (a *Array) TrilIndicesFrom(k int64) (rows, cols *Array, err error) {
	s := a.Shape()
	if len(s) != 2 {
		return nil, nil, newError(StatusInvalidArgument, "TrilIndicesFrom: the input must be 2-d, it has %d dimensions", len(s))
	}
	return triIndices(false, s[0], k, s[1], a.Chunks())
}

// TriuIndicesFrom is np.triu_indices_from(a, k): a must be 2-d.
func (a *Array) TriuIndicesFrom(k int64) (rows, cols *Array, err error) {
	s := a.Shape()
	if len(s) != 2 {
		return nil, nil, newError(StatusInvalidArgument, "TriuIndicesFrom: the input must be 2-d, it has %d dimensions", len(s))
	}
	return triIndices(true, s[0], k, s[1], a.Chunks())
}

// Diagonal is np.diagonal(a, offset, axis1, axis2) with dask's chunks: the diagonal is the last axis.
func (a *Array) Diagonal(offset int64, axis1, axis2 int32) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_diagonal(o, a.h, C.int64_t(offset), C.int32_t(axis1), C.int32_t(axis2))
	})
}

// ---------------------------------------------------------------------------------------------
// Sorting, sets, searching
// ---------------------------------------------------------------------------------------------

// Sort is np.sort(a, axis) (stable, NaNs last); descending: the stable descending order with NaNs
// first. The sorted axis becomes one block; the others keep their chunks.
func (a *Array) Sort(axis int32, descending bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_sort(o, a.h, C.int32_t(axis), cbool(descending))
	})
}

// Argsort is np.argsort(a, axis, kind='stable'): the int64 indices that sort a along axis.
func (a *Array) Argsort(axis int32, descending bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_argsort(o, a.h, C.int32_t(axis), cbool(descending))
	})
}

// UniqueOptions says what UniqueWith returns besides the values, and how NaNs count.
type UniqueOptions struct {
	Index       bool // the index of each value's first occurrence (return_index)
	Inverse     bool // each element's position among the values (return_inverse, flattened)
	Counts      bool // how often each value occurs (return_counts)
	DistinctNaN bool // each NaN is a value of its own (the array API); false: NaNs collapse (NumPy)
}

// UniqueResult is what UniqueWith returns: the sorted unique values and the arrays asked for (nil
// otherwise).
type UniqueResult struct {
	Values, Index, Inverse, Counts *Array
}

// Unique is np.unique(a): the sorted unique values of the flattened array.
func (a *Array) Unique() (*Array, error) {
	r, err := a.UniqueWith(UniqueOptions{})
	if err != nil {
		return nil, err
	}
	return r.Values, nil
}

// UniqueWith is np.unique(a, return_index, return_inverse, return_counts).
func (a *Array) UniqueWith(o UniqueOptions) (*UniqueResult, error) {
	outs := (**C.ca_array_t)(C.calloc(4, C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(outs))
	s := unsafe.Slice(outs, 4)
	pick := func(want bool, i int) **C.ca_array_t {
		if want {
			return &s[i]
		}
		return nil
	}
	var flags C.uint32_t
	if o.DistinctNaN {
		flags = C.CA_UNIQUE_DISTINCT_NAN
	}
	if err := call(func() C.ca_status_t {
		return C.ca_array_unique(&s[0], pick(o.Index, 1), pick(o.Inverse, 2), pick(o.Counts, 3), a.h, flags)
	}); err != nil {
		return nil, err
	}
	wrap := func(h *C.ca_array_t) *Array {
		if h == nil {
			return nil
		}
		return wrapArray(h)
	}
	return &UniqueResult{Values: wrapArray(s[0]), Index: wrap(s[1]), Inverse: wrap(s[2]), Counts: wrap(s[3])}, nil
}

// IsIn is np.isin(a, test, invert): bool with a's chunks (NaN is never found).
func (a *Array) IsIn(test *Array, invert bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_isin(o, a.h, test.h, cbool(invert)) })
}

// Union1d is np.union1d(a, b): the sorted unique values of both, flattened.
func (a *Array) Union1d(b *Array) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_union1d(o, a.h, b.h) })
}

// Side is np.searchsorted's side (ca_side_t).
type Side int32

const (
	SideLeft  Side = C.CA_SIDE_LEFT  // the first suitable position (NumPy's default)
	SideRight Side = C.CA_SIDE_RIGHT // the last suitable position
)

// SearchSorted is np.searchsorted(a, v, side, sorter): int64 insertion positions of v (any shape)
// into the sorted 1-d a (or a put in order by the indices sorter; nil: none), with v's chunks.
func (a *Array) SearchSorted(v *Array, side Side, sorter *Array) (*Array, error) {
	var sh *C.ca_array_t
	if sorter != nil {
		sh = sorter.h
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_searchsorted(o, a.h, v.h, C.ca_side_t(side), sh)
	})
}

// Digitize is np.digitize(a, bins, right): int64 bin indices with a's chunks. bins (1-d,
// monotonic) is checked when computed.
func (a *Array) Digitize(bins *Array, right bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_digitize(o, a.h, bins.h, cbool(right)) })
}

// Nonzero is np.nonzero(a): one int64 array of indices per axis (blocks of unknown size).
func (a *Array) Nonzero() ([]*Array, error) {
	nd := a.Ndim()
	if nd == 0 {
		return nil, newError(StatusInvalidArgument, "Nonzero: a 0-d array has no axes to index")
	}
	return many(nd, func(out **C.ca_array_t) C.ca_status_t { return C.ca_array_nonzero(out, a.h) })
}

// FlatNonzero is np.flatnonzero(a): the nonzero positions of the raveled array (int64).
func (a *Array) FlatNonzero() (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_flatnonzero(o, a.h) })
}

// Argwhere is np.argwhere(a): (unknown, ndim) int64 indices of the nonzero elements in C order.
func (a *Array) Argwhere() (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_argwhere(o, a.h) })
}

// ---------------------------------------------------------------------------------------------
// Manipulation
// ---------------------------------------------------------------------------------------------

// Roll is np.roll(a, shifts, axes): with axes nil the flattened array is rolled by shifts[0] (one
// shift) and reshaped back; otherwise one shift per axis.
func (a *Array) Roll(shifts []int64, axes []int32) (*Array, error) {
	if axes != nil && len(axes) != len(shifts) {
		return nil, newError(StatusInvalidArgument, "Roll: %d shifts for %d axes", len(shifts), len(axes))
	}
	sp := cInt64s(shifts)
	defer C.free(unsafe.Pointer(sp))
	ap := cInt32s(axes)
	if ap != nil {
		defer C.free(unsafe.Pointer(ap))
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_roll(o, a.h, sp, ap, C.int32_t(len(shifts)))
	})
}

// Take is dask's take(a, indices, axis): a[..., indices, ...] along axis (indices may be unsorted,
// repeated or negative). Errors: StatusInvalidArgument (an axis out of range, an index out of
// bounds, unknown chunk sizes along axis).
func (a *Array) Take(indices []int64, axis int32) (*Array, error) {
	ip := cInt64s(indices)
	defer C.free(unsafe.Pointer(ip))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_take(o, a.h, ip, C.int64_t(len(indices)), C.int32_t(axis))
	})
}

// Einsum is np.einsum(subscripts, operands...) as dask (blockwise over the letters, then a sum over
// the blocks of the contracted ones); dt 0: the operands' promotion. Errors: StatusInvalidArgument
// (bad subscripts, shapes that do not broadcast, unknown chunk sizes), StatusType.
func Einsum(subscripts string, dt DType, operands ...*Array) (*Array, error) {
	hs, err := cArrays(operands)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	cs := C.CString(subscripts)
	defer C.free(unsafe.Pointer(cs))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_linalg_einsum(o, cs, hs, C.size_t(len(operands)), C.ca_dtype_t(dt))
	})
}

// ChunksKnown reports whether every block size is known (false after Unique, Nonzero, ... until
// ComputeChunkSizes).
func (a *Array) ChunksKnown() bool { return C.ca_array_chunks_known(a.h) != 0 }

// ComputeChunkSizes is dask's compute_chunk_sizes(): it runs the graph keeping only each block's
// shape and returns the same array with known chunks.
func (a *Array) ComputeChunkSizes(c *Context) (*Array, error) {
	return a.ComputeChunkSizesContext(context.Background(), c)
}

// ComputeChunkSizesContext is ComputeChunkSizes stopped by ctx (see ComputeContext).
func (a *Array) ComputeChunkSizesContext(ctx context.Context, c *Context) (*Array, error) {
	var h *C.ca_array_t
	err := withCancel(ctx, func(o *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_compute_chunk_sizes(&h, c.h, a.h, o)
	})
	if err != nil {
		return nil, err
	}
	return wrapArray(h), nil
}

// Rot90 is np.rot90(a, k, axes=(axis0, axis1)).
func (a *Array) Rot90(k int64, axis0, axis1 int32) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_rot90(o, a.h, C.int64_t(k), C.int32_t(axis0), C.int32_t(axis1))
	})
}

// Rollaxis is np.rollaxis(a, axis, start).
func (a *Array) Rollaxis(axis, start int32) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_rollaxis(o, a.h, C.int32_t(axis), C.int32_t(start))
	})
}

// ---------------------------------------------------------------------------------------------
// Order statistics
// ---------------------------------------------------------------------------------------------

// QuantileMethod is how a quantile between two order statistics is taken (NumPy's method).
type QuantileMethod int32

const (
	QuantileLinear   QuantileMethod = C.CA_QUANTILE_LINEAR   // linear interpolation (NumPy's default)
	QuantileLower    QuantileMethod = C.CA_QUANTILE_LOWER    // the order statistic below
	QuantileHigher   QuantileMethod = C.CA_QUANTILE_HIGHER   // the one above
	QuantileNearest  QuantileMethod = C.CA_QUANTILE_NEAREST  // the nearer one (half to even)
	QuantileMidpoint QuantileMethod = C.CA_QUANTILE_MIDPOINT // the mean of both
)

// QuantileOptions are the options of Quantile and friends (ca_quantile_options_t); nil: NumPy's
// defaults.
type QuantileOptions struct {
	Method   QuantileMethod
	KeepDims bool  // keep the reduced axes with extent 1
	SkipNaN  bool  // ignore NaNs (np.nanquantile); false: a row with a NaN gives NaN
	DType    DType // Float16/32/64 (or a's for lower/higher/nearest); 0: NumPy's (float64 for linear/midpoint)
}

func (a *Array) quantile(q []float64, scalar bool, axes []int32, o *QuantileOptions) (*Array, error) {
	if o == nil {
		o = &QuantileOptions{}
	}
	opts := C.ca_quantile_options_t{struct_size: C.uint32_t(C.sizeof_ca_quantile_options_t),
		method: C.ca_quantile_method_t(o.Method), keepdims: C.int32_t(cbool(o.KeepDims)),
		skip_nan: C.int32_t(cbool(o.SkipNaN)), dtype: C.ca_dtype_t(o.DType)}
	var qp *C.double
	if len(q) > 0 {
		qp = (*C.double)(C.malloc(C.size_t(8 * len(q))))
		defer C.free(unsafe.Pointer(qp))
		copy(unsafe.Slice((*float64)(unsafe.Pointer(qp)), len(q)), q)
	}
	ap := cInt32s(axes)
	if ap != nil {
		defer C.free(unsafe.Pointer(ap))
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_quantile(out, a.h, qp, C.size_t(len(q)), cbool(scalar), ap, C.int32_t(len(axes)), &opts)
	})
}

// Quantile is np.quantile(a, q, axis=axes) for one q in [0, 1], exact (no axes: all). The reduced
// axes become one chunk each, as dask's median; no other axis is rechunked. o may be nil. Errors:
// StatusInvalidArgument (q outside [0, 1], an axis out of range or repeated, a 0-d array),
// StatusType (complex, string or time dtypes).
func (a *Array) Quantile(q float64, axes []int32, o *QuantileOptions) (*Array, error) {
	return a.quantile([]float64{q}, true, axes, o)
}

// Quantiles is np.quantile(a, qs, axis=axes) for several qs: the result's first axis is q's.
func (a *Array) Quantiles(qs []float64, axes []int32, o *QuantileOptions) (*Array, error) {
	return a.quantile(qs, false, axes, o)
}

// Percentile is np.percentile(a, p, axis=axes): Quantile of p / 100.
func (a *Array) Percentile(p float64, axes []int32, o *QuantileOptions) (*Array, error) {
	return a.quantile([]float64{p / 100}, true, axes, o)
}

// Percentiles is np.percentile(a, ps, axis=axes) for several ps: the result's first axis is ps'.
func (a *Array) Percentiles(ps []float64, axes []int32, o *QuantileOptions) (*Array, error) {
	q := make([]float64, len(ps))
	for i, p := range ps {
		q[i] = p / 100
	}
	return a.quantile(q, false, axes, o)
}

func (a *Array) median(keepDims, skipNaN bool, axes []int32) (*Array, error) {
	dt := Float64 // np.median keeps float16 and float32
	if d := a.DType(); d == Float16 || d == Float32 {
		dt = d
	}
	return a.quantile([]float64{0.5}, true, axes, &QuantileOptions{KeepDims: keepDims, SkipNaN: skipNaN, DType: dt})
}

// Median is np.median(a, axis=axes, keepdims) (no axes: all): float16/float32 stay, other dtypes
// give float64. The reduced axes become one chunk each, as dask's median.
func (a *Array) Median(keepDims bool, axes ...int32) (*Array, error) {
	return a.median(keepDims, false, axes)
}

// NanMedian is np.nanmedian(a, axis=axes, keepdims): NaNs ignored (an all-NaN row gives NaN).
func (a *Array) NanMedian(keepDims bool, axes ...int32) (*Array, error) {
	return a.median(keepDims, true, axes)
}

// ---------------------------------------------------------------------------------------------
// Insert, Delete, Choose, Select, Coarsen, Bincount
// ---------------------------------------------------------------------------------------------

// Insert is np.insert(a, positions, values, axis) with dask's chunks: values (cast to a's dtype,
// broadcast to a's shape with len(positions) along axis) placed before each position (0..extent;
// negative counts from the end; equal positions keep the values' order). For NumPy's scalar obj
// pass the position len(values) times. Errors: StatusInvalidArgument (an axis or position out of
// range, values that do not broadcast, unknown chunk sizes), StatusType (values that do not cast).
func (a *Array) Insert(positions []int64, values *Array, axis int32) (*Array, error) {
	if values == nil {
		return nil, newError(StatusInvalidArgument, "Insert: values is nil")
	}
	pp := cInt64s(positions)
	defer C.free(unsafe.Pointer(pp))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_insert(o, a.h, pp, C.size_t(len(positions)), values.h, C.int32_t(axis))
	})
}

// Delete is np.delete(a, positions, axis) with dask's chunks (repeats allowed, negative counts from
// the end). Errors: StatusInvalidArgument (an axis or position out of range, unknown chunk sizes).
func (a *Array) Delete(positions []int64, axis int32) (*Array, error) {
	pp := cInt64s(positions)
	defer C.free(unsafe.Pointer(pp))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_delete(o, a.h, pp, C.size_t(len(positions)), C.int32_t(axis))
	})
}

// ChooseMode is np.choose's mode: what an index outside [0, n) does (ca_choose_mode_t).
type ChooseMode int32

// The modes of Choose.
const (
	ChooseRaise ChooseMode = C.CA_CHOOSE_RAISE // the compute fails ("choose: invalid entry in choice array")
	ChooseWrap  ChooseMode = C.CA_CHOOSE_WRAP  // the index taken modulo n
	ChooseClip  ChooseMode = C.CA_CHOOSE_CLIP  // the index clipped to [0, n-1]
)

// Choose is np.choose(a, choices, mode): element i is choices[a[i]][i] (a bool or integer,
// everything broadcast together with dask's chunks; the choices' common dtype). Errors:
// StatusInvalidArgument (no choices, shapes that do not broadcast, an unknown mode), StatusType
// (a not bool or integer; choices without a common dtype). With ChooseRaise an index out of range
// fails the compute.
func (a *Array) Choose(mode ChooseMode, choices ...*Array) (*Array, error) {
	if len(choices) == 0 {
		return nil, newError(StatusInvalidArgument, "Choose: no choices")
	}
	hs, err := cArrays(choices)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_choose(o, a.h, hs, C.size_t(len(choices)), C.ca_choose_mode_t(mode))
	})
}

func selectWith(conditions, choices []*Array, def C.ca_scalar_t) (*Array, error) {
	if len(conditions) != len(choices) {
		return nil, newError(StatusInvalidArgument, "Select: %d conditions for %d choices", len(conditions), len(choices))
	}
	if len(choices) == 0 {
		return nil, newError(StatusInvalidArgument, "Select: no conditions")
	}
	cs, err := cArrays(conditions)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cs))
	hs, err := cArrays(choices)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_select(o, cs, hs, C.size_t(len(choices)), def)
	})
}

// Select is np.select(conditions, choices, def) with a float default (a Python float's promotion):
// where the first true condition is, its choice; elsewhere def. One fused elementwise expression.
// Errors: StatusInvalidArgument (different counts, none, shapes that do not broadcast), StatusType
// (a condition that is not bool).
func Select(conditions, choices []*Array, def float64) (*Array, error) {
	return selectWith(conditions, choices, C.cag_scalar_f64(C.double(def)))
}

// SelectInt is Select with an integer default (a Python int's value-based promotion: it does not
// widen an integer result; NumPy's default is 0).
func SelectInt(conditions, choices []*Array, def int64) (*Array, error) {
	return selectWith(conditions, choices, C.cag_scalar_i64(C.int64_t(def)))
}

// Coarsen is dask's coarsen(op, a, factors, trimExcess): the reduction op over non-overlapping
// windows of factors elements (one per axis, 1: untouched), with dask's aligned chunks. Errors:
// StatusInvalidArgument (a factor < 1, extents that are not multiples without trimExcess, an
// arg-reduction, unknown chunk sizes), StatusType (op undefined for the dtype).
func (a *Array) Coarsen(op Reduction, factors []int64, trimExcess bool) (*Array, error) {
	if len(factors) != a.Ndim() {
		return nil, newError(StatusInvalidArgument, "Coarsen: %d factors for %d dimensions", len(factors), a.Ndim())
	}
	fp := cInt64s(factors)
	defer C.free(unsafe.Pointer(fp))
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_coarsen(o, C.ca_reduction_t(op), a.h, fp, cbool(trimExcess))
	})
}

// Bincount is np.bincount(a, weights) with a result of length elements (NumPy's length is
// max(max(a)+1, minlength): compute it first): int64 counts of each value in [0, length), or with
// weights (a's shape, real numeric; nil for counts) their float64 sums. One block, made by dask's
// tree reduction (splitEvery blocks per node, 0: dask's default). A value outside [0, length) fails
// the compute. Errors: StatusInvalidArgument (a not 1-d, a negative length, weights of another
// shape), StatusType (a not bool or integer, complex weights).
func (a *Array) Bincount(weights *Array, length int64, splitEvery int32) (*Array, error) {
	var w *C.ca_array_t
	if weights != nil {
		w = weights.h
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_bincount(o, a.h, w, C.int64_t(length), C.int32_t(splitEvery))
	})
}

// BincountMinlength is np.bincount(a, weights, minlength) with NumPy's length, max(a.max()+1,
// minlength), found by the one pass that counts (CA_BINCOUNT_AT_LEAST): the result's length is
// unknown until computed (dask's nan chunk; ComputeChunkSizes measures it). A negative value
// fails the compute. Errors: as Bincount; StatusInvalidArgument for a negative minlength.
func (a *Array) BincountMinlength(weights *Array, minlength int64, splitEvery int32) (*Array, error) {
	if minlength < 0 {
		return nil, newError(StatusInvalidArgument, "BincountMinlength: minlength %d is negative", minlength)
	}
	return a.Bincount(weights, -1-minlength, splitEvery)
}

// HistogramBins is one dimension's bins of Histogram / Histogramdd: NBins (> 0) equal bins over
// [Lo, Hi] (NumPy's bins=int, range=(lo, hi); Lo == Hi widens to [Lo-0.5, Hi+0.5]), or with NBins 0
// the Edges (1-d, at least one, increasing: checked at compute; returned as given).
type HistogramBins struct {
	NBins  int64
	Lo, Hi float64
	Edges  *Array
}

// HistogramOptions are the options of Histogram / Histogramdd (ca_histogram_options_t); nil: counts.
type HistogramOptions struct {
	Weights    *Array // one weight per value (the samples' shape); nil: counts
	Density    bool   // NumPy's density=True: counts / total / bin volume
	SplitEvery int32  // partial histograms summed per tree node; 0: dask's 16
}

func histogram(samples []*Array, bins []HistogramBins, opts *HistogramOptions, mode C.ca_histogram_mode_t) (
	*Array, []*Array, error) {
	if len(samples) == 0 || len(bins) != len(samples) {
		return nil, nil, newError(StatusInvalidArgument, "Histogramdd: %d bins for %d samples", len(bins), len(samples))
	}
	hs, err := cArrays(samples)
	if err != nil {
		return nil, nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	bp := (*C.ca_histogram_bins_t)(C.calloc(C.size_t(len(bins)), C.sizeof_ca_histogram_bins_t))
	defer C.free(unsafe.Pointer(bp))
	for i, b := range bins {
		cb := &unsafe.Slice(bp, len(bins))[i]
		cb.nbins, cb.lo, cb.hi = C.int64_t(b.NBins), C.double(b.Lo), C.double(b.Hi)
		if b.Edges != nil {
			cb.edges = b.Edges.h
		}
	}
	var o C.ca_histogram_options_t
	o.struct_size = C.uint32_t(C.sizeof_ca_histogram_options_t)
	o.mode = mode
	if opts != nil {
		if opts.Weights != nil {
			o.weights = opts.Weights.h
		}
		o.density = C.int32_t(cbool(opts.Density))
		o.split_every = C.int32_t(opts.SplitEvery)
	}
	var hist *C.ca_array_t
	edges, err := many(len(samples), func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_histogramdd(&hist, out, hs, C.size_t(len(samples)), bp, &o)
	})
	if err != nil {
		return nil, nil, err
	}
	return wrapArray(hist), edges, nil
}

// Histogram is np.histogram(a, bins, range, weights=, density=) with dask's scheme: one task per
// block counts (the expression producing a evaluated inside it), a tree reduction sums. It returns
// the histogram (one block: int64 counts, the weights' dtype with weights, float64 with density)
// and the edges (NumPy's for uniform bins: float32 for float16/float32 data, float64 otherwise; the
// given array). Values outside the edges and NaNs are ignored; the last bin is closed.
// Errors: StatusInvalidArgument (lo > hi or a range that is not finite, NBins < 0, weights of
// another shape, edges not 1-d or empty; edges that do not increase fail the compute), StatusType
// (complex samples, non-numeric weights or edges).
func (a *Array) Histogram(bins HistogramBins, opts *HistogramOptions) (*Array, *Array, error) {
	h, e, err := histogram([]*Array{a}, []HistogramBins{bins}, opts, C.CA_HISTOGRAM_1D)
	if err != nil {
		return nil, nil, err
	}
	return h, e[0], nil
}

// Histogramdd is np.histogramdd(samples, bins, range, weights=, density=) (two samples:
// np.histogram2d): samples of one shape placed by searchsorted(edges, x, 'right') in float64; a
// float64 result of shape (NBins per dimension), one block, and the edges per dimension (float64
// for uniform bins, the given arrays). Errors: as Histogram; StatusInvalidArgument also for samples
// of different shapes.
func Histogramdd(samples []*Array, bins []HistogramBins, opts *HistogramOptions) (*Array, []*Array, error) {
	return histogram(samples, bins, opts, C.CA_HISTOGRAM_DD)
}

// RavelMultiIndex is np.ravel_multi_index(coords, dims, mode, order): the int64 flat index of each
// coordinate tuple, the coordinate arrays (integer dtypes) broadcast together with dask's chunks.
// modes is nil (raise for every dimension) or one ChooseMode per dimension; fortranOrder is
// NumPy's order='F'. A coordinate out of range in a ChooseRaise dimension fails the compute.
// Errors: StatusInvalidArgument (no coordinates, a count of dims or modes other than the number of
// coordinate arrays, a negative extent, shapes that do not broadcast), StatusType (a coordinate
// array not of an integer dtype).
func RavelMultiIndex(coords []*Array, dims []int64, modes []ChooseMode, fortranOrder bool) (*Array, error) {
	if len(coords) == 0 || len(dims) != len(coords) || (modes != nil && len(modes) != len(coords)) {
		return nil, newError(StatusInvalidArgument, "RavelMultiIndex: %d coordinate arrays, %d dims, %d modes",
			len(coords), len(dims), len(modes))
	}
	hs, err := cArrays(coords)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(hs))
	dp := cInt64s(dims)
	defer C.free(unsafe.Pointer(dp))
	var mp *C.int32_t
	if modes != nil {
		mp = (*C.int32_t)(C.malloc(C.size_t(4 * len(modes))))
		defer C.free(unsafe.Pointer(mp))
		ms := unsafe.Slice((*int32)(unsafe.Pointer(mp)), len(modes))
		for i, m := range modes {
			ms[i] = int32(m)
		}
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_ravel_multi_index(o, hs, C.size_t(len(coords)), dp, mp, cbool(fortranOrder))
	})
}

// UnravelIndex is np.unravel_index(a, dims, order): one int64 array of coordinates per dimension,
// with a's chunks. An index outside [0, product of dims) fails the compute. Errors:
// StatusInvalidArgument (no dims, a negative extent), StatusType (a not of an integer dtype).
func (a *Array) UnravelIndex(dims []int64, fortranOrder bool) ([]*Array, error) {
	if len(dims) == 0 {
		return nil, newError(StatusInvalidArgument, "UnravelIndex: dims is empty")
	}
	dp := cInt64s(dims)
	defer C.free(unsafe.Pointer(dp))
	return many(len(dims), func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_unravel_index(out, a.h, dp, C.size_t(len(dims)), cbool(fortranOrder))
	})
}
