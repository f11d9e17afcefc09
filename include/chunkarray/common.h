/**
 * @file chunkarray/common.h
 * @brief Version, status codes, error messages and dtypes: what every other header uses.
 *
 * Pure C99. Every function in the library that can fail returns a ::ca_status_t; on failure a human
 * message for the last failure on the calling OS thread is available from ca_last_error_message().
 */
#ifndef CHUNKARRAY_COMMON_H
#define CHUNKARRAY_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CA_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CA_API __attribute__((visibility("default")))
#else
#define CA_API
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Version                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

#define CA_VERSION_MAJOR 0
#define CA_VERSION_MINOR 1
#define CA_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, as zstd's ZSTD_VERSION_NUMBER. */
#define CA_VERSION_NUMBER (CA_VERSION_MAJOR * 10000 + CA_VERSION_MINOR * 100 + CA_VERSION_PATCH)
#define CA_VERSION_STRING "0.1.0"
/** The ABI version; it is the shared library's soname major (libchunkarray.so.1). */
#define CA_ABI_VERSION 1

/** @return CA_VERSION_NUMBER of the library actually loaded (bindings compare it to their own). */
CA_API int32_t ca_version_number(void);
/** @return the static string "MAJOR.MINOR.PATCH" of the library actually loaded. */
CA_API const char *ca_version_string(void);
/** @return CA_ABI_VERSION of the library actually loaded. */
CA_API int32_t ca_abi_version(void);

/* ------------------------------------------------------------------------------------------------ */
/* Status codes. Never renumbered; new codes are only appended.                                      */
/* ------------------------------------------------------------------------------------------------ */

typedef int32_t ca_status_t;

#define CA_OK 0
#define CA_EINVAL (-1)      /**< an argument is invalid (NULL handle, bad shape, bad axis, ...) */
#define CA_ENOMEM (-2)      /**< an allocation failed, or a memory limit would be exceeded */
#define CA_ENOTFOUND (-3)   /**< a key, kernel, layer, file or symbol does not exist */
#define CA_ECYCLE (-4)      /**< the task graph has a cycle; the message names the keys on it */
#define CA_EKERNEL (-5)     /**< a kernel returned an error; the message is the kernel's */
#define CA_EIO (-6)         /**< reading or writing a file failed */
#define CA_EFORMAT (-7)     /**< a file or buffer is corrupt, truncated or of an unknown format */
#define CA_ECANCELED (-8)   /**< the computation was cancelled */
#define CA_EINTERNAL (-9)   /**< a bug in chunkarray: please report it with the message */
#define CA_EEXISTS (-10)    /**< a key, layer or kernel of that name already exists */
#define CA_ETYPE (-11)      /**< wrong dtype or wrong argument kind */
#define CA_EVERSION (-12)   /**< a file, plugin or binding of an incompatible version */
#define CA_EUNSUPPORTED (-13) /**< a valid request this build does not implement */

/** @return a static name for a status code ("CA_OK", "CA_EINVAL", ...); "CA_E?" for unknown codes. */
CA_API const char *ca_status_str(ca_status_t status);

/**
 * @return the message of the last failed ca_ call on this OS thread ("" if none). Library-owned;
 * valid until the next ca_ call on this thread. Bindings whose green threads migrate (Go, Julia)
 * must read it on the same OS thread as the failing call.
 */
CA_API const char *ca_last_error_message(void);
/** @return the status of the last failed ca_ call on this OS thread (CA_OK if none). */
CA_API ca_status_t ca_last_error_code(void);
/** Forget the last error on this thread. */
CA_API void ca_clear_error(void);
/**
 * Set this thread's last error, for libraries layered on chunkarray (libchunkarray_mpi, plugins)
 * that report failures the same way. @p message is copied; NULL means "". A @p code of CA_OK clears
 * the error. @return @p code.
 */
CA_API ca_status_t ca_set_error(ca_status_t code, const char *message);

/* ------------------------------------------------------------------------------------------------ */
/* dtypes, NumPy's set. Values are stable.                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef int32_t ca_dtype_t;

#define CA_DTYPE_INVALID 0
#define CA_BOOL 1
#define CA_INT8 2
#define CA_INT16 3
#define CA_INT32 4
#define CA_INT64 5
#define CA_UINT8 6
#define CA_UINT16 7
#define CA_UINT32 8
#define CA_UINT64 9
#define CA_FLOAT32 10
#define CA_FLOAT64 11
#define CA_COMPLEX64 12
#define CA_COMPLEX128 13
#define CA_RAW 14 /**< untyped bytes (itemsize 1): opaque intermediates of user reductions */

/** @return the item size in bytes, or 0 for an invalid dtype. */
CA_API size_t ca_dtype_size(ca_dtype_t dtype);
/** @return NumPy's name ("float64", "int32", "bool", "complex128", "raw"), or NULL if invalid. */
CA_API const char *ca_dtype_name(ca_dtype_t dtype);
/**
 * Parse a dtype name: NumPy names ("float64"), type codes with byte order ("<f8", "|b1", "i4"),
 * C names ("double", "int64_t").
 * @param[out] out the dtype; CA_DTYPE_INVALID on failure.
 * @return CA_OK, CA_EINVAL for NULL, CA_ETYPE for an unknown name.
 */
CA_API ca_status_t ca_dtype_from_name(ca_dtype_t *out, const char *name);
/**
 * NumPy's type promotion (np.result_type of two dtypes).
 * @return CA_OK or CA_ETYPE (raw, invalid dtypes).
 */
CA_API ca_status_t ca_dtype_promote(ca_dtype_t *out, ca_dtype_t a, ca_dtype_t b);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_COMMON_H */
