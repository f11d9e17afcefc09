// Package chunkarray binds libchunkarray (dask.array's design behind a C ABI) for Go.
//
// The package links the library through pkg-config (`#cgo pkg-config: chunkarray`): an installed
// library (chunkarray.pc under the pkg-config path), or a build tree with
// PKG_CONFIG_PATH=<build>/meson-uninstalled and LD_LIBRARY_PATH=<build>/capi. No CGO_CFLAGS by hand.
//
// Handles (Context, Array, Graph, Block) are freed by Close, which returns an error like any
// io.Closer (always nil: freeing cannot fail), and by finalizers as a safety net. Every failing
// call returns an *Error carrying the Status and the library's message, read on the same OS thread
// as the failing call (runtime.LockOSThread around call and read). Compute, ComputeMany, Persist
// and ToNpy have ...Context variants taking a context.Context whose cancellation or deadline stops
// the computation through the C library's ca_cancel_t.
//
// A custom array is a Graph of tasks keyed (name, i, j, ...) plus NewArray, as dask's
// Array(graph, name, chunks, dtype); see the eye and diag of examples/customarray.
package chunkarray

/*
#cgo pkg-config: chunkarray
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"unsafe"
)

// Status is a C status code (CA_OK, CA_EINVAL, ...). A Status is itself an error, so
// errors.Is(err, chunkarray.StatusNotFound) tests the class of a failed call.
type Status int32

// The status codes of include/chunkarray/common.h.
const (
	StatusOK              Status = C.CA_OK
	StatusInvalidArgument Status = C.CA_EINVAL       // an argument is invalid (bad shape, axis, ...)
	StatusOutOfMemory     Status = C.CA_ENOMEM       // an allocation failed or a memory limit would be exceeded
	StatusNotFound        Status = C.CA_ENOTFOUND    // a key, kernel, layer, file or symbol does not exist
	StatusCycle           Status = C.CA_ECYCLE       // the task graph has a cycle
	StatusKernel          Status = C.CA_EKERNEL      // a kernel returned an error (the message is the kernel's)
	StatusIO              Status = C.CA_EIO          // reading or writing a file failed
	StatusFormat          Status = C.CA_EFORMAT      // a file or buffer is corrupt, truncated or of an unknown format
	StatusCanceled        Status = C.CA_ECANCELED    // the computation was cancelled
	StatusInternal        Status = C.CA_EINTERNAL    // a bug in chunkarray
	StatusExists          Status = C.CA_EEXISTS      // a key, layer or kernel of that name already exists
	StatusType            Status = C.CA_ETYPE        // wrong dtype or wrong argument kind
	StatusVersion         Status = C.CA_EVERSION     // a file, plugin or binding of an incompatible version
	StatusUnsupported     Status = C.CA_EUNSUPPORTED // a valid request this build does not implement
)

// String is the code's C name ("CA_EINVAL", ...; "CA_E?" for an unknown code).
func (s Status) String() string { return C.GoString(C.ca_status_str(C.ca_status_t(s))) }

// Error makes a Status an error (its C name), for errors.Is.
func (s Status) Error() string { return s.String() }

// Error is a failed chunkarray call: Status is the CA_E* code, Message the library's text.
type Error struct {
	Status  Status
	Message string
	cause   error // the context's error when a ...Context call was cancelled
}

// Code is the status's C name ("CA_EINVAL", ...).
func (e *Error) Code() string { return e.Status.String() }

func (e *Error) Error() string { return e.Status.String() + ": " + e.Message }

// Is reports whether target is this error's Status (errors.Is(err, StatusNotFound)).
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// Unwrap is context.Canceled or context.DeadlineExceeded when a ...Context call was stopped by
// its context, else nil.
func (e *Error) Unwrap() error { return e.cause }

func newError(st Status, format string, args ...interface{}) *Error {
	return &Error{Status: st, Message: fmt.Sprintf(format, args...)}
}

// call runs one fallible C call and reads the error message on the same OS thread.
func call(f func() C.ca_status_t) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st := f()
	if st == 0 {
		return nil
	}
	return &Error{Status: Status(st), Message: C.GoString(C.ca_last_error_message())}
}

// withCancel runs f with compute options (C memory) whose ca_cancel_t is requested when ctx is
// done (no token when ctx can never be). The error of a call stopped that way is a StatusCanceled
// *Error wrapping ctx.Err().
func withCancel(ctx context.Context, f func(opts *C.ca_compute_options_t) C.ca_status_t) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return &Error{Status: StatusCanceled, Message: "not started: " + err.Error(), cause: err}
	}
	var tok *C.ca_cancel_t
	if ctx.Done() != nil {
		if err := call(func() C.ca_status_t { return C.ca_cancel_new(&tok) }); err != nil {
			return err
		}
		defer C.ca_cancel_free(tok)
		stop, watcher := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watcher)
			select {
			case <-ctx.Done():
				C.ca_cancel_request(tok)
			case <-stop:
			}
		}()
		defer func() { close(stop); <-watcher }() // before ca_cancel_free
	}
	o := (*C.ca_compute_options_t)(C.calloc(1, C.sizeof_ca_compute_options_t))
	defer C.free(unsafe.Pointer(o))
	o.struct_size = C.uint32_t(C.sizeof_ca_compute_options_t)
	o.cancel = tok
	err := call(func() C.ca_status_t { return f(o) })
	if e, ok := err.(*Error); ok && e.Status == StatusCanceled && ctx.Err() != nil {
		e.cause = ctx.Err()
	}
	return err
}

// Version is the linked library's version string.
func Version() (string, error) {
	return C.GoString(C.ca_version_string()), nil
}

// VersionNumber returns the linked library's CA_VERSION_NUMBER and ABI version.
func VersionNumber() (int, int, error) {
	return int(C.ca_version_number()), int(C.ca_abi_version()), nil
}

// HeaderVersionNumber is the CA_VERSION_NUMBER of the headers this package was compiled against;
// it equals VersionNumber's unless the library was replaced after the build.
const HeaderVersionNumber = C.CA_VERSION_NUMBER

// HasFunction reports whether the process has the library function name (ca_save, ...).
func HasFunction(name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.cag_has(cs) != 0
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// DType is NumPy's dtype set with chunkarray's codes.
type DType int32

const (
	Bool       DType = C.CA_BOOL
	Int8       DType = C.CA_INT8
	Int16      DType = C.CA_INT16
	Int32      DType = C.CA_INT32
	Int64      DType = C.CA_INT64
	UInt8      DType = C.CA_UINT8
	UInt16     DType = C.CA_UINT16
	UInt32     DType = C.CA_UINT32
	UInt64     DType = C.CA_UINT64
	Float32    DType = C.CA_FLOAT32
	Float64    DType = C.CA_FLOAT64
	Complex64  DType = C.CA_COMPLEX64
	Complex128 DType = C.CA_COMPLEX128
	Raw        DType = C.CA_RAW
	Float16    DType = C.CA_FLOAT16
)

// String is NumPy's name of the dtype ("float64", "datetime64[ns]", "U8", ...).
func (d DType) String() string { return C.GoString(C.ca_dtype_name(C.ca_dtype_t(d))) }

// Kinds of the dtypes that carry a parameter (common.h): a DType's bits 0..7 are its kind, the bits
// above its unit (datetime64/timedelta64) or length in characters (bytes/unicode). Build one with
// MakeDType(DateTime64, UnitNS); the values are checked against the C header at compile time.
const (
	DateTime64  DType = C.CA_DATETIME64
	TimeDelta64 DType = C.CA_TIMEDELTA64
	Bytes       DType = C.CA_BYTES
	Unicode     DType = C.CA_UNICODE
)

// Units of datetime64/timedelta64 (CA_UNIT_*), coarse to fine.
const (
	UnitY, UnitM, UnitW, UnitD     = C.CA_UNIT_Y, C.CA_UNIT_M, C.CA_UNIT_W, C.CA_UNIT_D
	UnitH, UnitMin, UnitS          = C.CA_UNIT_H, C.CA_UNIT_MIN, C.CA_UNIT_S
	UnitMS, UnitUS, UnitNS, UnitPS = C.CA_UNIT_MS, C.CA_UNIT_US, C.CA_UNIT_NS, C.CA_UNIT_PS
	UnitFS, UnitAS                 = C.CA_UNIT_FS, C.CA_UNIT_AS
	dtypeKindBits                  = C.CA_DTYPE_KIND_BITS
	dtypeKindMask                  = C.CA_DTYPE_KIND_MASK
)

// MakeDType is CA_DTYPE_MAKE: a parametric dtype from its kind and unit or length (unchecked; the
// library rejects invalid ones with CA_ETYPE).
func MakeDType(kind DType, param int64) DType { return kind | DType(param<<dtypeKindBits) }

// PromoteStd is the Python array API standard's promotion of two dtypes (ca_dtype_promote_std): no
// value-based casting, Int8 with UInt8 is Int16; a StatusType error naming both dtypes where the
// standard has none (integer with float, Bool with a number, Int64 with UInt64, Float16).
func (d DType) PromoteStd(o DType) (DType, error) {
	var out C.ca_dtype_t
	err := call(func() C.ca_status_t { return C.ca_dtype_promote_std(&out, C.ca_dtype_t(d), C.ca_dtype_t(o)) })
	return DType(out), err
}

// Kind is the dtype's kind code (DateTime64 for every datetime64 unit).
func (d DType) Kind() DType { return d & dtypeKindMask }

// Param is the dtype's unit or length (0 for dtypes without one).
func (d DType) Param() int64 { return int64(d >> dtypeKindBits) }

// ---------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------

// Context holds worker threads, configuration and the kernel registry.
type Context struct {
	h *C.ca_context_t
}

// NewContext makes a context with numThreads workers (-1: one per core, 0: synchronous).
func NewContext(numThreads int) (*Context, error) {
	o := C.ca_context_options_t{struct_size: C.uint32_t(unsafe.Sizeof(C.ca_context_options_t{})),
		num_threads: C.int32_t(numThreads), builtin_kernels: 1}
	var h *C.ca_context_t
	if err := call(func() C.ca_status_t { return C.ca_context_new(&h, &o) }); err != nil {
		return nil, err
	}
	c := &Context{h: h}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Close frees the context (joins its workers after running computations end). Safe to call
// twice; the error is always nil (io.Closer).
func (c *Context) Close() error {
	if c.h != nil {
		C.ca_context_free(c.h)
		c.h = nil
	}
	runtime.SetFinalizer(c, nil)
	return nil
}

// NumThreads is the number of worker threads.
func (c *Context) NumThreads() int { return int(C.ca_context_num_threads(c.h)) }

// SetConfig sets a configuration value ("array.chunk-size", "memory-limit", "num-threads").
func (c *Context) SetConfig(key, value string) error {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	return call(func() C.ca_status_t { return C.ca_context_set_config(c.h, k, v) })
}

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------

func blockShape(h *C.ca_block_t) []int64 {
	nd := int(C.ca_block_ndim(h))
	if nd == 0 {
		return []int64{}
	}
	p := C.ca_block_shape(h)
	out := make([]int64, nd)
	copy(out, unsafe.Slice((*int64)(unsafe.Pointer(p)), nd))
	return out
}

// blockView is the elements of block h, which must be of dtype dt with elements of type T, as a
// slice over the block's memory (valid while the block lives).
func blockView[T any](h *C.ca_block_t, dt DType) ([]T, error) {
	if got := DType(C.ca_block_dtype(h)); got != dt {
		return nil, newError(StatusType, "block dtype is %v, not %v", got, dt)
	}
	n := int(C.ca_block_size(h))
	if n == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(C.ca_block_data(h)), n), nil
}

// blockCopy is blockView copied into Go memory.
func blockCopy[T any](h *C.ca_block_t, dt DType) ([]T, error) {
	v, err := blockView[T](h, dt)
	if err != nil {
		return nil, err
	}
	return append(make([]T, 0, len(v)), v...), nil
}

// Block is an owned block (a kernel's result or a computed array).
type Block struct {
	h *C.ca_block_t
}

func newBlock(h *C.ca_block_t) *Block {
	b := &Block{h: h}
	runtime.SetFinalizer(b, (*Block).Close)
	return b
}

// NewBlockFloat64 makes a float64 block of shape holding a copy of data (C order).
func NewBlockFloat64(shape []int64, data []float64) (*Block, error) {
	return newBlockOf(shape, Float64, ptrOf(data), len(data), 8)
}

// NewBlockInt64 makes an int64 block of shape holding a copy of data (C order).
func NewBlockInt64(shape []int64, data []int64) (*Block, error) {
	return newBlockOf(shape, Int64, ptrOf(data), len(data), 8)
}

func newBlockOf(shape []int64, dt DType, data unsafe.Pointer, n int, itemsize int) (*Block, error) {
	want := int64(1)
	for _, s := range shape {
		want *= s
	}
	if want != int64(n) {
		return nil, newError(StatusInvalidArgument, "block of shape %v needs %d elements, got %d", shape, want, n)
	}
	var h *C.ca_block_t
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	if err := call(func() C.ca_status_t { return C.ca_block_new(&h, C.ca_dtype_t(dt), C.int32_t(len(shape)), sp) }); err != nil {
		return nil, err
	}
	if n > 0 {
		C.memcpy(C.ca_block_data(h), data, C.size_t(n*itemsize))
	}
	return newBlock(h), nil
}

// Shape of the block.
func (b *Block) Shape() []int64 { return blockShape(b.h) }

// DType of the block.
func (b *Block) DType() DType { return DType(C.ca_block_dtype(b.h)) }

// Float64s copies a float64 block's elements.
func (b *Block) Float64s() ([]float64, error) { return blockCopy[float64](b.h, Float64) }

// Int64s copies an int64 block's elements.
func (b *Block) Int64s() ([]int64, error) { return blockCopy[int64](b.h, Int64) }

// Uint64s copies a uint64 block's elements.
func (b *Block) Uint64s() ([]uint64, error) { return blockCopy[uint64](b.h, UInt64) }

// Float32s copies a float32 block's elements.
func (b *Block) Float32s() ([]float32, error) { return blockCopy[float32](b.h, Float32) }

// Int32s copies an int32 block's elements.
func (b *Block) Int32s() ([]int32, error) { return blockCopy[int32](b.h, Int32) }

// Bools copies a bool block's elements.
func (b *Block) Bools() ([]bool, error) {
	v, err := blockView[uint8](b.h, Bool)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(v))
	for i, x := range v {
		out[i] = x != 0
	}
	return out, nil
}

// Close frees the block. Safe to call twice; the error is always nil (io.Closer).
func (b *Block) Close() error {
	if b.h != nil {
		C.ca_block_free(b.h)
		b.h = nil
	}
	runtime.SetFinalizer(b, nil)
	return nil
}

// ZerosBlock makes a block of shape and dtype filled with zeros (a kernel's result, for instance).
func ZerosBlock(shape []int64, dt DType) (*Block, error) {
	var h *C.ca_block_t
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	if err := call(func() C.ca_status_t { return C.ca_block_new_zeroed(&h, C.ca_dtype_t(dt), C.int32_t(len(shape)), sp) }); err != nil {
		return nil, err
	}
	return newBlock(h), nil
}

// release hands the block's reference over (to the library, as a kernel's result).
func (b *Block) release() *C.ca_block_t {
	h := b.h
	b.h = nil
	runtime.SetFinalizer(b, nil)
	return h
}

// cInt64s copies a slice into C memory (free it with C.free).
func cInt64s(v []int64) *C.int64_t {
	n := len(v)
	if n == 0 {
		n = 1
	}
	p := (*C.int64_t)(C.malloc(C.size_t(8 * n)))
	if len(v) > 0 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(p)), len(v)), v)
	}
	return p
}

func ptrOf[T any](v []T) unsafe.Pointer {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Pointer(&v[0])
}

// cbool is a Go bool as the C API's booleans: an int that is 0 or 1.
func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
