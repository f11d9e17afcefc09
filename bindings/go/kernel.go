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

// Value is one kernel argument: a block or a literal.
type Value struct {
	Kind  int // CA_ARG_*: 0 none, 1 int64, 2 float64, 3 string, 8 block
	Int   int64
	Float float64
	Str   string
	Block *BlockRef
}

// Float returns a numeric literal as float64.
func (v Value) AsFloat() (float64, bool) {
	switch v.Kind {
	case 1:
		return float64(v.Int), true
	case 2:
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
func (b *BlockRef) DType() DType { return DType(C.cag_ca_block_dtype(b.h)) }

// Float64s is a view of a float64 block's elements (valid during the call; do not modify).
func (b *BlockRef) Float64s() ([]float64, error) {
	if b.DType() != Float64 {
		return nil, fmt.Errorf("block dtype is %d, not float64", int(b.DType()))
	}
	n := int(C.cag_ca_block_size(b.h))
	if n == 0 {
		return []float64{}, nil
	}
	return unsafe.Slice((*float64)(C.cag_ca_block_data(b.h)), n), nil
}

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
	if err := load(); err != nil {
		return err
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	h := cgo.NewHandle(&goKernel{name: name, fn: fn})
	// the shim releases the handle exactly once (goKernelFree), also when registration fails
	return call(func() C.ca_status_t { return C.cag_register_go_kernel(c.h, cs, C.uintptr_t(h)) })
}

func argValues(args *C.ca_arg_t, n int) []Value {
	out := make([]Value, n)
	for i := 0; i < n; i++ {
		k := int(C.cag_arg_kind(args, C.size_t(i)))
		v := Value{Kind: k}
		switch k {
		case 1:
			v.Int = int64(C.cag_arg_i64(args, C.size_t(i)))
		case 2:
			v.Float = float64(C.cag_arg_f64(args, C.size_t(i)))
		case 3, 4:
			var l C.size_t
			p := C.cag_arg_bytes(args, C.size_t(i), &l)
			v.Str = C.GoStringN(p, C.int(l))
		case 8:
			v.Block = &BlockRef{h: (*C.ca_block_t)(unsafe.Pointer(C.cag_arg_block(args, C.size_t(i))))}
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
		C.cag_ca_kernel_set_error(kctx, cs)
		C.free(unsafe.Pointer(cs))
		return -5
	}
	defer func() {
		if r := recover(); r != nil {
			st = fail(fmt.Sprintf("kernel '%s' panicked: %v", k.name, r))
		}
	}()
	ka := &KernelArgs{Args: argValues(args, int(nargs))}
	var n C.int32_t
	if ip := C.cag_ca_kernel_key_index(kctx, &n); ip != nil && n > 0 {
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
