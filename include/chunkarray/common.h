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

/** @def CA_API
 *  Marks the library's exported functions (default visibility; everything else is hidden). */
#if defined(_WIN32)
#define CA_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CA_API __attribute__((visibility("default")))
#else
#define CA_API
#endif

/**
 * Marks a function kept for one minor version after it was renamed or replaced (docs/abi.md,
 * "Deprecation"). Compilers warn where it is called; define CA_DISABLE_DEPRECATE_WARNINGS before
 * including a chunkarray header to silence that (tests of the aliases do).
 */
#if defined(CA_DISABLE_DEPRECATE_WARNINGS)
#define CA_DEPRECATED(replacement)
#elif defined(__GNUC__) || defined(__clang__)
#define CA_DEPRECATED(replacement) __attribute__((deprecated("use " replacement " instead")))
#elif defined(_MSC_VER)
#define CA_DEPRECATED(replacement) __declspec(deprecated("use " replacement " instead"))
#else
#define CA_DEPRECATED(replacement)
#endif

/**
 * Every code set of the API (operators, reductions, dtype kinds, argument kinds, ...) is a C enum
 * declared `typedef enum ca_x_t CA_ENUM32 { ... } ca_x_t;` with pinned values and a
 * `..._FORCE32 = 0x7fffffff` member, so it is 32 bits wide in every C compiler (the Vulkan and
 * zstd way); C++ also gets int32_t as the fixed underlying type, so any int32_t a C caller passes
 * (an unknown code included, which the library rejects with CA_EINVAL) is a value of the type.
 * Bindings pass the codes as 32-bit integers.
 */
#ifdef __cplusplus
#define CA_ENUM32 : int32_t
#else
#define CA_ENUM32
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Version                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

#define CA_VERSION_MAJOR 0 /**< the major version this header belongs to */
#define CA_VERSION_MINOR 1 /**< the minor version */
#define CA_VERSION_PATCH 0 /**< the patch version */
/** MAJOR * 10000 + MINOR * 100 + PATCH, as zstd's ZSTD_VERSION_NUMBER. */
#define CA_VERSION_NUMBER (CA_VERSION_MAJOR * 10000 + CA_VERSION_MINOR * 100 + CA_VERSION_PATCH)
#define CA_VERSION_STRING "0.1.0" /**< the version as text (ca_version_string() at run time) */
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

/** The result of every fallible call: CA_OK (0) or a negative CA_E* error class (ca_status_str() names it). */
typedef int32_t ca_status_t;

#define CA_OK 0 /**< success */
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
 * @return the @p code given (CA_OK clears; any CA_E* is recorded as is).
 */
CA_API ca_status_t ca_set_error(ca_status_t code, const char *message);

/** Free a library-owned NUL-terminated string (ca_array_to_svg(), ca_graph_to_dot(), ...).
 *  Accepts NULL. */
CA_API void ca_string_free(char *s);

/* ------------------------------------------------------------------------------------------------ */
/* dtypes, NumPy's set. Values are stable.                                                           */
/* ------------------------------------------------------------------------------------------------ */

/** A dtype: a kind (ca_dtype_kind_t) and, for the parametric kinds, its parameter (below). Not an
 *  enum: the parametric values are computed (CA_DTYPE_MAKE). */
typedef int32_t ca_dtype_t;

/** The dtype kinds (bits 0..7 of a ca_dtype_t; the kinds 1..15 are complete dtypes by themselves).
 *  Values pinned. */
typedef enum ca_dtype_kind_t CA_ENUM32 {
  CA_DTYPE_INVALID = 0,
  CA_BOOL = 1,
  CA_INT8 = 2,
  CA_INT16 = 3,
  CA_INT32 = 4,
  CA_INT64 = 5,
  CA_UINT8 = 6,
  CA_UINT16 = 7,
  CA_UINT32 = 8,
  CA_UINT64 = 9,
  CA_FLOAT32 = 10,
  CA_FLOAT64 = 11,
  CA_COMPLEX64 = 12,
  CA_COMPLEX128 = 13,
  CA_RAW = 14, /**< untyped bytes (itemsize 1): opaque intermediates of user reductions */
  CA_FLOAT16 = 15, /**< IEEE 754 binary16 (NumPy's float16, "<f2"); arithmetic rounds per operation */
  /** NumPy's datetime64: int64 ticks of a unit since 1970-01-01T00:00 (no leap seconds); NaT is INT64_MIN.
   *  A kind code: a usable dtype carries its unit, CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS). */
  CA_DATETIME64 = 16,
  /** NumPy's timedelta64: int64 ticks of a unit; NaT is INT64_MIN. A kind code (needs a unit). */
  CA_TIMEDELTA64 = 17,
  /** NumPy's fixed-width bytes "S<n>": n bytes, NUL padded. A kind code: the dtype carries n >= 1. */
  CA_BYTES = 18,
  /** NumPy's fixed-width unicode "U<n>": n UCS4 code points (4n bytes, native order), NUL padded. */
  CA_UNICODE = 19,
  CA_DTYPE__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_dtype_kind_t;

/**
 * @name Parametric dtypes
 * A ca_dtype_t is a 32-bit value, never negative. Bits 0..7 are the kind: one of the codes above
 * (1..19; the codes 1..15 are complete dtypes by themselves). Bits 8..30 are the kind's parameter:
 * - CA_DATETIME64 / CA_TIMEDELTA64: bits 8..15 the unit (CA_UNIT_*), bits 16..30 zero (reserved
 *   for NumPy's unit multiplier as in "M8[5s]", which chunkarray rejects with CA_ETYPE today);
 * - CA_BYTES / CA_UNICODE: bits 8..30 the length in characters, 1..CA_DTYPE_MAX_LENGTH;
 * - every other kind: zero.
 * Bit 31 is always zero. Existing codes keep their values, so a dtype written by an older reader or
 * file stays valid; a new kind or unit is only ever appended. A value with an unknown kind, unit or
 * nonzero reserved bits is invalid everywhere (CA_ETYPE, or CA_EFORMAT in a file).
 * Examples: CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS) is NumPy's "<M8[ns]" (0xA10 = 2576);
 * CA_DTYPE_MAKE(CA_UNICODE, 8) is "<U8" (0x813 = 2067, item size 32 bytes).
 * @{
 */
#define CA_DTYPE_KIND_BITS 8 /**< a dtype code's low bits hold its kind; the rest its unit or length */
#define CA_DTYPE_KIND_MASK 0xff /**< the kind bits of a dtype code */
/** The longest S/U dtype, in characters (23 bits). */
#define CA_DTYPE_MAX_LENGTH 8388607
/** A parametric dtype from a kind and its parameter (no checks: ca_dtype_make checks). */
#define CA_DTYPE_MAKE(kind, param) ((ca_dtype_t)((int32_t)(kind) | ((int32_t)(param) << CA_DTYPE_KIND_BITS)))

/* Units of datetime64 / timedelta64, coarse to fine (values pinned; NumPy's letters in comments). */
/** The unit of a datetime64/timedelta64 dtype (the code's upper bits). */
typedef enum ca_time_unit_t CA_ENUM32 {
  CA_UNIT_Y = 1, /**< years ("Y"); a calendar unit for datetime64 */
  CA_UNIT_M = 2, /**< months ("M"); a calendar unit for datetime64 */
  CA_UNIT_W = 3, /**< weeks ("W") */
  CA_UNIT_D = 4, /**< days ("D") */
  CA_UNIT_H = 5, /**< hours ("h") */
  CA_UNIT_MIN = 6, /**< minutes ("m") */
  CA_UNIT_S = 7, /**< seconds ("s") */
  CA_UNIT_MS = 8, /**< milliseconds ("ms") */
  CA_UNIT_US = 9, /**< microseconds ("us") */
  CA_UNIT_NS = 10, /**< nanoseconds ("ns") */
  CA_UNIT_PS = 11, /**< picoseconds ("ps") */
  CA_UNIT_FS = 12, /**< femtoseconds ("fs") */
  CA_UNIT_AS = 13, /**< attoseconds ("as") */
  CA_UNIT__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_time_unit_t;
/** NaT ("not a time"), the missing value of datetime64 and timedelta64. */
#define CA_NAT INT64_MIN
/** @} */

/**
 * Make a dtype from a kind and its parameter, checked.
 * @param[out] out the dtype; CA_DTYPE_INVALID on failure.
 * @param kind one of the kind codes (CA_BOOL .. CA_UNICODE).
 * @param param the unit (CA_UNIT_*) for CA_DATETIME64 / CA_TIMEDELTA64, the length in characters
 *        (1..CA_DTYPE_MAX_LENGTH) for CA_BYTES / CA_UNICODE, 0 for every other kind.
 * @return CA_OK; CA_EINVAL if out is NULL; CA_ETYPE for an unknown kind or a parameter out of range.
 */
CA_API ca_status_t ca_dtype_make(ca_dtype_t *out, ca_dtype_kind_t kind, int64_t param);
/** @return the kind code of a valid dtype (bits 0..7, e.g. CA_DATETIME64), CA_DTYPE_INVALID otherwise. */
CA_API ca_dtype_kind_t ca_dtype_kind(ca_dtype_t dtype);
/**
 * @return the parameter of a valid dtype: the unit (CA_UNIT_*) of a datetime64/timedelta64, the
 * length in characters of a bytes/unicode dtype, 0 for the other kinds; -1 for an invalid dtype.
 */
CA_API int64_t ca_dtype_param(ca_dtype_t dtype);

/** @return the item size in bytes (4 * length for CA_UNICODE), or 0 for an invalid dtype. */
CA_API size_t ca_dtype_size(ca_dtype_t dtype);
/**
 * @return NumPy's name ("float64", "int32", "bool", "complex128", "float16", "datetime64[ns]",
 * "timedelta64[s]") or, for bytes/unicode, NumPy's short string ("S5", "U8"); "raw" for CA_RAW;
 * NULL if invalid. The string is static (library-owned, valid for the life of the process).
 */
CA_API const char *ca_dtype_name(ca_dtype_t dtype);
/**
 * Parse a dtype name: NumPy names ("float64", "float16", "datetime64[ns]", "timedelta64[s]"), type
 * codes with byte order ("<f8", "|b1", "i4", "<f2", "<M8[ns]", "m8[s]", "<U8", "|S5", "S5"),
 * C names ("double", "int64_t"). ca_dtype_name's output parses back to the same dtype.
 * @param[out] out the dtype; CA_DTYPE_INVALID on failure.
 * @return CA_OK, CA_EINVAL for NULL, CA_ETYPE for an unknown name, a unit NumPy does not have, a
 * datetime without a unit ("M8") or with a multiplier ("M8[5s]"), or a zero/too large length.
 */
CA_API ca_status_t ca_dtype_from_name(ca_dtype_t *out, const char *name);
/**
 * NumPy's type promotion (np.result_type of two dtypes): datetime64 with datetime64 or timedelta64
 * takes the finer unit (a datetime64), timedelta64 with timedelta64, bool or a signed integer or
 * uint8..uint32 the finer unit, bytes with bytes the longer, bytes or unicode with unicode the
 * longer unicode, float16 with int8/uint8 float16 and with int16/uint16 float32.
 * @return CA_OK; CA_EINVAL if out is NULL; CA_ETYPE for raw or invalid dtypes and pairs NumPy does
 * not promote (datetime with a number, strings with numbers, timedelta64[Y] with timedelta64[D]).
 */
CA_API ca_status_t ca_dtype_promote(ca_dtype_t *out, ca_dtype_t a, ca_dtype_t b);
/**
 * The Python array API standard's type promotion (its 2021.12 table, with 2022.12's complex dtypes):
 * no value-based casting; bool only with bool; integers of one signedness give the wider; a signed
 * with an unsigned integer gives the smallest signed type that holds both (int8 with uint8 is int16,
 * int64 with uint64 has none); float32 with float64 is float64; a complex with a float or complex
 * dtype gives the complex of the wider precision; integer with floating-point dtypes has none.
 * Where both define a result it is the same as ca_dtype_promote()'s. Binary operations under these
 * rules: ca_array_binary_std() and ca_array_binary_scalar_std().
 * @param[out] out the promoted dtype; CA_DTYPE_INVALID on failure.
 * @return CA_OK; CA_EINVAL if out is NULL; CA_ETYPE for a pair the standard does not promote (the
 * message names both dtypes and the rule) or a dtype outside the standard's set (float16,
 * datetime64, timedelta64, strings, raw, invalid).
 */
CA_API ca_status_t ca_dtype_promote_std(ca_dtype_t *out, ca_dtype_t a, ca_dtype_t b);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_COMMON_H */
