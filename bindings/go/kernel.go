package chunkarray

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// Value is one kernel argument as the kernel receives it: Kind says which field is set. A task's
// KeyArg arrives as ArgBlock. Slices, strings and bytes are copies; Block is borrowed.
type Value struct {
	Kind  ArgKind
	Int   int64
	Float float64
	Str   string   // ArgString
	Bytes []byte   // ArgBytes
	Tuple []int64  // ArgTuple
	List  []Value  // ArgList
	Slice [4]int64 // ArgSlice: start, stop, step, flags (CA_SLICE_START|STOP|STEP: which are present)
	Block *BlockRef
}

// AsFloat returns a numeric literal as float64.
func (v Value) AsFloat() (float64, bool) {
	switch v.Kind {
	case ArgInt64:
		return float64(v.Int), true
	case ArgFloat64:
		return v.Float, true
	}
	return 0, false
}

// BlockRef is a borrowed block, valid during the kernel call only.
type BlockRef struct {
	h *C.ca_block_t
}

// Shape of the block.
func (b *BlockRef) Shape() []int64 { return blockShape(b.h) }

// DType of the block.
func (b *BlockRef) DType() DType { return DType(C.ca_block_dtype(b.h)) }

// Float64s is a view of a float64 block's elements (valid during the call; do not modify).
func (b *BlockRef) Float64s() ([]float64, error) { return blockView[float64](b.h, Float64) }

// Int64s is a view of an int64 block's elements (valid during the call; do not modify).
func (b *BlockRef) Int64s() ([]int64, error) { return blockView[int64](b.h, Int64) }

// KernelArgs is what a Go kernel gets: its arguments and the running task's block index.
type KernelArgs struct {
	Args       []Value
	BlockIndex []int64
}

// KernelFunc is a kernel written in Go. It runs concurrently on the library's worker threads; an
// error or a panic fails the compute with CA_EKERNEL and the message.
type KernelFunc func(ka *KernelArgs) (*Block, error)

type goKernel struct {
	name string
	fn   KernelFunc
}

// RegisterKernel registers fn under name in the context's registry.
func (c *Context) RegisterKernel(name string, fn KernelFunc) error {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	h := cgo.NewHandle(&goKernel{name: name, fn: fn})
	// the shim releases the handle exactly once (goKernelFree), also when registration fails
	return call(func() C.ca_status_t { return C.cag_register_go_kernel(c.h, cs, C.uintptr_t(h)) })
}

func argValues(args *C.ca_arg_t, n int) []Value {
	out := make([]Value, n)
	for i := 0; i < n; i++ {
		ci := C.size_t(i)
		v := Value{Kind: ArgKind(C.cag_arg_kind(args, ci))}
		switch v.Kind {
		case ArgInt64:
			v.Int = int64(C.cag_arg_i64(args, ci))
		case ArgFloat64:
			v.Float = float64(C.cag_arg_f64(args, ci))
		case ArgString, ArgBytes:
			var l C.size_t
			p := C.cag_arg_bytes(args, ci, &l)
			if v.Kind == ArgString {
				v.Str = C.GoStringN(p, C.int(l))
			} else {
				v.Bytes = C.GoBytes(unsafe.Pointer(p), C.int(l))
			}
		case ArgTuple:
			var l C.size_t
			p := C.cag_arg_tuple(args, ci, &l)
			v.Tuple = make([]int64, int(l))
			if l > 0 {
				copy(v.Tuple, unsafe.Slice((*int64)(unsafe.Pointer(p)), int(l)))
			}
		case ArgList:
			var l C.size_t
			p := C.cag_arg_list(args, ci, &l)
			v.List = argValues(p, int(l))
		case ArgSlice:
			var start, stop, step C.int64_t
			var flags C.uint32_t
			C.cag_arg_slice(args, ci, &start, &stop, &step, &flags)
			v.Slice = [4]int64{int64(start), int64(stop), int64(step), int64(flags)}
		case ArgBlock:
			v.Block = &BlockRef{h: (*C.ca_block_t)(unsafe.Pointer(C.cag_arg_block(args, ci)))}
		}
		out[i] = v
	}
	return out
}

//export goKernelCall
func goKernelCall(out **C.ca_block_t, args *C.ca_arg_t, nargs C.size_t, kctx *C.ca_kernel_ctx_t, handle C.uintptr_t) (st C.ca_status_t) {
	k := cgo.Handle(handle).Value().(*goKernel)
	fail := func(msg string) C.ca_status_t {
		cs := C.CString(msg)
		C.ca_kernel_set_error(kctx, cs)
		C.free(unsafe.Pointer(cs))
		return C.CA_EKERNEL
	}
	defer func() {
		if r := recover(); r != nil {
			st = fail(fmt.Sprintf("kernel '%s' panicked: %v", k.name, r))
		}
	}()
	ka := &KernelArgs{Args: argValues(args, int(nargs))}
	var n C.int32_t
	if ip := C.ca_kernel_key_index(kctx, &n); ip != nil && n > 0 {
		ka.BlockIndex = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(ip)), int(n))...)
	}
	b, err := k.fn(ka)
	if err != nil {
		return fail(fmt.Sprintf("kernel '%s': %v", k.name, err))
	}
	if b == nil || b.h == nil {
		return fail(fmt.Sprintf("kernel '%s' returned no block", k.name))
	}
	*out = b.release()
	return 0
}

//export goKernelFree
func goKernelFree(handle C.uintptr_t) {
	cgo.Handle(handle).Delete()
}
