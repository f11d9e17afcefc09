package chunkarray

// HDF5 datasets (FromHDF5 / ToHDF5) and dask's npy stacks (ToNpyStack / FromNpyStack), through
// chunkarray/io.h. The HDF5 calls fail with StatusUnsupported when the library was built without HDF5.

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"unsafe"
)

// FromHDF5 is a lazy array over dataset `dataset` of the HDF5 file at path (dask's
// from_array(h5py.File(path)[dataset], chunks)). chunks is a chunk request ("auto", "(1000, -1)",
// "64MiB") resolved with the dataset's HDF5 chunks; "" = those chunks.
func FromHDF5(path, dataset, chunks string) (*Array, error) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	d := C.CString(dataset)
	defer C.free(unsafe.Pointer(d))
	var cs *C.char
	if chunks != "" {
		cs = C.CString(chunks)
		defer C.free(unsafe.Pointer(cs))
	}
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_from_hdf5(o, p, d, cs) })
}

// HDF5Options lays out the dataset ToHDF5 writes (ca_hdf5_options_t). The zero value is not the
// default: use DefaultHDF5Options().
type HDF5Options struct {
	Chunks     []int64 // the HDF5 chunk shape; nil = the array's first block sizes
	Contiguous bool    // contiguous layout (no chunks, no filters)
	GzipLevel  int     // -1: no compression; 0..9: HDF5's deflate level
	Shuffle    bool    // HDF5's shuffle filter (before deflate)
	Overwrite  bool    // replace an existing dataset of that name
}

// DefaultHDF5Options: chunks of the array's block size, no compression.
func DefaultHDF5Options() HDF5Options { return HDF5Options{GzipLevel: -1} }

// ToHDF5 computes the array into dataset `dataset` of the HDF5 file at path (dask's to_hdf5),
// block by block; the file and the groups on the path are created if missing.
func (a *Array) ToHDF5(c *Context, path, dataset string, opts HDF5Options) error {
	return a.ToHDF5Context(context.Background(), c, path, dataset, opts)
}

// ToHDF5Context is ToHDF5 stopped by ctx (see ComputeContext).
func (a *Array) ToHDF5Context(ctx context.Context, c *Context, path, dataset string, opts HDF5Options) error {
	if opts.Chunks != nil && len(opts.Chunks) != a.Ndim() {
		return fmt.Errorf("chunkarray: ToHDF5: %d chunk sizes for %d dimensions: %w", len(opts.Chunks), a.Ndim(),
			StatusInvalidArgument)
	}
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	d := C.CString(dataset)
	defer C.free(unsafe.Pointer(d))
	o := (*C.ca_hdf5_options_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ca_hdf5_options_t{}))))
	defer C.free(unsafe.Pointer(o))
	o.struct_size = C.uint32_t(unsafe.Sizeof(*o))
	if len(opts.Chunks) > 0 {
		ch := (*C.int64_t)(C.malloc(C.size_t(8 * len(opts.Chunks))))
		defer C.free(unsafe.Pointer(ch))
		copy(unsafe.Slice((*int64)(unsafe.Pointer(ch)), len(opts.Chunks)), opts.Chunks)
		o.chunks = ch
	}
	o.contiguous = C.int32_t(cbool(opts.Contiguous))
	o.gzip_level = C.int32_t(opts.GzipLevel)
	o.shuffle = C.int32_t(cbool(opts.Shuffle))
	o.overwrite = C.int32_t(cbool(opts.Overwrite))
	return withCancel(ctx, func(co *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_to_hdf5(c.h, a.h, p, d, o, co)
	})
}

// FromNpyStack is a lazy array over an npy stack (dask's from_npy_stack: <dir>/<i>.npy and the
// info pickle, read by the library's strict reader).
func FromNpyStack(dir string) (*Array, error) {
	p := C.CString(dir)
	defer C.free(unsafe.Pointer(p))
	return newArray(func(o **C.ca_array_t) C.ca_status_t { return C.ca_array_from_npy_stack(o, p) })
}

// ToNpyStack computes the array into an npy stack (dask's to_npy_stack): one .npy file per block
// along axis (negative counts from the end) and the info pickle, readable by dask.
func (a *Array) ToNpyStack(c *Context, dir string, axis int) error {
	p := C.CString(dir)
	defer C.free(unsafe.Pointer(p))
	return withCancel(context.Background(), func(co *C.ca_compute_options_t) C.ca_status_t {
		return C.ca_array_to_npy_stack(c.h, a.h, p, C.int32_t(axis), co)
	})
}
