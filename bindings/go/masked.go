package chunkarray

// Masked arrays (numpy.ma / dask.array.ma) over the C library's masked.h: a MaskedArray is a lazy
// data array, a bool mask of the same shape and chunks (true = masked) and a fill value.
// Elementwise operations follow numpy.ma: the result's mask is the OR of the operands' masks plus
// numpy.ma's domains (log of x <= 0, division by zero, sqrt of negatives, ...). Reductions skip
// masked elements, and a result over masked elements only is masked. ComputeFloat64s computes data
// and mask in one pass.

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// MaskTest is a condition of MaskedArray.Compare (ca_mask_test_t).
type MaskTest int32

// The conditions (numpy.ma's masked_equal ... masked_outside).
const (
	MaskEqual        MaskTest = C.CA_MASK_EQUAL         // x == v1 (the fill value becomes v1)
	MaskNotEqual     MaskTest = C.CA_MASK_NOT_EQUAL     // x != v1
	MaskGreater      MaskTest = C.CA_MASK_GREATER       // x > v1
	MaskGreaterEqual MaskTest = C.CA_MASK_GREATER_EQUAL // x >= v1
	MaskLess         MaskTest = C.CA_MASK_LESS          // x < v1
	MaskLessEqual    MaskTest = C.CA_MASK_LESS_EQUAL    // x <= v1
	MaskInside       MaskTest = C.CA_MASK_INSIDE        // between v1 and v2 (either order, inclusive)
	MaskOutside      MaskTest = C.CA_MASK_OUTSIDE       // outside [v1, v2] (either order)
)

// MaskedArray is a lazy masked array. Close frees it; a finalizer does so too if it is forgotten.
type MaskedArray struct {
	h *C.ca_masked_t
}

func newMasked(f func(out **C.ca_masked_t) C.ca_status_t) (*MaskedArray, error) {
	var h *C.ca_masked_t
	if err := call(func() C.ca_status_t { return f(&h) }); err != nil {
		return nil, err
	}
	m := &MaskedArray{h: h}
	runtime.SetFinalizer(m, (*MaskedArray).Close)
	return m, nil
}

// Close frees the handle. Safe to call twice; the error is always nil (io.Closer).
func (m *MaskedArray) Close() error {
	if m.h != nil {
		C.ca_masked_free(m.h)
		m.h = nil
	}
	runtime.SetFinalizer(m, nil)
	return nil
}

func fillArg(fill *float64) (*C.ca_scalar_t, func()) {
	if fill == nil {
		return nil, func() {}
	}
	p := (*C.ca_scalar_t)(C.malloc(C.sizeof_ca_scalar_t))
	*p = C.cag_scalar_f64(C.double(*fill))
	return p, func() { C.free(unsafe.Pointer(p)) }
}

// NewMaskedArray is numpy.ma.masked_array(data, mask, fill_value): mask nil = nothing masked, else
// of the data's shape (or size 1), nonzero = masked; fill nil = numpy.ma's default. Errors:
// StatusInvalidArgument (a mask of another shape), StatusType (a non-numeric data dtype, a fill
// value that does not convert).
func NewMaskedArray(data, mask *Array, fill *float64) (*MaskedArray, error) {
	if data == nil || data.h == nil {
		return nil, newError(StatusInvalidArgument, "NewMaskedArray: data is nil or closed")
	}
	var mh *C.ca_array_t
	if mask != nil {
		mh = mask.h
	}
	fp, done := fillArg(fill)
	defer done()
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t { return C.ca_masked_new(o, data.h, mh, fp) })
}

// Data is numpy.ma.getdata: the data array.
func (m *MaskedArray) Data() (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_masked_data(o, m.h) })
}

// Mask is numpy.ma.getmaskarray: a bool array of the data's shape and chunks.
func (m *MaskedArray) Mask() (*Array, error) {
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_masked_mask(o, m.h) })
}

// FillValue is the fill value in effect (set, or numpy.ma's default), as a float64.
func (m *MaskedArray) FillValue() (float64, error) {
	var s C.ca_scalar_t
	if err := call(func() C.ca_status_t { return C.ca_masked_fill_value(&s, m.h) }); err != nil {
		return 0, err
	}
	return float64(s.re), nil
}

// Filled is numpy.ma.filled: masked elements replaced by fill (nil: the fill value).
func (m *MaskedArray) Filled(fill *float64) (*Array, error) {
	fp, done := fillArg(fill)
	defer done()
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_masked_filled(o, m.h, fp) })
}

// Compare is masked_equal ... masked_outside (v2 is used by MaskInside and MaskOutside only).
func (m *MaskedArray) Compare(test MaskTest, v1, v2 float64) (*MaskedArray, error) {
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t {
		return C.ca_masked_compare(o, m.h, C.ca_mask_test_t(test), C.cag_scalar_f64(C.double(v1)),
			C.cag_scalar_f64(C.double(v2)))
	})
}

// MaskedInvalid is numpy.ma.masked_invalid: nan and infinities masked too.
func (m *MaskedArray) MaskedInvalid() (*MaskedArray, error) {
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t { return C.ca_masked_invalid(o, m.h) })
}

// Unary is numpy.ma's unary ufunc op with its domain.
func (m *MaskedArray) Unary(op Op) (*MaskedArray, error) {
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t { return C.ca_masked_unary(o, C.ca_op_t(op), m.h) })
}

// Binary is numpy.ma's binary ufunc op (broadcasting as Array's binary operations).
func (m *MaskedArray) Binary(op Op, other *MaskedArray) (*MaskedArray, error) {
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t {
		return C.ca_masked_binary(o, C.ca_op_t(op), m.h, other.h)
	})
}

// BinaryScalar is m op v (v op m when scalarFirst), v a Python float.
func (m *MaskedArray) BinaryScalar(op Op, v float64, scalarFirst bool) (*MaskedArray, error) {
	first := C.int(0)
	if scalarFirst {
		first = 1
	}
	return newMasked(func(o **C.ca_masked_t) C.ca_status_t {
		return C.ca_masked_binary_scalar(o, C.ca_op_t(op), m.h, C.cag_scalar_f64(C.double(v)), first)
	})
}

// Reduce is a reduction over axes (nil: all) skipping masked elements: sum, prod, mean, var, std,
// min, max, argmin, argmax, any, all (not the nan-variants).
func (m *MaskedArray) Reduce(r Reduction, axes []int32, keepdims bool, ddof int32) (*MaskedArray, error) {
	ap := cInt32s(axes)
	if ap != nil {
		defer C.free(unsafe.Pointer(ap))
	}
	var o C.ca_reduce_options_t
	o.struct_size = C.uint32_t(C.sizeof_ca_reduce_options_t)
	o.ddof = C.int32_t(ddof)
	kd := C.int(0)
	if keepdims {
		kd = 1
	}
	return newMasked(func(out **C.ca_masked_t) C.ca_status_t {
		return C.ca_masked_reduce(out, C.ca_reduction_t(r), m.h, ap, C.int32_t(len(axes)), kd, &o)
	})
}

// Count is numpy.ma.count over axes (nil: all): int64 counts of unmasked elements.
func (m *MaskedArray) Count(axes []int32, keepdims bool) (*Array, error) {
	ap := cInt32s(axes)
	if ap != nil {
		defer C.free(unsafe.Pointer(ap))
	}
	kd := C.int(0)
	if keepdims {
		kd = 1
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t {
		return C.ca_masked_count(o, m.h, ap, C.int32_t(len(axes)), kd, 0)
	})
}

// ComputeFloat64s computes a float64 masked array's data and mask in one pass (C order).
func (m *MaskedArray) ComputeFloat64s(c *Context) ([]float64, []bool, error) {
	var d, k *C.ca_block_t
	if err := call(func() C.ca_status_t { return C.ca_masked_compute(&d, &k, c.h, m.h, nil) }); err != nil {
		return nil, nil, err
	}
	db, kb := newBlock(d), newBlock(k)
	defer db.Close()
	defer kb.Close()
	data, err := db.Float64s()
	if err != nil {
		return nil, nil, err
	}
	mask, err := kb.Bools()
	return data, mask, err
}
