package chunkarray

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"unsafe"
)

// Array is a lazy chunked N-d array (graph + name + chunks + dtype). Close frees it; a finalizer
// does so too if it is forgotten.
type Array struct {
	h *C.ca_array_t
}

func wrapArray(h *C.ca_array_t) *Array {
	a := &Array{h: h}
	runtime.SetFinalizer(a, (*Array).Close)
	return a
}

func newArray(f func(out **C.ca_array_t) C.ca_status_t) (*Array, error) {
	var h *C.ca_array_t
	if err := call(func() C.ca_status_t { return f(&h) }); err != nil {
		return nil, err
	}
	return wrapArray(h), nil
}

// Close frees the array handle. Safe to call twice; the error is always nil (io.Closer).
func (a *Array) Close() error {
	if a.h != nil {
		C.ca_array_free(a.h)
		a.h = nil
	}
	runtime.SetFinalizer(a, nil)
	return nil
}

// NewArray is the seed's constructor, dask's Array(graph, name, chunks, dtype): an array over the
// tasks (name, i, j, ...) of g, one per block of the chunk grid chunks (block sizes per
// dimension). The array shares g's layers; later changes to g do not affect it. Errors (as
// ca_array_new): StatusInvalidArgument (negative block sizes, an empty name),
// StatusNotFound (a key of the chunk grid is missing from g; the message names it), StatusType
// (an invalid dtype).
func NewArray(g *Graph, name string, chunks [][]int64, dt DType) (*Array, error) {
	if g == nil || g.h == nil {
		return nil, newError(StatusInvalidArgument, "NewArray: the graph is nil or closed")
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	cc := newCChunks(chunks)
	defer cc.free()
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_new(o, g.h, cn, &cc.c, C.ca_dtype_t(dt)) })
}

// cChunks is a ca_chunks_t in C memory.
type cChunks struct {
	c  C.ca_chunks_t
	nb *C.int64_t
	sz *C.int64_t
}

func newCChunks(chunks [][]int64) *cChunks {
	var nb, sz []int64
	for _, c := range chunks {
		nb = append(nb, int64(len(c)))
		sz = append(sz, c...)
	}
	cc := &cChunks{nb: cInt64s(nb), sz: cInt64s(sz)}
	cc.c = C.ca_chunks_t{ndim: C.int32_t(len(chunks)), numblocks: cc.nb, sizes: cc.sz}
	return cc
}

func (cc *cChunks) free() {
	C.free(unsafe.Pointer(cc.nb))
	C.free(unsafe.Pointer(cc.sz))
}

// NormalizeChunks is dask's normalize_chunks with one block size per dimension (-1 whole, 0 auto).
func NormalizeChunks(shape, sizes []int64, dt DType) ([][]int64, error) {
	if len(shape) != len(sizes) {
		return nil, newError(StatusInvalidArgument, "chunks %v have %d dimensions, shape %v has %d", sizes, len(sizes), shape, len(shape))
	}
	n := len(shape)
	if n == 0 {
		n = 1
	}
	spec := (*C.ca_dimchunks_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.ca_dimchunks_t{}))))
	defer C.free(unsafe.Pointer(spec))
	ss := unsafe.Slice(spec, n)
	for i, s := range sizes {
		ss[i].size = C.int64_t(s)
	}
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	var cs *C.ca_chunkset_t
	if err := call(func() C.ca_status_t {
		return C.ca_normalize_chunks(&cs, nil, spec, C.int32_t(len(shape)), sp, C.ca_dtype_t(dt), 0)
	}); err != nil {
		return nil, err
	}
	defer C.ca_chunkset_free(cs)
	out := make([][]int64, int(C.ca_chunkset_ndim(cs)))
	for d := range out {
		var m C.int64_t
		p := C.ca_chunkset_sizes(cs, C.int32_t(d), &m)
		out[d] = make([]int64, int(m))
		if m > 0 {
			copy(out[d], unsafe.Slice((*int64)(unsafe.Pointer(p)), int(m)))
		}
	}
	return out, nil
}

// FromFloat64s makes an array over a copy of data (C order) with shape and a block size per dimension.
func FromFloat64s(data []float64, shape, chunks []int64) (*Array, error) {
	return fromBuffer(ptrOf(data), len(data), 8, Float64, shape, chunks)
}

// FromInt64s makes an int64 array over a copy of data.
func FromInt64s(data []int64, shape, chunks []int64) (*Array, error) {
	return fromBuffer(ptrOf(data), len(data), 8, Int64, shape, chunks)
}

// FromFloat32s makes a float32 array over a copy of data.
func FromFloat32s(data []float32, shape, chunks []int64) (*Array, error) {
	return fromBuffer(ptrOf(data), len(data), 4, Float32, shape, chunks)
}

// FromInt32s makes an int32 array over a copy of data.
func FromInt32s(data []int32, shape, chunks []int64) (*Array, error) {
	return fromBuffer(ptrOf(data), len(data), 4, Int32, shape, chunks)
}

// FromBools makes a bool array over a copy of data.
func FromBools(data []bool, shape, chunks []int64) (*Array, error) {
	b := make([]uint8, len(data))
	for i, v := range data {
		if v {
			b[i] = 1
		}
	}
	return fromBuffer(ptrOf(b), len(b), 1, Bool, shape, chunks)
}

func fromBuffer(p unsafe.Pointer, n, itemsize int, dt DType, shape, chunks []int64) (*Array, error) {
	want := int64(1)
	for _, s := range shape {
		want *= s
	}
	if want != int64(n) {
		return nil, newError(StatusInvalidArgument, "shape %v needs %d elements, got %d", shape, want, n)
	}
	norm, err := NormalizeChunks(shape, chunks, dt)
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	// copy into C memory first: Go memory must not be retained by C, and CA_BUFFER_COPY copies now
	buf := C.malloc(C.size_t(n*itemsize + 1))
	defer C.free(buf)
	if n > 0 {
		C.memcpy(buf, p, C.size_t(n*itemsize))
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_from_buffer(out, buf, C.ca_dtype_t(dt), C.int32_t(len(shape)), sp, &cc.c, nil)
	})
}

func creation(shape, chunks []int64, dt DType, f func(out **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t) (*Array, error) {
	norm, err := NormalizeChunks(shape, chunks, dt)
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	return newArray(func(out **C.ca_array_t) C.ca_status_t { return f(out, C.int32_t(len(shape)), sp, &cc.c) })
}

// Zeros makes an array of zeros with shape in blocks of chunks (one size per dimension, -1 whole, 0 auto).
func Zeros(shape, chunks []int64, dt DType) (*Array, error) {
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_array_zeros(o, nd, sp, cc, C.ca_dtype_t(dt))
	})
}

// Ones makes an array of ones with shape in blocks of chunks (one size per dimension, -1 whole, 0 auto).
func Ones(shape, chunks []int64, dt DType) (*Array, error) {
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_array_ones(o, nd, sp, cc, C.ca_dtype_t(dt))
	})
}

// Full makes an array filled with value.
func Full(shape, chunks []int64, dt DType, value float64) (*Array, error) {
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_array_full(o, nd, sp, cc, C.ca_dtype_t(dt), C.double(value), 0)
	})
}

// FullInt64 makes an array filled with the exact integer value (ca_array_full_int64: not through a
// float64, so 2**53 + 1 and math.MinInt64/MaxInt64 stay exact). Float dtypes get the nearest value.
// Errors: StatusInvalidArgument (a value the integer dtype does not hold, bad shape or chunks),
// StatusType (a bytes/unicode dtype).
func FullInt64(shape, chunks []int64, dt DType, value int64) (*Array, error) {
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_array_full_int64(o, nd, sp, cc, C.ca_dtype_t(dt), C.int64_t(value))
	})
}

// FullUint64 makes an array filled with the exact unsigned integer value (ca_array_full_uint64;
// math.MaxUint64 included); otherwise as FullInt64.
func FullUint64(shape, chunks []int64, dt DType, value uint64) (*Array, error) {
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		return C.ca_array_full_uint64(o, nd, sp, cc, C.ca_dtype_t(dt), C.uint64_t(value))
	})
}

// RandomUniform draws reproducible uniform values in [low, high).
func RandomUniform(shape, chunks []int64, seed uint64, low, high float64) (*Array, error) {
	return creation(shape, chunks, Float64, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		opts := C.ca_random_options_t{struct_size: C.uint32_t(C.sizeof_ca_random_options_t), seed: C.uint64_t(seed),
			p0: C.double(low), p1: C.double(high)}
		return C.ca_array_random(o, C.CA_RANDOM_UNIFORM, nd, sp, cc, C.ca_dtype_t(Float64), &opts)
	})
}

// RandomParams draws CA_RANDOM_<distribution> (array.h: 0 uniform, 1 normal, 3 beta ... 31 zipf) with
// array-valued parameters (ca_array_random_params): parameter j is arrays[j] where it is not nil
// (broadcast against shape as NumPy broadcasts parameters against size), else params[j] (defaults
// 0, 1, 0). Constant arrays give the scalar draw's values; a bad parameter value fails the compute
// with StatusKernel and NumPy's message.
func RandomParams(distribution int32, shape, chunks []int64, dt DType, seed uint64, params []float64,
	arrays []*Array) (*Array, error) {
	if len(params) > 3 || len(arrays) > 3 {
		return nil, &Error{Status: StatusInvalidArgument, Message: "RandomParams: at most 3 parameters"}
	}
	p := [3]float64{0, 1, 0}
	copy(p[:], params)
	hs := (*[3]*C.ca_array_t)(C.calloc(3, C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(hs))
	for j, a := range arrays {
		if a != nil {
			hs[j] = a.h
		}
	}
	defer runtime.KeepAlive(arrays)
	return creation(shape, chunks, dt, func(o **C.ca_array_t, nd C.int32_t, sp *C.int64_t, cc *C.ca_chunks_t) C.ca_status_t {
		opts := C.ca_random_options_t{struct_size: C.uint32_t(C.sizeof_ca_random_options_t), seed: C.uint64_t(seed),
			p0: C.double(p[0]), p1: C.double(p[1]), p2: C.double(p[2])}
		return C.ca_array_random_params(o, C.ca_random_t(distribution), nd, sp, cc, C.ca_dtype_t(dt),
			(**C.ca_array_t)(unsafe.Pointer(hs)), C.int32_t(len(arrays)), &opts)
	})
}

// Arange is NumPy's arange(start, stop, step) in blocks of chunk.
func Arange(start, stop, step float64, chunk int64, dt DType) (*Array, error) {
	n := int64(0)
	if step != 0 {
		f := (stop - start) / step
		n = int64(f)
		if float64(n) < f {
			n++
		}
		if n < 0 {
			n = 0
		}
	}
	norm, err := NormalizeChunks([]int64{n}, []int64{chunk}, dt)
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_arange(o, C.double(start), C.double(stop), C.double(step), &cc.c, C.ca_dtype_t(dt))
	})
}

// FromNpy is a lazy array over a .npy file.
func FromNpy(path string) (*Array, error) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_from_npy(o, p, nil) })
}

// Load reads an array saved with Save (needs ca_load in the library): the file must hold one array.
func Load(path string) (*Array, error) {
	_, arrays, err := loadFile(path, false)
	if err != nil {
		return nil, err
	}
	if len(arrays) != 1 {
		for _, x := range arrays {
			x.Close()
		}
		if len(arrays) == 0 {
			return nil, newError(StatusNotFound, "'%s' holds no array (a graph file?)", path)
		}
		return nil, newError(StatusInvalidArgument, "'%s' holds %d arrays", path, len(arrays))
	}
	return arrays[0], nil
}

// loadFile is ca_load of the file path: its graph (graph true) or its arrays.
func loadFile(path string, graph bool) (*C.ca_graph_t, []*Array, error) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	var o C.ca_load_options_t
	o.struct_size = C.uint32_t(unsafe.Sizeof(o))
	o.path = p
	if graph {
		var g *C.ca_graph_t
		err := call(func() C.ca_status_t { return C.ca_load(&g, nil, nil, &o) })
		return g, nil, err
	}
	var list **C.ca_array_t
	var n C.size_t
	if err := call(func() C.ca_status_t { return C.ca_load(nil, &list, &n, &o) }); err != nil {
		return nil, nil, err
	}
	defer C.ca_array_free_many(list, n)
	hs := unsafe.Slice(list, int(n))
	out := make([]*Array, 0, int(n))
	for _, h := range hs {
		out = append(out, wrapArray(C.ca_array_retain(h)))
	}
	return nil, out, nil
}

// saveFile is ca_save of a graph (g not nil) or of one array to the file path, recording the kernel
// versions registered in ctx when ctx is not nil.
func saveFile(path string, g *C.ca_graph_t, a *C.ca_array_t, ctx *Context) error {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	var o C.ca_save_options_t
	o.struct_size = C.uint32_t(unsafe.Sizeof(o))
	if ctx != nil {
		o.context = ctx.h
	}
	o.path = p
	if g != nil {
		o.graph = g
	} else {
		arr := (**C.ca_array_t)(C.malloc(C.size_t(unsafe.Sizeof(a))))
		defer C.free(unsafe.Pointer(arr))
		*arr = a
		o.arrays = arr
		o.narrays = 1
	}
	return call(func() C.ca_status_t { return C.ca_save(nil, nil, &o) })
}

// Ndim is the number of dimensions.
func (a *Array) Ndim() int { return int(C.ca_array_ndim(a.h)) }

// Shape is the array's shape.
func (a *Array) Shape() []int64 {
	nd := a.Ndim()
	out := make([]int64, nd)
	if nd > 0 {
		copy(out, unsafe.Slice((*int64)(unsafe.Pointer(C.ca_array_shape(a.h))), nd))
	}
	return out
}

// Size is the number of elements.
func (a *Array) Size() int64 { return int64(C.ca_array_size(a.h)) }

// DType is the element type.
func (a *Array) DType() DType { return DType(C.ca_array_dtype(a.h)) }

// Name is the array's name: its tasks are (name, i, j, ...).
func (a *Array) Name() string { return C.GoString(C.ca_array_name(a.h)) }

// Chunks is the block sizes along each dimension.
func (a *Array) Chunks() [][]int64 {
	out := make([][]int64, a.Ndim())
	for d := range out {
		var n C.int64_t
		p := C.ca_array_chunks(a.h, C.int32_t(d), &n)
		out[d] = make([]int64, int(n))
		if n > 0 {
			copy(out[d], unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n)))
		}
	}
	return out
}

// Binary applies a CA_OP_* operator with NumPy broadcasting.
func (a *Array) Binary(op Op, b *Array) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_binary(o, C.ca_op_t(op), a.h, b.h) })
}

// Scalar applies `a op v` (or `v op a` when scalarFirst).
func (a *Array) Scalar(op Op, v float64, scalarFirst bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_binary_scalar(o, C.ca_op_t(op), a.h, C.cag_scalar_f64(C.double(v)), cbool(scalarFirst))
	})
}

// ScalarInt applies `a op v` (or `v op a` when scalarFirst) with an int64 scalar (exact for int64 arrays).
func (a *Array) ScalarInt(op Op, v int64, scalarFirst bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_binary_scalar(o, C.ca_op_t(op), a.h, C.cag_scalar_i64(C.int64_t(v)), cbool(scalarFirst))
	})
}

// BinaryStd applies a CA_OP_* operator under the Python array API standard's type promotion
// (ca_array_binary_std): Int8 with UInt8 is Int16; integer with float, Bool with a number and Int64
// with UInt64 are StatusType errors naming both dtypes (see DType.PromoteStd).
func (a *Array) BinaryStd(op Op, b *Array) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_binary_std(o, C.ca_op_t(op), a.h, b.h) })
}

// ScalarStd applies `a op v` (or `v op a` when scalarFirst) with a float scalar under the standard's
// rule (ca_array_binary_scalar_std): floating-point arrays only (StatusType otherwise); the result
// keeps the array's dtype (Float32 stays Float32).
func (a *Array) ScalarStd(op Op, v float64, scalarFirst bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_binary_scalar_std(o, C.ca_op_t(op), a.h, C.cag_scalar_f64(C.double(v)), cbool(scalarFirst))
	})
}

// ScalarIntStd applies `a op v` (or `v op a`) with an integer scalar under the standard's rule: the
// scalar takes the array's dtype (an Int8 array stays Int8); StatusInvalidArgument when the dtype
// does not hold v, StatusType for a Bool array.
func (a *Array) ScalarIntStd(op Op, v int64, scalarFirst bool) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_binary_scalar_std(o, C.ca_op_t(op), a.h, C.cag_scalar_i64(C.int64_t(v)), cbool(scalarFirst))
	})
}

// Unary applies a unary CA_OP_* operator.
func (a *Array) Unary(op Op) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_unary(o, C.ca_op_t(op), a.h) })
}

// AsType converts the dtype.
func (a *Array) AsType(dt DType) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_astype(o, a.h, C.ca_dtype_t(dt)) })
}

// Reduce applies a CA_RED_* reduction over axes (none: all axes).
func (a *Array) Reduce(op Reduction, axes []int32, keepdims bool) (*Array, error) {
	o := C.ca_reduce_options_t{struct_size: C.uint32_t(unsafe.Sizeof(C.ca_reduce_options_t{}))}
	var ap *C.int32_t
	if len(axes) > 0 {
		ap = (*C.int32_t)(C.malloc(C.size_t(4 * len(axes))))
		defer C.free(unsafe.Pointer(ap))
		copy(unsafe.Slice((*int32)(unsafe.Pointer(ap)), len(axes)), axes)
	}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_reduce(out, C.ca_reduction_t(op), a.h, ap, C.int32_t(len(axes)), cbool(keepdims), &o)
	})
}

// Sum is Reduce(RedSum, axes, false).
func (a *Array) Sum(axes ...int32) (*Array, error) { return a.Reduce(RedSum, axes, false) }

// Mean is Reduce(RedMean, axes, false).
func (a *Array) Mean(axes ...int32) (*Array, error) { return a.Reduce(RedMean, axes, false) }

// Max is Reduce(RedMax, axes, false).
func (a *Array) Max(axes ...int32) (*Array, error) { return a.Reduce(RedMax, axes, false) }

// Scan is a cumulative CA_SCAN_* along axis.
func (a *Array) Scan(op Scan, axis int32) (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_array_scan(o, C.ca_scan_t(op), a.h, C.int32_t(axis), nil)
	})
}

// Rechunk to one block size per dimension (-1: whole).
func (a *Array) Rechunk(chunks []int64) (*Array, error) {
	norm, err := NormalizeChunks(a.Shape(), chunks, a.DType())
	if err != nil {
		return nil, err
	}
	cc := newCChunks(norm)
	defer cc.free()
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_rechunk(o, a.h, &cc.c) })
}

// RechunkTo rechunks to explicit block sizes per dimension ([][]int64{{2, 3, 4}}), which must sum
// to the shape.
func (a *Array) RechunkTo(chunks [][]int64) (*Array, error) {
	cc := newCChunks(chunks)
	defer cc.free()
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_rechunk(o, a.h, &cc.c) })
}

// MapBlocks runs the kernel registered as name on each block of a (and others), followed by
// extra literal arguments (Arg values, or int, int64, float64, string). dt 0: a's dtype.
func (a *Array) MapBlocks(name string, others []*Array, extra []interface{}, dt DType) (*Array, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	n := 1 + len(others)
	hs := (**C.ca_array_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(hs))
	hv := unsafe.Slice(hs, n)
	hv[0] = a.h
	for i, o := range others {
		hv[i+1] = o.h
	}
	lits := make([]Arg, len(extra))
	for i, e := range extra {
		switch v := e.(type) {
		case Arg:
			lits[i] = v
		case int:
			lits[i] = IntArg(int64(v))
		case int64:
			lits[i] = IntArg(v)
		case float64:
			lits[i] = FloatArg(v)
		case string:
			lits[i] = StrArg(v)
		default:
			return nil, newError(StatusInvalidArgument, "MapBlocks: extra argument %d is %T (an Arg, int, int64, float64 or string)", i, e)
		}
	}
	var ar cArena
	defer ar.free()
	args, err := ar.args(lits)
	if err != nil {
		return nil, err
	}
	o := C.ca_map_blocks_options_t{struct_size: C.uint32_t(unsafe.Sizeof(C.ca_map_blocks_options_t{})), dtype: C.ca_dtype_t(dt)}
	return newArray(func(out **C.ca_array_t) C.ca_status_t {
		return C.ca_array_map_blocks(out, cs, hs, C.size_t(n), args, C.size_t(len(extra)), &o)
	})
}

// Compute runs the graph and returns the whole array as one block.
func (a *Array) Compute(c *Context) (*Block, error) { return a.ComputeContext(context.Background(), c) }

// ComputeContext is Compute stopped by ctx: when ctx is cancelled or its deadline passes, the
// running tasks finish, no new one starts, and the error is a StatusCanceled *Error for which
// errors.Is(err, context.Canceled) (or context.DeadlineExceeded) holds.
func (a *Array) ComputeContext(ctx context.Context, c *Context) (*Block, error) {
	var b *C.ca_block_t
	err := withCancel(ctx, func(o *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_compute(&b, c.h, a.h, o)
	})
	if err != nil {
		return nil, err
	}
	return newBlock(b), nil
}

// ComputeFloat64s computes a float64 array into a slice (C order).
func (a *Array) ComputeFloat64s(c *Context) ([]float64, error) {
	b, err := a.Compute(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Float64s()
}

// ComputeInt64s computes an int64 array into a slice (C order).
func (a *Array) ComputeInt64s(c *Context) ([]int64, error) {
	b, err := a.Compute(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Int64s()
}

// ComputeFloat32s computes a float32 array into a slice (C order).
func (a *Array) ComputeFloat32s(c *Context) ([]float32, error) {
	b, err := a.Compute(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Float32s()
}

// ComputeInt32s computes an int32 array into a slice (C order).
func (a *Array) ComputeInt32s(c *Context) ([]int32, error) {
	b, err := a.Compute(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Int32s()
}

// ComputeBools computes a bool array into a slice (C order).
func (a *Array) ComputeBools(c *Context) ([]bool, error) {
	b, err := a.Compute(c)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Bools()
}

// ComputeMany computes several arrays in one pass over their merged graph.
func ComputeMany(c *Context, arrays ...*Array) ([]*Block, error) {
	return ComputeManyContext(context.Background(), c, arrays...)
}

// ComputeManyContext is ComputeMany stopped by ctx (see ComputeContext).
func ComputeManyContext(ctx context.Context, c *Context, arrays ...*Array) ([]*Block, error) {
	n := len(arrays)
	hs := (**C.ca_array_t)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(hs))
	outs := (**C.ca_block_t)(C.calloc(C.size_t(n+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(outs))
	hv := unsafe.Slice(hs, n)
	for i, a := range arrays {
		hv[i] = a.h
	}
	err := withCancel(ctx, func(o *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_compute_many(outs, c.h, hs, C.size_t(n), o)
	})
	if err != nil {
		return nil, err
	}
	res := make([]*Block, n)
	for i, b := range unsafe.Slice(outs, n) {
		res[i] = newBlock(b)
	}
	return res, nil
}

// Persist computes the array and keeps its blocks in memory as a new array.
func (a *Array) Persist(c *Context) (*Array, error) { return a.PersistContext(context.Background(), c) }

// PersistContext is Persist stopped by ctx (see ComputeContext).
func (a *Array) PersistContext(ctx context.Context, c *Context) (*Array, error) {
	var h *C.ca_array_t
	err := withCancel(ctx, func(o *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_persist(&h, c.h, a.h, o)
	})
	if err != nil {
		return nil, err
	}
	return wrapArray(h), nil
}

// SVG is the chunk-grid picture.
func (a *Array) SVG(size int) (string, error) {
	var s *C.char
	if err := call(func() C.ca_status_t { return C.ca_array_to_svg(&s, a.h, C.int32_t(size)) }); err != nil {
		return "", err
	}
	defer C.ca_string_free(s)
	return C.GoString(s), nil
}

// ToNpy computes the array into a .npy file (the store of this binding).
func (a *Array) ToNpy(c *Context, path string) error {
	return a.ToNpyContext(context.Background(), c, path)
}

// ToNpyContext is ToNpy stopped by ctx (see ComputeContext).
func (a *Array) ToNpyContext(ctx context.Context, c *Context, path string) error {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return withCancel(ctx, func(o *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_to_npy(c.h, a.h, p, o)
	})
}

// Save writes graph, name, chunks and dtype to a file (needs ca_save in the library).
func (a *Array) Save(path string) error { return saveFile(path, nil, a.h, nil) }

// SaveWithKernelVersions is Save recording, for every kernel the graph uses, the version registered
// in c (a loaded graph then refuses to compute where another version is registered).
func (a *Array) SaveWithKernelVersions(path string, c *Context) error {
	return saveFile(path, nil, a.h, c)
}

// SaveWithContext is the former name of SaveWithKernelVersions.
//
// Deprecated: the name reads as a context.Context variant; use SaveWithKernelVersions.
func (a *Array) SaveWithContext(path string, c *Context) error {
	return a.SaveWithKernelVersions(path, c)
}
