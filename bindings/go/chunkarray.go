// Package chunkarray binds libchunkarray (dask.array's design behind a C ABI) for Go.
//
// The library is loaded at run time with dlopen by a small C shim ($CHUNKARRAY_LIB, else
// libchunkarray.so.1); Go never links it. Handles are freed by Close (and by finalizers as a
// safety net). Every failing call returns an *Error carrying the status and the library's message,
// read on the same OS thread as the failing call (runtime.LockOSThread around call and read).
package chunkarray

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99
#cgo LDFLAGS: -ldl
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Error is a failed chunkarray call: Status is the negative CA_E* code, Message the library's text.
type Error struct {
	Status  int
	Message string
}

var statusNames = map[int]string{0: "CA_OK", -1: "CA_EINVAL", -2: "CA_ENOMEM", -3: "CA_ENOTFOUND", -4: "CA_ECYCLE",
	-5: "CA_EKERNEL", -6: "CA_EIO", -7: "CA_EFORMAT", -8: "CA_ECANCELED", -9: "CA_EINTERNAL", -10: "CA_EEXISTS",
	-11: "CA_ETYPE", -12: "CA_EVERSION", -13: "CA_EUNSUPPORTED"}

// Code is the status's name ("CA_EINVAL", ...).
func (e *Error) Code() string {
	if n, ok := statusNames[e.Status]; ok {
		return n
	}
	return "CA_E?"
}

func (e *Error) Error() string { return e.Code() + ": " + e.Message }

var (
	loadOnce sync.Once
	loadErr  error
)

func load() error {
	loadOnce.Do(func() {
		var msg *C.char
		if C.cag_load(nil, &msg) != 0 {
			loadErr = &Error{Status: -3, Message: C.GoString(msg)}
		}
	})
	return loadErr
}

// call runs one fallible C call and reads the error message on the same OS thread.
func call(f func() C.ca_status_t) error {
	if err := load(); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st := f()
	if st == 0 {
		return nil
	}
	return &Error{Status: int(st), Message: C.GoString(C.cag_ca_last_error_message())}
}

func mustLoad() {
	if err := load(); err != nil {
		panic(err)
	}
}

// Version is the loaded library's version string.
func Version() (string, error) {
	if err := load(); err != nil {
		return "", err
	}
	return C.GoString(C.cag_ca_version_string()), nil
}

// VersionNumber returns the loaded library's CA_VERSION_NUMBER and ABI version.
func VersionNumber() (int, int, error) {
	if err := load(); err != nil {
		return 0, 0, err
	}
	return int(C.cag_ca_version_number()), int(C.cag_ca_abi_version()), nil
}

// HasFunction reports whether the loaded library has an optional function (ca_save, ...).
func HasFunction(name string) bool {
	if load() != nil {
		return false
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.cag_has(cs) != 0
}

// DType is NumPy's dtype set with chunkarray's codes.
type DType int32

const (
	Bool       DType = 1
	Int8       DType = 2
	Int16      DType = 3
	Int32      DType = 4
	Int64      DType = 5
	UInt8      DType = 6
	Float32    DType = 10
	Float64    DType = 11
	Complex128 DType = 13
	Float16    DType = C.CA_FLOAT16
)

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

// Kind is the dtype's kind code (DateTime64 for every datetime64 unit).
func (d DType) Kind() DType { return d & dtypeKindMask }

// Param is the dtype's unit or length (0 for dtypes without one).
func (d DType) Param() int64 { return int64(d >> dtypeKindBits) }

// Elementwise operators (CA_OP_*), reductions (CA_RED_*) and scans (CA_SCAN_*): the header's values,
// through cgo (the tables in src/array/*.def are their single source).
const (
	OpAdd, OpSub, OpMul, OpDiv               = C.CA_OP_ADD, C.CA_OP_SUB, C.CA_OP_MUL, C.CA_OP_DIV
	OpPow                                    = C.CA_OP_POW
	OpEq, OpNe, OpLt, OpLe, OpGt, OpGe       = C.CA_OP_EQ, C.CA_OP_NE, C.CA_OP_LT, C.CA_OP_LE, C.CA_OP_GT, C.CA_OP_GE
	OpMaximum, OpMinimum                     = C.CA_OP_MAXIMUM, C.CA_OP_MINIMUM
	OpNeg, OpAbs, OpSqrt, OpExp, OpLog       = C.CA_OP_NEG, C.CA_OP_ABS, C.CA_OP_SQRT, C.CA_OP_EXP, C.CA_OP_LOG
	RedSum, RedProd, RedMean, RedVar, RedStd = C.CA_RED_SUM, C.CA_RED_PROD, C.CA_RED_MEAN, C.CA_RED_VAR, C.CA_RED_STD
	RedMin, RedMax, RedArgMin, RedArgMax     = C.CA_RED_MIN, C.CA_RED_MAX, C.CA_RED_ARGMIN, C.CA_RED_ARGMAX
	ScanCumSum, ScanCumProd                  = C.CA_SCAN_CUMSUM, C.CA_SCAN_CUMPROD
)

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
	if err := call(func() C.ca_status_t { return C.cag_ca_context_new(&h, &o) }); err != nil {
		return nil, err
	}
	c := &Context{h: h}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Close frees the context (joins its workers). Safe to call twice.
func (c *Context) Close() {
	if c.h != nil {
		C.cag_ca_context_free(c.h)
		c.h = nil
	}
	runtime.SetFinalizer(c, nil)
}

// NumThreads is the number of worker threads.
func (c *Context) NumThreads() int { return int(C.cag_ca_context_num_threads(c.h)) }

// SetConfig sets a configuration value ("array.chunk-size", "memory-limit", "num-threads").
func (c *Context) SetConfig(key, value string) error {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	return call(func() C.ca_status_t { return C.cag_ca_context_set_config(c.h, k, v) })
}

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------

func blockShape(h *C.ca_block_t) []int64 {
	nd := int(C.cag_ca_block_ndim(h))
	if nd == 0 {
		return []int64{}
	}
	p := C.cag_ca_block_shape(h)
	out := make([]int64, nd)
	copy(out, unsafe.Slice((*int64)(unsafe.Pointer(p)), nd))
	return out
}

func blockFloat64s(h *C.ca_block_t) ([]float64, error) {
	if DType(C.cag_ca_block_dtype(h)) != Float64 {
		return nil, &Error{Status: -11, Message: fmt.Sprintf("block dtype is %d, not float64", int(C.cag_ca_block_dtype(h)))}
	}
	n := int(C.cag_ca_block_size(h))
	out := make([]float64, n)
	if n > 0 {
		copy(out, unsafe.Slice((*float64)(C.cag_ca_block_data(h)), n))
	}
	return out, nil
}

func blockInt64s(h *C.ca_block_t) ([]int64, error) {
	if DType(C.cag_ca_block_dtype(h)) != Int64 {
		return nil, &Error{Status: -11, Message: fmt.Sprintf("block dtype is %d, not int64", int(C.cag_ca_block_dtype(h)))}
	}
	n := int(C.cag_ca_block_size(h))
	out := make([]int64, n)
	if n > 0 {
		copy(out, unsafe.Slice((*int64)(C.cag_ca_block_data(h)), n))
	}
	return out, nil
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
		return nil, &Error{Status: -1, Message: fmt.Sprintf("block of shape %v needs %d elements, got %d", shape, want, n)}
	}
	var h *C.ca_block_t
	sp := cInt64s(shape)
	defer C.free(unsafe.Pointer(sp))
	if err := call(func() C.ca_status_t { return C.cag_ca_block_new(&h, C.ca_dtype_t(dt), C.int32_t(len(shape)), sp) }); err != nil {
		return nil, err
	}
	if n > 0 {
		C.memcpy(C.cag_ca_block_data(h), data, C.size_t(n*itemsize))
	}
	return newBlock(h), nil
}

// Shape of the block.
func (b *Block) Shape() []int64 { return blockShape(b.h) }

// DType of the block.
func (b *Block) DType() DType { return DType(C.cag_ca_block_dtype(b.h)) }

// Float64s copies a float64 block's elements.
func (b *Block) Float64s() ([]float64, error) { return blockFloat64s(b.h) }

// Int64s copies an int64 block's elements.
func (b *Block) Int64s() ([]int64, error) { return blockInt64s(b.h) }

// Close frees the block. Safe to call twice.
func (b *Block) Close() {
	if b.h != nil {
		C.cag_ca_block_free(b.h)
		b.h = nil
	}
	runtime.SetFinalizer(b, nil)
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
