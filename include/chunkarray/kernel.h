/**
 * @file chunkarray/kernel.h
 * @brief Task arguments, keys, and kernels: the functions tasks run.
 *
 * A task is dask's tuple `(func, arg1, arg2, ...)`: a kernel name plus arguments. An argument is a
 * literal (int64, double, string, bytes, int64 tuple, slice), a reference to another task's key (the
 * referenced result is passed in as a block), or a list of arguments.
 *
 * Kernels are C function pointers with the native block signature ::ca_kernel_fn, or plain C functions
 * with a described signature called through libffi (ca_kernel_new_ffi()). Kernels run concurrently on
 * any worker thread: a kernel and its user_data must be thread safe.
 */
#ifndef CHUNKARRAY_KERNEL_H
#define CHUNKARRAY_KERNEL_H

#include "chunkarray/block.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Argument kinds (ca_arg_t.kind). Values are stable. */
/** The kind of a task argument (ca_arg_t.kind). */
typedef enum ca_arg_kind_t CA_ENUM32 {
  CA_ARG_NONE = 0, /**< Python's None */
  CA_ARG_INT64 = 1, /**< u.i64 */
  CA_ARG_FLOAT64 = 2, /**< u.f64 */
  CA_ARG_STRING = 3, /**< u.bytes: UTF-8; kernels always see a NUL after the last byte */
  CA_ARG_BYTES = 4, /**< u.bytes */
  CA_ARG_TUPLE = 5, /**< u.tuple: int64 items */
  CA_ARG_SLICE = 6, /**< u.slice */
  CA_ARG_KEY = 7, /**< u.key: a reference to another task (building graphs only) */
  CA_ARG_BLOCK = 8, /**< u.block: the referenced task's result (what kernels see for a KEY) */
  CA_ARG_LIST = 9, /**< u.list: nested arguments */
  CA_ARG_INDEXED = 10, /**< u.indexed: blockwise only, an input named with index letters ("ij") */
  CA_ARG__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_arg_kind_t;

/** A task key: dask's `('name', i, j, ...)`. Both pointers are borrowed. */
typedef struct ca_key {
  const char *name;     /**< NUL-terminated, non-empty */
  const int64_t *index; /**< nindex block indices (may be NULL when nindex is 0) */
  int32_t nindex; /**< entries in index */
} ca_key_t;

/* ca_slice_t.flags: which bounds are present (absent ones are Python's None). */
#define CA_SLICE_START 1u /**< ca_slice_t.flags: start is set */
#define CA_SLICE_STOP 2u /**< ca_slice_t.flags: stop is set */
#define CA_SLICE_STEP 4u /**< ca_slice_t.flags: step is set */

/** Python's slice(start, stop, step); a field is None unless its flag is set. */
typedef struct ca_slice {
  int64_t start; /**< with CA_SLICE_START */
  int64_t stop; /**< with CA_SLICE_STOP */
  int64_t step; /**< with CA_SLICE_STEP */
  uint32_t flags; /**< CA_SLICE_START | CA_SLICE_STOP | CA_SLICE_STEP */
} ca_slice_t;

/** One argument. Every pointer in it is borrowed; the graph copies what it keeps. */
typedef struct ca_arg {
  ca_arg_kind_t kind; /**< CA_ARG_* */
  int32_t reserved; /**< zero */
  union {
    int64_t i64;
    double f64;
    struct {
      const void *data;
      size_t len;
    } bytes;
    struct {
      const int64_t *items;
      size_t len;
    } tuple;
    ca_slice_t slice;
    ca_key_t key;
    const ca_block_t *block;
    struct {
      const struct ca_arg *items;
      size_t len;
    } list;
    struct {
      const char *name;  /**< a layer name */
      const char *index; /**< one letter per dimension, e.g. "ij" */
    } indexed;
  } u; /**< the value, by kind */
} ca_arg_t;

/* Small constructors (static inline: bindings build the struct themselves). */
/** @return a CA_ARG_NONE argument. */
static inline ca_arg_t ca_arg_none(void) { ca_arg_t a; a.kind = CA_ARG_NONE; a.reserved = 0; a.u.i64 = 0; return a; }
/** @return a CA_ARG_INT64 argument. */
static inline ca_arg_t ca_arg_i64(int64_t v) { ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_INT64; a.u.i64 = v; return a; }
/** @return a CA_ARG_FLOAT64 argument. */
static inline ca_arg_t ca_arg_f64(double v) { ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_FLOAT64; a.u.f64 = v; return a; }
/** @return a CA_ARG_STRING argument over the NUL-terminated @p s (borrowed). */
static inline ca_arg_t ca_arg_str(const char *s) {
  ca_arg_t a = ca_arg_none(); size_t n = 0; while (s && s[n]) ++n;
  a.kind = CA_ARG_STRING; a.u.bytes.data = s; a.u.bytes.len = n; return a;
}
/** @return a CA_ARG_BYTES argument over @p n bytes at @p p (borrowed). */
static inline ca_arg_t ca_arg_bytes(const void *p, size_t n) { ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_BYTES; a.u.bytes.data = p; a.u.bytes.len = n; return a; }
/** @return a CA_ARG_TUPLE argument over @p n int64 items (borrowed). */
static inline ca_arg_t ca_arg_tuple(const int64_t *items, size_t n) { ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_TUPLE; a.u.tuple.items = items; a.u.tuple.len = n; return a; }
/** @return a CA_ARG_KEY argument: a reference to the task (name, index...) (borrowed). */
static inline ca_arg_t ca_arg_key(const char *name, const int64_t *index, int32_t nindex) {
  ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_KEY; a.u.key.name = name; a.u.key.index = index; a.u.key.nindex = nindex; return a;
}
/** @return a CA_ARG_LIST argument over @p n arguments (borrowed). */
static inline ca_arg_t ca_arg_list(const ca_arg_t *items, size_t n) { ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_LIST; a.u.list.items = items; a.u.list.len = n; return a; }
/** @return a CA_ARG_INDEXED argument: layer @p name with index letters @p index (ca_graph_add_blockwise()). */
static inline ca_arg_t ca_arg_indexed(const char *name, const char *index) {
  ca_arg_t a = ca_arg_none(); a.kind = CA_ARG_INDEXED; a.u.indexed.name = name; a.u.indexed.index = index; return a;
}

/** Per-call context handed to a kernel: the task's key, error reporting, cancellation. */
typedef struct ca_kernel_ctx ca_kernel_ctx_t;

/**
 * The native kernel signature.
 * @param[out] out the task's result: a block the kernel created (ca_block_new) or an input it retained
 *        (ca_block_retain). Ownership passes to the library.
 * @param args borrowed; KEY arguments arrive as CA_ARG_BLOCK.
 * @param kctx borrowed, valid during the call; NULL when called outside a compute (ca_kernel_call).
 * @return CA_OK, or a non-zero status: the compute is cancelled and fails with CA_EKERNEL carrying the
 *         message set with ca_kernel_set_error() — CA_ENOMEM instead when the status is CA_ENOMEM
 *         (out of memory, e.g. ca_block_new's status passed on). If the kernel failed, *out is ignored
 *         and freed.
 * Runs concurrently on any worker thread.
 */
typedef ca_status_t (*ca_kernel_fn)(ca_block_t **out, const ca_arg_t *args, size_t nargs,
                                    ca_kernel_ctx_t *kctx, void *user_data);

/** Set the message of a failing kernel (copied). Safe with kctx NULL (the message goes nowhere). */
CA_API void ca_kernel_set_error(ca_kernel_ctx_t *kctx, const char *message);
/** @return the running task's key name (borrowed, valid during the call); "" if kctx is NULL. */
CA_API const char *ca_kernel_key_name(const ca_kernel_ctx_t *kctx);
/** @return the running task's block index (borrowed) and its length in *nindex. */
CA_API const int64_t *ca_kernel_key_index(const ca_kernel_ctx_t *kctx, int32_t *nindex);
/** @return true once the compute has been cancelled: long kernels may poll it and return early. */
CA_API int ca_kernel_cancelled(const ca_kernel_ctx_t *kctx);

/** A kernel object: a named function plus its user data. Reference counted internally. */
typedef struct ca_kernel ca_kernel_t;

/** Options of ca_kernel_new() and the register functions (NULL = defaults). */
typedef struct ca_kernel_options {
  uint32_t struct_size;                 /**< sizeof(ca_kernel_options_t) */
  int32_t version;                      /**< kernel version, >= 0 (default 1). Graph files record the
                                             version a graph was saved against (format.h); computing
                                             such a graph needs this version. 0 = unversioned. */
  void *user_data;                      /**< passed to every call */
  void (*free_user_data)(void *);       /**< runs exactly once: when the kernel is destroyed, or when
                                             ca_kernel_new*() fails */
} ca_kernel_options_t;

/** The defaults of ca_kernel_options_t: version 1, no user data. */
#define CA_KERNEL_OPTIONS_INIT {sizeof(ca_kernel_options_t), 1, NULL, NULL}

/**
 * A kernel with the native signature.
 * @param[out] out owned; free with ca_kernel_free().
 * @param name borrowed, copied: non-empty, no NUL.
 * @param opts borrowed, may be NULL for defaults.
 * @return CA_OK; CA_EINVAL (empty name or one with a NUL, NULL @p fn, negative version).
 */
CA_API ca_status_t ca_kernel_new(ca_kernel_t **out, const char *name, ca_kernel_fn fn,
                                 const ca_kernel_options_t *opts);

/**
 * A kernel over a plain C function, called through libffi.
 *
 * @p signature is `RET(ARG,ARG,...)` with types i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 bool, `void`
 * for RET, and `T*` pointers (e.g. `f64*`):
 * - Only scalar parameters (e.g. `f64(f64,i64)` for `double f(double, int64_t)`): the function is
 *   applied element by element. Each task argument is a literal or a block; blocks broadcast against
 *   each other (NumPy rules) and the result is a block of RET's dtype with the broadcast shape (0-d if
 *   every argument is a literal).
 * - Pointer parameters (e.g. `void(f64*,i64)` for `void g(double *, int64_t)`): the function works on
 *   whole blocks. Each pointer takes one block argument of that dtype; an `i64` parameter directly
 *   after a pointer receives that block's element count (it takes no task argument). With RET `void`,
 *   the first pointer receives a private copy of its block, which becomes the task's result (an
 *   in-place transform). With a scalar RET the result is a 0-d block of it.
 * Remaining parameters take the task's literal arguments in order.
 * @return CA_OK; CA_EINVAL (NULL out, name, fn or signature; a signature that does not parse, quoted);
 *         CA_EUNSUPPORTED (a build without libffi); CA_ENOMEM. free_user_data (opts) runs once, also on failure.
 */
CA_API ca_status_t ca_kernel_new_ffi(ca_kernel_t **out, const char *name, void (*fn)(void),
                                     const char *signature, const ca_kernel_options_t *opts);

/** Drop the caller's reference. Accepts NULL. A registered kernel lives on in its registry. */
CA_API void ca_kernel_free(ca_kernel_t *kernel);
/** @return the kernel's name (borrowed, valid while the kernel lives). */
CA_API const char *ca_kernel_name(const ca_kernel_t *kernel);
/** @return the kernel's version. */
CA_API int32_t ca_kernel_version(const ca_kernel_t *kernel);

/**
 * Call a kernel directly, outside any graph (tests, bindings). KEY arguments are not allowed: pass
 * blocks as CA_ARG_BLOCK.
 * @param[out] out owned result block.
 * @return CA_OK or CA_EKERNEL with the kernel's message.
 */
CA_API ca_status_t ca_kernel_call(ca_block_t **out, const ca_kernel_t *kernel, const ca_arg_t *args,
                                  size_t nargs);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_KERNEL_H */
