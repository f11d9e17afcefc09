//! Masked arrays (`numpy.ma` / `dask.array.ma`) over the C library's `masked.h`: a [`MaskedArray`]
//! is a lazy data array, a bool mask of the same shape and chunks (true = masked) and a fill value.
//!
//! Elementwise operations follow numpy.ma: the result's mask is the OR of the operands' masks plus
//! numpy.ma's domains (log of x <= 0, division by zero, sqrt of negatives, ...). Reductions skip
//! masked elements, and a result over masked elements only is masked. [`MaskedArray::compute`]
//! computes data and mask in one pass.
//!
//! ```no_run
//! use chunkarray::masked::{MaskTest, MaskedArray};
//! use chunkarray::{Array, Context, Reduction, Scalar};
//! let x = Array::from_slice(&[1.0f64, -2.0, 3.0, 4.0], &[4], &[2]).unwrap();
//! let m = MaskedArray::new(&x, None, None).unwrap()
//!     .compare(MaskTest::Less, Scalar::Float(0.0), Scalar::Float(0.0)).unwrap();
//! let mean = m.reduce(Reduction::Mean, &[], false, 0).unwrap();
//! let (data, mask) = mean.compute_f64(&Context::new(1).unwrap()).unwrap();
//! assert_eq!((data, mask), (vec![8.0 / 3.0], vec![false]));
//! ```

use std::os::raw::c_int;
use std::ptr;

use crate::sys::*;
use crate::{check, lib, new_array, Array, BinaryOp, Block, Context, DType, Error, Reduction, Result, Scalar, UnaryOp};

/// The conditions of [`MaskedArray::compare`] (`ca_mask_test_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaskTest {
    /// `masked_equal`: x == v1 (the fill value becomes v1).
    Equal = 0,
    /// `masked_not_equal`: x != v1.
    NotEqual = 1,
    /// `masked_greater`: x > v1.
    Greater = 2,
    /// `masked_greater_equal`: x >= v1.
    GreaterEqual = 3,
    /// `masked_less`: x < v1.
    Less = 4,
    /// `masked_less_equal`: x <= v1.
    LessEqual = 5,
    /// `masked_inside`: between v1 and v2 (either order, inclusive).
    Inside = 6,
    /// `masked_outside`: outside [v1, v2] (either order).
    Outside = 7,
}

/// A lazy masked array (immutable; Clone shares it).
pub struct MaskedArray {
    h: *mut ca_opaque,
}

unsafe impl Send for MaskedArray {}
unsafe impl Sync for MaskedArray {}

impl Clone for MaskedArray {
    fn clone(&self) -> MaskedArray {
        let l = api().unwrap();
        MaskedArray { h: unsafe { (l.ca_masked_retain)(self.h) } }
    }
}

impl Drop for MaskedArray {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_masked_free)(self.h) }
        }
    }
}

fn new_masked(f: impl FnOnce(&mut *mut ca_opaque) -> i32) -> Result<MaskedArray> {
    let mut h = ptr::null_mut();
    check(f(&mut h))?;
    Ok(MaskedArray { h })
}

fn scalar_of(s: ca_scalar_t) -> Scalar {
    if s.kind == DType::Bool.code() {
        Scalar::Bool(s.i64_ != 0)
    } else if s.kind == DType::Int64.code() || s.kind == DType::Int32.code() || s.kind == DType::Int16.code()
        || s.kind == DType::Int8.code()
    {
        Scalar::Int(s.i64_)
    } else {
        Scalar::Float(s.re)
    }
}

impl MaskedArray {
    /// `numpy.ma.masked_array(data, mask, fill_value)`: `mask` None = nothing masked; else of the
    /// data's shape (or size 1), nonzero = masked. `fill_value` None = numpy.ma's default.
    ///
    /// Errors: `InvalidArgument` (a mask of another shape), `Type` (a non-numeric data dtype, a
    /// fill value that does not convert).
    pub fn new(data: &Array, mask: Option<&Array>, fill_value: Option<Scalar>) -> Result<MaskedArray> {
        let l = lib()?;
        let f = fill_value.map(|s| s.raw());
        let fp = f.as_ref().map_or(ptr::null(), |s| s as *const ca_scalar_t);
        let mp = mask.map_or(ptr::null(), |m| m.h as *const ca_opaque);
        new_masked(|h| unsafe { (l.ca_masked_new)(h, data.h, mp, fp) })
    }
    /// The data (`numpy.ma.getdata`).
    pub fn data(&self) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_masked_data)(h, self.h) })
    }
    /// The mask, a bool array of the data's shape and chunks (`numpy.ma.getmaskarray`).
    pub fn mask(&self) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_masked_mask)(h, self.h) })
    }
    /// The fill value in effect (set, or numpy.ma's default for the dtype).
    pub fn fill_value(&self) -> Result<Scalar> {
        let l = lib()?;
        let mut s = ca_scalar_t { kind: 0, reserved: 0, re: 0.0, im: 0.0, i64_: 0 };
        check(unsafe { (l.ca_masked_fill_value)(&mut s, self.h) })?;
        Ok(scalar_of(s))
    }
    /// `numpy.ma.filled`: masked elements replaced by `fill_value` (None: the fill value).
    pub fn filled(&self, fill_value: Option<Scalar>) -> Result<Array> {
        let l = lib()?;
        let f = fill_value.map(|s| s.raw());
        let fp = f.as_ref().map_or(ptr::null(), |s| s as *const ca_scalar_t);
        new_array(|h| unsafe { (l.ca_masked_filled)(h, self.h, fp) })
    }
    /// `numpy.ma.masked_where(cond, self)`: `cond` of the same shape (nonzero = mask).
    pub fn masked_where(&self, cond: &Array) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_where)(h, cond.h, self.h) })
    }
    /// `masked_equal` ... `masked_outside`: `v2` is used by `Inside` and `Outside` only.
    pub fn compare(&self, test: MaskTest, v1: Scalar, v2: Scalar) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_compare)(h, self.h, test as i32, v1.raw(), v2.raw()) })
    }
    /// `numpy.ma.masked_invalid`: nan and infinities masked too.
    pub fn masked_invalid(&self) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_invalid)(h, self.h) })
    }
    /// `numpy.ma.masked_values(self, value, rtol, atol)`.
    pub fn masked_values(&self, value: Scalar, rtol: f64, atol: f64) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_values)(h, self.h, value.raw(), rtol, atol) })
    }
    /// numpy.ma's unary ufunc `op` with its domain.
    pub fn unary(&self, op: UnaryOp) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_unary)(h, op as i32, self.h) })
    }
    /// numpy.ma's binary ufunc `op` (broadcasting as `Array::binary`).
    pub fn binary(&self, op: BinaryOp, other: &MaskedArray) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_binary)(h, op as i32, self.h, other.h) })
    }
    /// `self op s` (or `s op self` when `scalar_first`).
    pub fn binary_scalar(&self, op: BinaryOp, s: Scalar, scalar_first: bool) -> Result<MaskedArray> {
        let l = lib()?;
        new_masked(|h| unsafe { (l.ca_masked_binary_scalar)(h, op as i32, self.h, s.raw(), c_int::from(scalar_first)) })
    }
    /// A reduction over `axes` (empty: all) skipping masked elements: sum, prod, mean, var, std,
    /// min, max, argmin, argmax, any, all (not the nan-variants).
    pub fn reduce(&self, op: Reduction, axes: &[i32], keepdims: bool, ddof: i32) -> Result<MaskedArray> {
        let l = lib()?;
        let o = ca_reduce_options_t {
            struct_size: std::mem::size_of::<ca_reduce_options_t>() as u32,
            split_every: 0,
            ddof,
            dtype: 0,
        };
        let ap = if axes.is_empty() { ptr::null() } else { axes.as_ptr() };
        new_masked(|h| unsafe {
            (l.ca_masked_reduce)(h, op as i32, self.h, ap, axes.len() as i32, c_int::from(keepdims), &o)
        })
    }
    /// `numpy.ma.count` over `axes` (empty: all): int64 counts of unmasked elements.
    pub fn count(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        let l = lib()?;
        let ap = if axes.is_empty() { ptr::null() } else { axes.as_ptr() };
        new_array(|h| unsafe { (l.ca_masked_count)(h, self.h, ap, axes.len() as i32, c_int::from(keepdims), 0) })
    }
    /// `numpy.ma.average(self, axes, weights, returned=True)`: the average and the sum of weights.
    pub fn average(&self, weights: Option<&MaskedArray>, axes: &[i32], keepdims: bool)
        -> Result<(MaskedArray, MaskedArray)> {
        let l = lib()?;
        let ap = if axes.is_empty() { ptr::null() } else { axes.as_ptr() };
        let wp = weights.map_or(ptr::null(), |w| w.h as *const ca_opaque);
        let (mut a, mut s) = (ptr::null_mut(), ptr::null_mut());
        check(unsafe { (l.ca_masked_average)(&mut a, &mut s, self.h, wp, ap, axes.len() as i32, c_int::from(keepdims)) })?;
        Ok((MaskedArray { h: a }, MaskedArray { h: s }))
    }
    /// Compute data and mask in one pass: (data block, bool mask block).
    pub fn compute(&self, ctx: &Context) -> Result<(Block, Block)> {
        let l = lib()?;
        let (mut d, mut m) = (ptr::null_mut(), ptr::null_mut());
        check(unsafe { (l.ca_masked_compute)(&mut d, &mut m, ctx.h, self.h, ptr::null()) })?;
        Ok((Block { h: d }, Block { h: m }))
    }
    /// `compute` of a float64 masked array as (values, mask) vectors in C order; `Type` for
    /// another dtype.
    pub fn compute_f64(&self, ctx: &Context) -> Result<(Vec<f64>, Vec<bool>)> {
        let (d, m) = self.compute(ctx)?;
        let v = d.as_slice::<f64>().ok_or_else(|| Error::raw(CA_ETYPE, "masked array data is not float64"))?;
        Ok((v.to_vec(), m.to_bools().expect("the mask is bool")))
    }
}
