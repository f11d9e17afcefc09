/* Small C helpers for the Go binding: ca_arg_t's union is opaque to cgo, so Go reads and writes
 * arguments through these; and the trampolines that let a Go function be a kernel. Go calls the
 * library itself (ca_*) directly; the library is linked through `#cgo pkg-config: chunkarray`. */
#ifndef CHUNKARRAY_GO_SHIM_H
#define CHUNKARRAY_GO_SHIM_H

#include <stdint.h>
#include <stdlib.h>

#include <chunkarray/chunkarray.h>

/* Reading a kernel's arguments. */
int32_t cag_arg_kind(const ca_arg_t *args, size_t i);
int64_t cag_arg_i64(const ca_arg_t *args, size_t i);
double cag_arg_f64(const ca_arg_t *args, size_t i);
const ca_block_t *cag_arg_block(const ca_arg_t *args, size_t i);
const char *cag_arg_bytes(const ca_arg_t *args, size_t i, size_t *len);
const int64_t *cag_arg_tuple(const ca_arg_t *args, size_t i, size_t *len);
const ca_arg_t *cag_arg_list(const ca_arg_t *args, size_t i, size_t *len);
void cag_arg_slice(const ca_arg_t *args, size_t i, int64_t *start, int64_t *stop, int64_t *step, uint32_t *flags);

/* Writing arguments (every pointer borrowed: the graph copies what it keeps). */
void cag_set_arg_none(ca_arg_t *a);
void cag_set_arg_i64(ca_arg_t *a, int64_t v);
void cag_set_arg_f64(ca_arg_t *a, double v);
void cag_set_arg_str(ca_arg_t *a, const char *s, size_t len);
void cag_set_arg_bytes(ca_arg_t *a, const void *p, size_t len);
void cag_set_arg_tuple(ca_arg_t *a, const int64_t *items, size_t len);
void cag_set_arg_key(ca_arg_t *a, const char *name, const int64_t *index, int32_t nindex);
void cag_set_arg_list(ca_arg_t *a, const ca_arg_t *items, size_t len);

ca_scalar_t cag_scalar_f64(double v);
ca_scalar_t cag_scalar_i64(int64_t v);

/* Register a Go kernel: @p handle is a runtime/cgo.Handle; it is released (goKernelFree) exactly once. */
ca_status_t cag_register_go_kernel(ca_context_t *ctx, const char *name, uintptr_t handle);

/* 1 if the process has the symbol @p name (a function of the linked library). */
int cag_has(const char *name);

#endif
