/**
 * @file chunkarray/fft.h
 * @brief Discrete Fourier transforms: dask.array.fft (fft, ifft, rfft, irfft, hfft, ihfft and their
 *        2-d / n-d forms through one call, fftfreq, rfftfreq, fftshift, ifftshift), NumPy's values.
 *
 * dask's rule: every transformed axis must be one block. A transformed axis of several blocks is
 * CA_EINVAL with dask's message ("Dask array only supports taking an FFT along an axis that \nhas a
 * single chunk. ..."); rechunk it first (ca_array_rechunk()). The other axes keep their chunks
 * (ragged or of unknown size). One task per block transforms the whole block.
 *
 * Values are NumPy 1.24's (numpy.fft, pocketfft): every input dtype (bool, integers, float16/32/64,
 * complex64/128) is computed in double precision; results are complex128, or float64 for
 * CA_FFT_IRFFT and CA_FFT_HFFT. Output chunks are dask's: each transformed axis one block of its
 * output length. The backend is pocketfft (BSD-3-Clause, the C++ header SciPy uses) by default, KISS
 * FFT (BSD-3-Clause) in a build configured with -Dfft=kissfft or without pocketfft's header, or FFTW 3
 * with -Dfft=fftw / -Dfftw=enabled (GPL); results agree to rounding (docs/fft.md). Each block's
 * whole transform runs as one task on one worker thread.
 *
 * Common to every function: `out` receives a new array (free it with ca_array_free()), NULL on
 * failure; input arrays are borrowed. Nothing runs until a compute.
 * Thread safety: arrays are immutable; these functions may run concurrently.
 *
 * Example (the 2-d real FFT of a (1000, 512) array chunked by rows, over its last axis only):
 * @code
 *   int32_t axes[1] = {-1};
 *   ca_fft_options_t o = CA_FFT_OPTIONS_INIT;
 *   o.naxes = 1;
 *   o.axes = axes;
 *   ca_array_t *spec = NULL;
 *   if (ca_fft_transform(&spec, x, CA_FFT_RFFT, &o) != CA_OK) puts(ca_last_error_message());
 *   // spec: complex128, shape (1000, 257), x's row chunks
 * @endcode
 */
#ifndef CHUNKARRAY_FFT_H
#define CHUNKARRAY_FFT_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The transform families (NumPy's names; the 2-d and n-d forms are the same kind over more axes). */
typedef enum ca_fft_kind_t CA_ENUM32 {
  CA_FFT_FFT = 0,   /**< complex forward DFT (fft, fft2, fftn) */
  CA_FFT_IFFT = 1,  /**< complex inverse DFT (ifft, ifft2, ifftn) */
  CA_FFT_RFFT = 2,  /**< real-input forward DFT, n/2+1 outputs along the last axis (rfft, rfft2, rfftn) */
  CA_FFT_IRFFT = 3, /**< inverse of rfft: real output of length n along the last axis (irfft, irfft2, irfftn) */
  CA_FFT_HFFT = 4,  /**< the real DFT of a Hermitian-symmetric signal (hfft; one axis) */
  CA_FFT_IHFFT = 5, /**< inverse of hfft (ihfft; one axis) */
  CA_FFT_KIND__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_fft_kind_t;

/** NumPy's norm=: which direction is scaled, and by what. */
typedef enum ca_fft_norm_t CA_ENUM32 {
  CA_FFT_NORM_BACKWARD = 0, /**< "backward" (NumPy's default): forward unscaled, inverse by 1/n */
  CA_FFT_NORM_ORTHO = 1,    /**< "ortho": both by 1/sqrt(n) */
  CA_FFT_NORM_FORWARD = 2,  /**< "forward": forward by 1/n, inverse unscaled */
  CA_FFT_NORM__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_fft_norm_t;

/** Options of ca_fft_transform(). Start from CA_FFT_OPTIONS_INIT; fields are only appended. */
typedef struct ca_fft_options {
  uint32_t struct_size; /**< sizeof(ca_fft_options_t) */
  int32_t naxes;        /**< entries of `axes`; -1 (default): dask's default axes: the last axis for
                             CA_FFT_HFFT/CA_FFT_IHFFT, otherwise every axis, or the first `ns` axes when
                             `s` is given (dask's rule; NumPy's fftn would take the last ns) */
  const int32_t *axes;  /**< the axes to transform (borrowed for the call; negative count from the end;
                             no repeats); for the r/ir kinds the last one is the real axis */
  int32_t ns;           /**< entries of `s`; -1 (default): no s */
  const int64_t *s;     /**< output length per transformed axis (NumPy's s=, or n= for one axis; borrowed
                             for the call): each input axis truncated or zero-padded to it (rfft's real axis:
                             the input length; irfft's last axis: the output length). Without s: the input's
                             lengths, and for CA_FFT_IRFFT/CA_FFT_HFFT 2 * (m - 1) on the last axis */
  ca_fft_norm_t norm;   /**< CA_FFT_NORM_BACKWARD (default), CA_FFT_NORM_ORTHO or CA_FFT_NORM_FORWARD */
} ca_fft_options_t;
/** ca_fft_options_t's defaults: dask's default axes, no s, norm "backward". */
#define CA_FFT_OPTIONS_INIT {sizeof(ca_fft_options_t), -1, NULL, -1, NULL, CA_FFT_NORM_BACKWARD}

/**
 * A discrete Fourier transform of @p a over one or more axes: numpy.fft.fftn / ifftn / rfftn /
 * irfftn (and fft, fft2, ... with one or two axes), hfft and ihfft (one axis), with dask's chunks.
 * rfft of a complex array transforms its real part (NumPy discards the imaginary part too).
 * @param out receives the transformed array (owned by the caller).
 * @param a borrowed; every transformed axis must be one block of known size.
 * @param kind the transform family.
 * @param opts borrowed, may be NULL (the defaults of CA_FFT_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out or a; an unknown kind or norm; opts->struct_size too small; axes
 *         or s NULL with a positive count; no axis (naxes 0); an axis out of range; repeated axes
 *         ("Duplicate axes not allowed."); ns different from the number of axes ("Shape and axes have
 *         different lengths."); more than one axis for CA_FFT_HFFT/CA_FFT_IHFFT; a length below 1
 *         ("Invalid number of FFT data points (0) specified."); a transformed axis of several blocks
 *         (dask's message) or of unknown size); CA_ETYPE (a dtype that is not bool, integer, floating or
 *         complex); CA_ENOMEM.
 */
CA_API ca_status_t ca_fft_transform(ca_array_t **out, const ca_array_t *a, ca_fft_kind_t kind,
                                    const ca_fft_options_t *opts);

/**
 * numpy.fft.fftfreq(n, d): the sample frequencies [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n*d),
 * float64, as dask computes them (an arange, then each block's values shifted).
 * @param out receives the 1-d array of length n (owned by the caller).
 * @param n the window length, at least 1.
 * @param d the sample spacing.
 * @param chunks borrowed; 1-d, summing to n.
 * @return CA_OK; CA_EINVAL (NULL out or chunks, n < 1, chunks that are not 1-d or do not sum to n);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_fft_fftfreq(ca_array_t **out, int64_t n, double d, const ca_chunks_t *chunks);

/**
 * numpy.fft.rfftfreq(n, d): [0, 1, ..., n//2] / (n*d), float64 (dask's arange divided by n*d).
 * @param out receives the 1-d array of length n//2 + 1 (owned by the caller).
 * @param n the window length, at least 1.
 * @param d the sample spacing.
 * @param chunks borrowed; 1-d, summing to n//2 + 1.
 * @return CA_OK; CA_EINVAL (NULL out or chunks, n < 1, chunks that are not 1-d or do not sum to
 *         n//2 + 1); CA_ENOMEM.
 */
CA_API ca_status_t ca_fft_rfftfreq(ca_array_t **out, int64_t n, double d, const ca_chunks_t *chunks);

/**
 * dask's fftshift(x, axes): the zero-frequency term moved to the centre of each axis in @p axes
 * (each axis: the slices [n - n//2 ...] and [... (n+1)//2] concatenated; chunks as dask's: the
 * slices' chunks, rechunked back to the input's when the axis was one block).
 * @param out receives the shifted array (owned by the caller).
 * @param a borrowed; the shifted axes must have known sizes.
 * @param axes borrowed for the call; may be NULL when naxes is -1.
 * @param naxes entries of @p axes; -1: every axis. Negative axes count from the end; an axis listed
 *        twice is shifted twice (dask's loop).
 * @return CA_OK; CA_EINVAL (NULL out or a, axes NULL with naxes > 0, naxes < -1, an axis out of range,
 *         an axis of unknown size); CA_ENOMEM.
 */
CA_API ca_status_t ca_fft_fftshift(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes);

/**
 * dask's ifftshift(x, axes): the inverse of ca_fft_fftshift() (the split at n//2 instead of (n+1)//2).
 * @param out receives the shifted array (owned by the caller).
 * @param a borrowed.
 * @param axes borrowed for the call; may be NULL when naxes is -1.
 * @param naxes entries of @p axes; -1: every axis.
 * @return as ca_fft_fftshift().
 */
CA_API ca_status_t ca_fft_ifftshift(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes);

/**
 * The FFT backend this library was built with.
 * @return a static string: "pocketfft" (the default build), "kissfft" (-Dfft=kissfft) or "fftw3"
 *         (-Dfft=fftw, -Dfftw=enabled). Never NULL.
 */
CA_API const char *ca_fft_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_FFT_H */
