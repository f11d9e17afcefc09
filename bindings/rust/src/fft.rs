//! `numpy.fft` / `dask.array.fft` over the C library's `fft.h`: [`fft`], [`ifft`], [`rfft`],
//! [`irfft`], [`hfft`], [`ihfft`] along one axis, their 2-d and n-d forms ([`fft2`], [`fftn`], ...),
//! the general [`transform`] with [`FftOptions`], [`fftfreq`], [`rfftfreq`], [`fftshift`],
//! [`ifftshift`] and the [`backend`] the library was built with.
//!
//! dask's rule: every transformed axis must be one block (`InvalidArgument` with dask's message
//! otherwise: rechunk it first); the other axes keep their chunks. Values are NumPy's, computed in
//! double precision: complex128 results, float64 for `irfft*` and `hfft`.
//!
//! ```no_run
//! use chunkarray::{fft, Array, Context};
//! let x = Array::from_slice(&[1.0f64, 2.0, 0.0, -1.0], &[4], &[4]).unwrap();
//! let spec = fft::rfft(&x, None, -1, fft::Norm::Backward).unwrap(); // complex128, 3 values
//! let back = fft::irfft(&spec, Some(4), -1, fft::Norm::Backward).unwrap();
//! assert_eq!(back.compute_vec::<f64>(&Context::new(1).unwrap()).unwrap(), vec![1.0, 2.0, 0.0, -1.0]);
//! ```

use std::ptr;

use crate::sys::*;
use crate::{cstr, lib, new_array, normalize_chunks, Array, CChunks, DType, Error, Result};

/// The transform family (`ca_fft_kind_t`); the 2-d and n-d forms are the same kind over more axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Complex forward DFT (`fft`, `fft2`, `fftn`).
    Fft,
    /// Complex inverse DFT (`ifft`, `ifft2`, `ifftn`).
    Ifft,
    /// Real-input forward DFT: n/2+1 outputs along the last transformed axis (`rfft`, `rfftn`).
    Rfft,
    /// The inverse of `Rfft`: real output of length n along the last axis (`irfft`, `irfftn`).
    Irfft,
    /// The real DFT of a Hermitian-symmetric signal (`hfft`; one axis).
    Hfft,
    /// The inverse of `Hfft` (`ihfft`; one axis).
    Ihfft,
}

impl Kind {
    fn code(self) -> i32 {
        match self {
            Kind::Fft => CA_FFT_FFT,
            Kind::Ifft => CA_FFT_IFFT,
            Kind::Rfft => CA_FFT_RFFT,
            Kind::Irfft => CA_FFT_IRFFT,
            Kind::Hfft => CA_FFT_HFFT,
            Kind::Ihfft => CA_FFT_IHFFT,
        }
    }
}

/// NumPy's `norm=` (`ca_fft_norm_t`): which direction is scaled, and by what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Norm {
    /// `"backward"` (NumPy's default): forward unscaled, inverse by 1/n.
    #[default]
    Backward,
    /// `"ortho"`: both directions by 1/sqrt(n).
    Ortho,
    /// `"forward"`: forward by 1/n, inverse unscaled.
    Forward,
}

impl Norm {
    fn code(self) -> i32 {
        match self {
            Norm::Backward => CA_FFT_NORM_BACKWARD,
            Norm::Ortho => CA_FFT_NORM_ORTHO,
            Norm::Forward => CA_FFT_NORM_FORWARD,
        }
    }
}

/// The options of [`transform`] (`ca_fft_options_t`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FftOptions {
    /// The axes to transform (negative count from the end; for the r/ir kinds the last one is the
    /// real axis). None: dask's default (the last axis for `Hfft`/`Ihfft`, otherwise every axis, or
    /// the first `s.len()` axes when `s` is given).
    pub axes: Option<Vec<i32>>,
    /// The length per transformed axis (NumPy's `s=`, `n=` for one axis): each input axis
    /// truncated or zero-padded to it. None: the input's lengths (`2 * (m - 1)` on the last axis
    /// for `Irfft`/`Hfft`).
    pub s: Option<Vec<i64>>,
    /// The normalization.
    pub norm: Norm,
}

/// The discrete Fourier transform `kind` of `a` over `opts.axes` (numpy.fft.fftn / ifftn / rfftn /
/// irfftn, hfft, ihfft) with dask's chunks: every transformed axis one block of its output length.
///
/// Errors: `InvalidArgument` (a transformed axis of several blocks or of unknown size, an axis out
/// of range or repeated, `s` and `axes` of different lengths, a length below 1, several axes for
/// `Hfft`/`Ihfft`), `Type` (a dtype that is not bool, integer, floating or complex).
pub fn transform(a: &Array, kind: Kind, opts: &FftOptions) -> Result<Array> {
    let l = lib()?;
    let len32 = |n: usize, what: &str| {
        i32::try_from(n).map_err(|_| Error::raw(CA_EINVAL, format!("fft: {} {} are too many", n, what)))
    };
    let (naxes, axes) = match &opts.axes {
        Some(v) => (len32(v.len(), "axes")?, if v.is_empty() { ptr::null() } else { v.as_ptr() }),
        None => (-1, ptr::null()),
    };
    let (ns, s) = match &opts.s {
        Some(v) => (len32(v.len(), "lengths")?, if v.is_empty() { ptr::null() } else { v.as_ptr() }),
        None => (-1, ptr::null()),
    };
    let o = ca_fft_options_t {
        struct_size: std::mem::size_of::<ca_fft_options_t>() as u32,
        naxes,
        axes,
        ns,
        s,
        norm: opts.norm.code(),
    };
    new_array(|h| unsafe { (l.ca_fft_transform)(h, a.h, kind.code(), &o) })
}

fn one_axis(a: &Array, kind: Kind, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    transform(a, kind, &FftOptions { axes: Some(vec![axis]), s: n.map(|n| vec![n]), norm })
}

fn many_axes(a: &Array, kind: Kind, s: Option<&[i64]>, axes: Option<&[i32]>, norm: Norm) -> Result<Array> {
    transform(a, kind, &FftOptions { axes: axes.map(<[i32]>::to_vec), s: s.map(<[i64]>::to_vec), norm })
}

/// `np.fft.fft(a, n, axis, norm)`: the complex DFT along `axis` (None `n`: the axis' length).
pub fn fft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Fft, n, axis, norm)
}
/// `np.fft.ifft(a, n, axis, norm)`: the inverse complex DFT along `axis`.
pub fn ifft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Ifft, n, axis, norm)
}
/// `np.fft.rfft(a, n, axis, norm)`: the DFT of real input, `n/2 + 1` complex values along `axis`
/// (a complex input's imaginary part is discarded, as NumPy does).
pub fn rfft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Rfft, n, axis, norm)
}
/// `np.fft.irfft(a, n, axis, norm)`: the inverse of `rfft`, `n` real values (None: `2 * (m - 1)`).
pub fn irfft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Irfft, n, axis, norm)
}
/// `np.fft.hfft(a, n, axis, norm)`: the real DFT of a Hermitian-symmetric signal given by its first
/// half (None `n`: `2 * (m - 1)`).
pub fn hfft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Hfft, n, axis, norm)
}
/// `np.fft.ihfft(a, n, axis, norm)`: the inverse of `hfft`, `n/2 + 1` complex values.
pub fn ihfft(a: &Array, n: Option<i64>, axis: i32, norm: Norm) -> Result<Array> {
    one_axis(a, Kind::Ihfft, n, axis, norm)
}

/// `np.fft.fft2(a, s, axes)` (NumPy's default axes are `[-2, -1]`).
pub fn fft2(a: &Array, s: Option<&[i64]>, axes: &[i32], norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Fft, s, Some(axes), norm)
}
/// `np.fft.ifft2(a, s, axes)`.
pub fn ifft2(a: &Array, s: Option<&[i64]>, axes: &[i32], norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Ifft, s, Some(axes), norm)
}
/// `np.fft.rfft2(a, s, axes)`: the last of `axes` is the real one.
pub fn rfft2(a: &Array, s: Option<&[i64]>, axes: &[i32], norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Rfft, s, Some(axes), norm)
}
/// `np.fft.irfft2(a, s, axes)`.
pub fn irfft2(a: &Array, s: Option<&[i64]>, axes: &[i32], norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Irfft, s, Some(axes), norm)
}
/// dask's `fftn(a, s, axes)` (None axes: every axis, or the first `s.len()` with `s`: dask's rule).
pub fn fftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i32]>, norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Fft, s, axes, norm)
}
/// dask's `ifftn(a, s, axes)`.
pub fn ifftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i32]>, norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Ifft, s, axes, norm)
}
/// dask's `rfftn(a, s, axes)`.
pub fn rfftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i32]>, norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Rfft, s, axes, norm)
}
/// dask's `irfftn(a, s, axes)`.
pub fn irfftn(a: &Array, s: Option<&[i64]>, axes: Option<&[i32]>, norm: Norm) -> Result<Array> {
    many_axes(a, Kind::Irfft, s, axes, norm)
}

type FreqFn = unsafe extern "C" fn(*mut *mut ca_array_t, i64, f64, *const ca_chunks_t) -> i32;

fn freq(name: &str, n: i64, len: i64, chunk: i64, f: FreqFn, d: f64) -> Result<Array> {
    if n < 1 {
        return Err(Error::raw(CA_EINVAL, format!("{}: n must be at least 1, got {}", name, n)));
    }
    let cc = CChunks::new(&normalize_chunks(&[len], &[chunk], DType::Float64)?);
    let raw = cc.raw();
    new_array(|h| unsafe { f(h, n, d, &raw) })
}

/// `np.fft.fftfreq(n, d)`: `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (n*d)`, float64, in blocks of
/// `chunk` (-1: one block).
pub fn fftfreq(n: i64, d: f64, chunk: i64) -> Result<Array> {
    freq("fftfreq", n, n, chunk, lib()?.ca_fft_fftfreq, d)
}

/// `np.fft.rfftfreq(n, d)`: `[0, 1, ..., n/2] / (n*d)`, float64 (`n/2 + 1` values) in blocks of
/// `chunk` (-1: one block).
pub fn rfftfreq(n: i64, d: f64, chunk: i64) -> Result<Array> {
    freq("rfftfreq", n, n / 2 + 1, chunk, lib()?.ca_fft_rfftfreq, d)
}

fn shift(a: &Array, axes: Option<&[i32]>,
         f: unsafe extern "C" fn(*mut *mut ca_array_t, *const ca_array_t, *const i32, i32) -> i32) -> Result<Array> {
    let (p, n) = match axes {
        Some(v) => (if v.is_empty() { ptr::null() } else { v.as_ptr() },
                    i32::try_from(v.len()).map_err(|_| Error::raw(CA_EINVAL, "fftshift: too many axes".to_string()))?),
        None => (ptr::null(), -1),
    };
    new_array(|h| unsafe { f(h, a.h, p, n) })
}

/// dask's `fftshift(a, axes)`: the zero-frequency term moved to the centre of each axis in `axes`
/// (None: every axis; an axis listed twice is shifted twice).
pub fn fftshift(a: &Array, axes: Option<&[i32]>) -> Result<Array> {
    shift(a, axes, lib()?.ca_fft_fftshift)
}

/// dask's `ifftshift(a, axes)`: the inverse of [`fftshift`].
pub fn ifftshift(a: &Array, axes: Option<&[i32]>) -> Result<Array> {
    shift(a, axes, lib()?.ca_fft_ifftshift)
}

/// The FFT backend the loaded library was built with: `"pocketfft"` (default), `"kissfft"`
/// (`-Dfft=kissfft`) or `"fftw3"` (`-Dfft=fftw`, `-Dfftw=enabled`).
pub fn backend() -> Result<String> {
    let l = lib()?;
    Ok(unsafe { cstr((l.ca_fft_backend)()) })
}
