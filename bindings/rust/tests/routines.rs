//! Issue 16's functions through the Rust binding (named elementwise functions, isclose, nan_to_num,
//! median/quantile/percentile, the routines of routines.h) against plain loops and NumPy's values
//! (written down from NumPy 1.24 / dask 2022.12), on ragged chunks, empty, 0-d and size-1 arrays
//! and several dtypes. Needs CHUNKARRAY_LIB (set by the meson test).
use chunkarray::*;

fn ctx() -> Context {
    Context::new(2).unwrap()
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37 % 101) as f64) / 7.0 - 5.0).collect()
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{:?} vs {:?}", got, want);
    for (i, (x, y)) in got.iter().zip(want).enumerate() {
        assert!(same(*x, *y), "element {}: {} vs {} ({:?} vs {:?})", i, x, y, got, want);
    }
}

fn f64s(a: &Array) -> Vec<f64> {
    a.compute_vec::<f64>(&ctx()).unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.compute_vec::<i64>(&ctx()).unwrap()
}

fn bools(a: &Array) -> Vec<bool> {
    a.compute_bools(&ctx()).unwrap()
}

/// np.spacing for float64: the distance to the next value away from zero.
fn spacing(x: f64) -> f64 {
    let next = f64::from_bits(x.abs().to_bits() + 1) - x.abs();
    if x.is_sign_negative() {
        -next
    } else {
        next
    }
}

#[test]
fn named_unary_functions_match_loops() {
    let v = data(13);
    let x = Array::from_slice(&v, &[13], &[5]).unwrap();
    type F = fn(f64) -> f64;
    let cases: Vec<(&str, Array, F)> = vec![
        ("cbrt", x.cbrt().unwrap(), f64::cbrt),
        ("exp2", x.exp2().unwrap(), f64::exp2),
        ("expm1", x.expm1().unwrap(), f64::exp_m1),
        ("fabs", x.fabs().unwrap(), f64::abs),
        ("trunc", x.trunc().unwrap(), f64::trunc),
        ("fix", x.fix().unwrap(), f64::trunc),
        ("deg2rad", x.deg2rad().unwrap(), f64::to_radians),
        ("radians", x.radians().unwrap(), f64::to_radians),
        ("rad2deg", x.rad2deg().unwrap(), f64::to_degrees),
        ("degrees", x.degrees().unwrap(), f64::to_degrees),
        ("reciprocal", x.reciprocal().unwrap(), |a| 1.0 / a),
        ("positive", x.positive().unwrap(), |a| a),
        ("negative", x.negative().unwrap(), |a| -a),
        ("tan", x.tan().unwrap(), f64::tan),
        ("arctan", x.arctan().unwrap(), f64::atan),
        ("sinh", x.sinh().unwrap(), f64::sinh),
        ("cosh", x.cosh().unwrap(), f64::cosh),
        ("arcsinh", x.arcsinh().unwrap(), f64::asinh),
        ("floor", x.floor().unwrap(), f64::floor),
        ("ceil", x.ceil().unwrap(), f64::ceil),
        ("square", x.square().unwrap(), |a| a * a),
        ("spacing", x.spacing().unwrap(), spacing),
        ("real", x.real().unwrap(), |a| a),
        ("imag", x.imag().unwrap(), |_| 0.0),
        ("angle", x.angle().unwrap(), |a| if a < 0.0 { std::f64::consts::PI } else { 0.0 }),
    ];
    for (name, got, f) in cases {
        let want: Vec<f64> = v.iter().map(|&a| f(a)).collect();
        let g = f64s(&got);
        for (i, (a, b)) in g.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-13 * (1.0 + b.abs()), "{}[{}]: {} vs {}", name, i, a, b);
        }
        assert_eq!(got.chunks(), vec![vec![5, 5, 3]], "{}", name);
    }
    // functions with no std equivalent: NumPy's values
    let y = Array::from_slice(&[0.0, 0.5, 1.0, -2.0, 3.5], &[5], &[2]).unwrap();
    close(&f64s(&y.i0().unwrap()),
          &[1.0, 1.0634833707413234, 1.2660658777520082, 2.279585302336067, 7.3782034322254795]);
    let s = Array::from_slice(&[0.0, 0.5, -1.5, 0.25], &[4], &[3]).unwrap();
    close(&f64s(&s.sinc().unwrap()), &[1.0, std::f64::consts::FRAC_2_PI, -0.2122065907891938, 0.9003163161571062]);
    // predicates, on nan/inf/-0.0
    let p = Array::from_slice(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 2.0], &[5], &[2]).unwrap();
    assert_eq!(bools(&p.isnan().unwrap()), vec![true, false, false, false, false]);
    assert_eq!(bools(&p.isinf().unwrap()), vec![false, true, true, false, false]);
    assert_eq!(bools(&p.isfinite().unwrap()), vec![false, false, false, true, true]);
    assert_eq!(bools(&p.isposinf().unwrap()), vec![false, true, false, false, false]);
    assert_eq!(bools(&p.isneginf().unwrap()), vec![false, false, true, false, false]);
    assert_eq!(bools(&p.signbit().unwrap()), vec![false, false, true, true, false]);
    assert_eq!(bools(&p.isreal().unwrap()), vec![true; 5]);
    assert_eq!(bools(&p.iscomplex().unwrap()), vec![false; 5]);
    // float32 keeps its dtype
    let f = Array::from_slice(&[8.0f32, -27.0, 0.125], &[3], &[2]).unwrap();
    let c = f.cbrt().unwrap();
    assert_eq!(c.dtype(), DType::Float32);
    assert_eq!(c.compute_vec::<f32>(&ctx()).unwrap(), vec![2.0, -3.0, 0.5]);
    assert_eq!(f.spacing().unwrap().compute_vec::<f32>(&ctx()).unwrap()[2], 0.125f32 * f32::EPSILON);
    // integers: bitwise_not/invert, reciprocal truncates, sinc gives float64
    let i = Array::from_slice(&[0i32, 1, -7, 100], &[4], &[3]).unwrap();
    assert_eq!(i.bitwise_not().unwrap().compute_vec::<i32>(&ctx()).unwrap(), vec![-1, -2, 6, -101]);
    assert_eq!(i.invert().unwrap().compute_vec::<i32>(&ctx()).unwrap(), vec![-1, -2, 6, -101]);
    let r = Array::from_slice(&[1i64, 2, -1, 3], &[4], &[2]).unwrap();
    assert_eq!(i64s(&r.reciprocal().unwrap()), vec![1, 0, -1, 0]);
    assert_eq!(i.sinc().unwrap().dtype(), DType::Float64);
    // 0-d, empty and size-1
    let z = Array::from_slice(&[27.0f64], &[], &[]).unwrap();
    let zc = z.cbrt().unwrap();
    assert_eq!(zc.shape(), Vec::<i64>::new());
    close(&f64s(&zc), &[3.0]);
    let e = Array::from_slice::<f64>(&[], &[0], &[4]).unwrap();
    assert_eq!(f64s(&e.exp2().unwrap()), Vec::<f64>::new());
    assert_eq!(e.exp2().unwrap().shape(), vec![0]);
    let one = Array::from_slice(&[-4.0f64], &[1], &[1]).unwrap();
    close(&f64s(&one.fabs().unwrap()), &[4.0]);
    // a string or unsupported dtype is refused with CA_ETYPE: fabs of complex-free bitwise op on floats
    let err = x.bitwise_not().unwrap_err();
    assert_eq!(err.code(), "CA_ETYPE", "{}", err);
}

#[test]
fn named_binary_functions_match_loops() {
    let a = vec![1.5, -2.0, f64::NAN, 3.0, -0.5, 7.25, 0.0];
    let b = vec![-0.5, f64::NAN, 2.0, 4.0, 2.5, -3.0, -1.0];
    let x = Array::from_slice(&a, &[7], &[3]).unwrap();
    let y = Array::from_slice(&b, &[7], &[4]).unwrap();
    type F = fn(f64, f64) -> f64;
    let logaddexp: F = |p, q| {
        let m = p.max(q);
        m + ((p - m).exp() + (q - m).exp()).ln()
    };
    let logaddexp2: F = |p, q| {
        let m = p.max(q);
        m + ((p - m).exp2() + (q - m).exp2()).log2()
    };
    let fmax: F = |p, q| if p.is_nan() { q } else if q.is_nan() || p >= q { p } else { q };
    let fmin: F = |p, q| if p.is_nan() { q } else if q.is_nan() || p <= q { p } else { q };
    let maximum: F = |p, q| if p.is_nan() || q.is_nan() { f64::NAN } else { p.max(q) };
    let cases: Vec<(&str, Array, F)> = vec![
        ("hypot", x.hypot(&y).unwrap(), f64::hypot),
        ("fmax", x.fmax(&y).unwrap(), fmax),
        ("fmin", x.fmin(&y).unwrap(), fmin),
        ("maximum", x.maximum(&y).unwrap(), maximum),
        ("fmod", x.fmod(&y).unwrap(), |p, q| p % q),
        ("copysign", x.copysign(&y).unwrap(), f64::copysign),
        ("arctan2", x.arctan2(&y).unwrap(), f64::atan2),
        ("power", x.power(&y).unwrap(), f64::powf),
        ("float_power", x.float_power(&y).unwrap(), f64::powf),
        ("logaddexp", x.logaddexp(&y).unwrap(), logaddexp),
        ("logaddexp2", x.logaddexp2(&y).unwrap(), logaddexp2),
    ];
    for (name, got, f) in cases {
        let want: Vec<f64> = a.iter().zip(&b).map(|(&p, &q)| f(p, q)).collect();
        let g = f64s(&got);
        for (i, (u, w)) in g.iter().zip(&want).enumerate() {
            assert!(same(*u, *w) || (u - w).abs() <= 1e-14 * (1.0 + w.abs()), "{}[{}]: {} vs {}", name, i, u, w);
        }
        assert_eq!(got.chunks(), vec![vec![3, 1, 2, 1]], "{} keeps the unified chunks", name);
    }
    // nextafter: one ulp toward the other value
    let n = f64s(&x.nextafter(&y).unwrap());
    assert_eq!(n[0], f64::from_bits(1.5f64.to_bits() - 1));
    assert_eq!(n[3], f64::from_bits(3.0f64.to_bits() + 1));
    assert!(n[1].is_nan() && n[2].is_nan());
    // ldexp with int32 exponents, frexp and modf (NumPy's values)
    let m = Array::from_slice(&[0.5, -0.75, 0.0, 0.8], &[4], &[3]).unwrap();
    let ex = Array::from_slice(&[4i32, 2, 0, -3], &[4], &[2]).unwrap();
    close(&f64s(&m.ldexp(&ex).unwrap()), &[8.0, -3.0, 0.0, 0.1]);
    let fr = Array::from_slice(&[8.0, -3.0, 0.0, 0.1], &[4], &[3]).unwrap();
    let (mant, expo) = fr.frexp().unwrap();
    close(&f64s(&mant), &[0.5, -0.75, 0.0, 0.8]);
    assert_eq!(expo.compute_vec::<i32>(&ctx()).unwrap(), vec![4, 2, 0, -3]);
    let (frac, int) = Array::from_slice(&[-2.5, 3.25, 0.0], &[3], &[2]).unwrap().modf().unwrap();
    close(&f64s(&frac), &[-0.5, 0.25, 0.0]);
    close(&f64s(&int), &[-2.0, 3.0, 0.0]);
    // integers: divmod (floor semantics), fmod (sign of the dividend), shifts, float_power gives float64
    let p = Array::from_slice(&[7i64, -7, 7, -7, 0], &[5], &[2]).unwrap();
    let q = Array::from_slice(&[2i64, 2, -2, -2, 3], &[5], &[3]).unwrap();
    let (d, r) = p.divmod(&q).unwrap();
    assert_eq!(i64s(&d), vec![3, -4, -4, 3, 0]);
    assert_eq!(i64s(&r), vec![1, 1, -1, -1, 0]);
    assert_eq!(i64s(&p.fmod(&q).unwrap()), vec![1, -1, 1, -1, 0]);
    let sh = Array::from_slice(&[1i64, 2, 3, 70, -1], &[5], &[2]).unwrap();
    assert_eq!(i64s(&p.left_shift(&sh).unwrap()), vec![14, -28, 56, 0, 0]);
    assert_eq!(i64s(&p.right_shift(&sh).unwrap()), vec![3, -2, 0, -1, 0]);
    let fp = p.float_power(&q).unwrap();
    assert_eq!(fp.dtype(), DType::Float64);
    close(&f64s(&fp), &[49.0, 49.0, 1.0 / 49.0, 1.0 / 49.0, 0.0]);
    assert_eq!(i64s(&p.bitwise_and(&q).unwrap()), vec![2, 0, 6, -8, 0]);
    assert_eq!(bools(&p.greater_equal(&q).unwrap()), vec![true, false, true, false, false]);
    // float32 stays float32; 0-d broadcasts; empty stays empty
    let f = Array::from_slice(&[3.0f32, 5.0], &[2], &[1]).unwrap();
    let g = Array::from_slice(&[4.0f32], &[], &[]).unwrap();
    let h = f.hypot(&g).unwrap();
    assert_eq!(h.dtype(), DType::Float32);
    assert_eq!(h.compute_vec::<f32>(&ctx()).unwrap(), vec![5.0, 41f32.sqrt()]);
    let e = Array::from_slice::<f64>(&[], &[0, 3], &[2, 2]).unwrap();
    assert_eq!(e.fmax(&Array::from_slice(&[1.0, 2.0, 3.0], &[3], &[3]).unwrap()).unwrap().shape(), vec![0, 3]);
    // shapes that do not broadcast: InvalidArgument
    let err = x.hypot(&Array::from_slice(&[1.0, 2.0], &[2], &[2]).unwrap()).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
}

#[test]
fn isclose_allclose_nan_to_num() {
    let a = Array::from_slice(&[1.0, 1e10, f64::NAN, f64::INFINITY, 1.0, 0.0], &[6], &[4]).unwrap();
    let b = Array::from_slice(&[1.0 + 1e-6, 1.00001e10, f64::NAN, f64::INFINITY, 1.1, 1e-9], &[6], &[3]).unwrap();
    // np.isclose(a, b) and equal_nan=True
    assert_eq!(bools(&a.isclose(&b, 1e-5, 1e-8, false).unwrap()), vec![true, true, false, true, false, true]);
    assert_eq!(bools(&a.isclose(&b, 1e-5, 1e-8, true).unwrap()), vec![true, true, true, true, false, true]);
    assert_eq!(bools(&a.allclose(&b, 1e-5, 1e-8, true).unwrap()), vec![false]);
    assert_eq!(bools(&a.allclose(&a, 1e-5, 1e-8, true).unwrap()), vec![true]);
    assert_eq!(a.allclose(&b, 1e-5, 1e-8, false).unwrap().shape(), Vec::<i64>::new());
    // integer b is taken as float64; 0-d against 1-d broadcasts
    let i = Array::from_slice(&[3i64], &[], &[]).unwrap();
    let f = Array::from_slice(&[3.0, 3.00001, 2.0], &[3], &[2]).unwrap();
    assert_eq!(bools(&f.isclose(&i, 1e-5, 1e-8, false).unwrap()), vec![true, true, false]);
    // nan_to_num: defaults and given values, float64 and float32; ints unchanged
    let n = Array::from_slice(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.5], &[4], &[3]).unwrap();
    close(&f64s(&n.nan_to_num(0.0, None, None).unwrap()), &[0.0, f64::MAX, f64::MIN, -1.5]);
    close(&f64s(&n.nan_to_num(-9.0, Some(1e3), Some(-1e3)).unwrap()), &[-9.0, 1e3, -1e3, -1.5]);
    let n32 = Array::from_slice(&[f32::NAN, f32::INFINITY, 2.0], &[3], &[2]).unwrap();
    assert_eq!(n32.nan_to_num(0.0, None, None).unwrap().compute_vec::<f32>(&ctx()).unwrap(), vec![0.0, f32::MAX, 2.0]);
    let ints = Array::from_slice(&[1i32, -2], &[2], &[1]).unwrap();
    assert_eq!(ints.nan_to_num(5.0, None, None).unwrap().compute_vec::<i32>(&ctx()).unwrap(), vec![1, -2]);
    // the unary op form (CA_OP_NAN_TO_NUM) gives the defaults
    close(&f64s(&n.unary(UnaryOp::NanToNum).unwrap()), &[0.0, f64::MAX, f64::MIN, -1.5]);
}

/// NumPy's quantile of one row with a method (the reference loop).
fn quantile_loop(row: &[f64], q: f64, method: QuantileMethod, skip_nan: bool) -> f64 {
    let mut v: Vec<f64> = row.iter().copied().filter(|x| !(skip_nan && x.is_nan())).collect();
    if v.is_empty() || v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    match method {
        QuantileMethod::Linear => v[lo] + (v[hi] - v[lo]) * frac,
        QuantileMethod::Lower => v[lo],
        QuantileMethod::Higher => v[hi],
        QuantileMethod::Midpoint => (v[lo] + v[hi]) / 2.0,
        QuantileMethod::Nearest => {
            let k = if frac == 0.5 { if lo % 2 == 0 { lo } else { hi } } else { pos.round() as usize };
            v[k]
        }
    }
}

#[test]
fn median_quantile_percentile_match_loops() {
    let (r, c) = (13usize, 17usize);
    let mut v = data(r * c);
    v[5] = f64::NAN; // row 0 has a nan
    let x = Array::from_slice(&v, &[r as i64, c as i64], &[5, 4]).unwrap();
    let rows: Vec<Vec<f64>> = (0..r).map(|i| v[i * c..(i + 1) * c].to_vec()).collect();
    let cols: Vec<Vec<f64>> = (0..c).map(|j| (0..r).map(|i| v[i * c + j]).collect()).collect();
    // median along axis 1: only that axis is rechunked
    let m = x.median(&[1], false).unwrap();
    assert_eq!(m.chunks(), vec![vec![5, 5, 3]]);
    let want: Vec<f64> = rows.iter().map(|row| quantile_loop(row, 0.5, QuantileMethod::Linear, false)).collect();
    close(&f64s(&m), &want);
    assert!(f64s(&m)[0].is_nan());
    let nm = x.nanmedian(&[1], true).unwrap();
    assert_eq!(nm.shape(), vec![13, 1]);
    let want: Vec<f64> = rows.iter().map(|row| quantile_loop(row, 0.5, QuantileMethod::Linear, true)).collect();
    close(&f64s(&nm), &want);
    // along axis 0 with every method, and several q (the result's first axis is q's)
    for method in [QuantileMethod::Linear, QuantileMethod::Lower, QuantileMethod::Higher, QuantileMethod::Nearest,
                   QuantileMethod::Midpoint] {
        let o = QuantileOptions { method, skip_nan: true, ..Default::default() };
        let qs = [0.0, 0.1, 0.37, 0.5, 0.95, 1.0];
        let got = x.quantiles(&qs, &[0], &o).unwrap();
        assert_eq!(got.shape(), vec![6, 17]);
        assert_eq!(got.chunks()[1], vec![4, 4, 4, 4, 1], "{:?}", method);
        let want: Vec<f64> =
            qs.iter().flat_map(|&q| cols.iter().map(move |col| quantile_loop(col, q, method, true))).collect();
        close(&f64s(&got), &want);
        let p = x.percentile(37.0, &[0], &o).unwrap();
        close(&f64s(&p), &cols.iter().map(|col| quantile_loop(col, 0.37, method, true)).collect::<Vec<_>>());
    }
    let ps = x.percentiles(&[25.0, 75.0], &[], &QuantileOptions { skip_nan: true, ..Default::default() }).unwrap();
    let all: Vec<f64> = v.clone();
    close(&f64s(&ps), &[quantile_loop(&all, 0.25, QuantileMethod::Linear, true),
                        quantile_loop(&all, 0.75, QuantileMethod::Linear, true)]);
    // NumPy's values: percentile(arange(10), [10, 50, 95], method='nearest') and a midpoint of ints
    let ar = Array::arange(0.0, 10.0, 1.0, 3, DType::Float64).unwrap();
    let o = QuantileOptions { method: QuantileMethod::Nearest, ..Default::default() };
    close(&f64s(&ar.percentiles(&[10.0, 50.0, 95.0], &[], &o).unwrap()), &[1.0, 4.0, 9.0]);
    let ints = Array::from_slice(&[4i64, 1, 3, 2], &[4], &[3]).unwrap();
    let mid = ints.quantile(0.4, &[], &QuantileOptions { method: QuantileMethod::Midpoint, ..Default::default() })
        .unwrap();
    assert_eq!(mid.dtype(), DType::Float64);
    close(&f64s(&mid), &[2.5]);
    // lower/higher keep an integer dtype, exactly
    let big = Array::from_slice(&[i64::MAX, 1, i64::MAX - 1], &[3], &[2]).unwrap();
    let lo = big.quantile(0.5, &[], &QuantileOptions { method: QuantileMethod::Lower, ..Default::default() }).unwrap();
    assert_eq!(lo.dtype(), DType::Int64);
    assert_eq!(i64s(&lo), vec![i64::MAX - 1]);
    // median keeps float32; int gives float64; bool with median gives float64
    let f = Array::from_slice(&[3.0f32, 1.0, 2.0, 10.0], &[2, 2], &[1, 1]).unwrap();
    let fm = f.median(&[], false).unwrap();
    assert_eq!(fm.dtype(), DType::Float32);
    assert_eq!(fm.compute_vec::<f32>(&ctx()).unwrap(), vec![2.5]);
    assert_eq!(ints.median(&[0], false).unwrap().dtype(), DType::Float64);
    close(&f64s(&ints.median(&[0], false).unwrap()), &[2.5]);
    // size-1 and empty rows (NumPy gives nan for an empty row)
    let one = Array::from_slice(&[7.0], &[1], &[1]).unwrap();
    close(&f64s(&one.median(&[], false).unwrap()), &[7.0]);
    let e = Array::from_slice::<f64>(&[], &[3, 0], &[2, 1]).unwrap();
    let em = e.median(&[1], false).unwrap();
    assert_eq!(em.shape(), vec![3]);
    close(&f64s(&em), &[f64::NAN; 3]);
    // errors: 0-d input, q outside [0, 1], an axis out of range
    let z = Array::from_slice(&[1.0], &[], &[]).unwrap();
    assert_eq!(z.median(&[], false).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(x.quantile(1.5, &[], &QuantileOptions::default()).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(x.median(&[2], false).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn like_indices_meshgrid_broadcast() {
    let x = Array::from_slice(&data(12), &[3, 4], &[2, 3]).unwrap();
    let z = x.zeros_like(&LikeOptions::default()).unwrap();
    assert_eq!((z.shape(), z.chunks(), z.dtype()), (vec![3, 4], vec![vec![2, 1], vec![3, 1]], DType::Float64));
    close(&f64s(&z), &[0.0; 12]);
    let o = x.ones_like(&LikeOptions { dtype: Some(DType::Int32), ..Default::default() }).unwrap();
    assert_eq!(o.compute_vec::<i32>(&ctx()).unwrap(), vec![1; 12]);
    // full_like truncates into an integer dtype; a new shape with explicit chunks
    let opts = LikeOptions { dtype: Some(DType::Int64), shape: Some(vec![5]), chunks: Some(vec![vec![2, 3]]), limit: 0 };
    let f = x.full_like(2.7, &opts).unwrap();
    assert_eq!((f.shape(), f.chunks()), (vec![5], vec![vec![2, 3]]));
    assert_eq!(i64s(&f), vec![2; 5]);
    let e = x.empty_like(&LikeOptions { shape: Some(vec![0, 2]), ..Default::default() }).unwrap();
    assert_eq!(e.shape(), vec![0, 2]);
    let bad = x.zeros_like(&LikeOptions { shape: Some(vec![5]), chunks: Some(vec![vec![2, 2]]), ..Default::default() });
    assert_eq!(bad.unwrap_err().status(), Status::InvalidArgument);
    // indices: dask's chunks ((1, 1), (2, 1), (3, 1))
    let ind = Array::indices(&[3, 4], &[2, 3], DType::Int64).unwrap();
    assert_eq!(ind.chunks(), vec![vec![1, 1], vec![2, 1], vec![3, 1]]);
    let want: Vec<i64> = (0..2).flat_map(|c| (0..3).flat_map(move |i| (0..4).map(move |j| if c == 0 { i } else { j })))
        .collect();
    assert_eq!(i64s(&ind), want);
    let i0 = Array::indices(&[], &[], DType::Int32).unwrap();
    assert_eq!(i0.shape(), vec![0]);
    // meshgrid: dask's chunks
    let a = Array::arange(0.0, 3.0, 1.0, 2, DType::Int64).unwrap();
    let b = Array::arange(10.0, 14.0, 1.0, 3, DType::Int64).unwrap();
    let g = Array::meshgrid(&[&a, &b], Indexing::Xy, false).unwrap();
    assert_eq!(g.len(), 2);
    assert_eq!((g[0].shape(), g[0].chunks()), (vec![4, 3], vec![vec![3, 1], vec![2, 1]]));
    assert_eq!(i64s(&g[0]), (0..4).flat_map(|_| 0..3).collect::<Vec<i64>>());
    assert_eq!(i64s(&g[1]), (10..14).flat_map(|v| [v; 3]).collect::<Vec<i64>>());
    let s = Array::meshgrid(&[&a, &b], Indexing::Ij, true).unwrap();
    assert_eq!((s[0].shape(), s[0].chunks()), (vec![3, 1], vec![vec![2, 1], vec![1]]));
    assert_eq!((s[1].shape(), s[1].chunks()), (vec![1, 4], vec![vec![1], vec![3, 1]]));
    assert!(Array::meshgrid(&[], Indexing::Xy, false).unwrap().is_empty());
    // broadcast_arrays: (3, 1) and (4,) -> (3, 4) with unified chunks
    let p = Array::from_slice(&[1.0, 2.0, 3.0], &[3, 1], &[2, 1]).unwrap();
    let q = Array::from_slice(&[10.0, 20.0, 30.0, 40.0], &[4], &[3]).unwrap();
    let bc = Array::broadcast_arrays(&[&p, &q]).unwrap();
    for t in &bc {
        assert_eq!((t.shape(), t.chunks()), (vec![3, 4], vec![vec![2, 1], vec![3, 1]]));
    }
    close(&f64s(&bc[0]), &[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0]);
    close(&f64s(&bc[1]), &[10.0, 20.0, 30.0, 40.0].repeat(3));
    let err = Array::broadcast_arrays(&[&q, &Array::from_slice(&[1.0, 2.0], &[2], &[1]).unwrap()]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
}

#[test]
fn triangles_and_diagonal() {
    let (r, c) = (13usize, 17usize);
    let v = data(r * c);
    let x = Array::from_slice(&v, &[r as i64, c as i64], &[5, 4]).unwrap();
    for k in [-3i64, 0, 2] {
        let lo = f64s(&x.tril(k).unwrap());
        let up = f64s(&x.triu(k).unwrap());
        for i in 0..r {
            for j in 0..c {
                let keep_lo = (j as i64) - (i as i64) <= k;
                let keep_up = (j as i64) - (i as i64) >= k;
                assert_eq!(lo[i * c + j], if keep_lo { v[i * c + j] } else { 0.0 });
                assert_eq!(up[i * c + j], if keep_up { v[i * c + j] } else { 0.0 });
            }
        }
    }
    assert_eq!(x.tril(0).unwrap().chunks(), x.chunks());
    let i = Array::from_slice(&(0..12).collect::<Vec<i32>>(), &[3, 4], &[2, 2]).unwrap();
    assert_eq!(i.triu(1).unwrap().compute_vec::<i32>(&ctx()).unwrap(), vec![0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11]);
    assert_eq!(Array::from_slice(&[1.0, 2.0], &[2], &[1]).unwrap().tril(0).unwrap_err().status(),
               Status::InvalidArgument);
    // tri indices: NumPy's values
    let (rr, cc) = Array::tril_indices(4, 0, None, &[2, 2]).unwrap();
    assert_eq!(i64s(&rr), vec![0, 1, 1, 2, 2, 2, 3, 3, 3, 3]);
    assert_eq!(i64s(&cc), vec![0, 0, 1, 0, 1, 2, 0, 1, 2, 3]);
    let (rr, cc) = Array::triu_indices(3, 1, Some(5), &[2, 3]).unwrap();
    assert_eq!(i64s(&rr), vec![0, 0, 0, 0, 1, 1, 1, 2, 2]);
    assert_eq!(i64s(&cc), vec![1, 2, 3, 4, 2, 3, 4, 3, 4]);
    let (rr, cc) = x.tril_indices_from(-10).unwrap();
    let want: Vec<(i64, i64)> = (0..13).flat_map(|a| (0..17).map(move |b| (a, b))).filter(|(a, b)| b - a <= -10).collect();
    assert_eq!(i64s(&rr), want.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(i64s(&cc), want.iter().map(|p| p.1).collect::<Vec<_>>());
    let (rr, _) = x.triu_indices_from(100).unwrap();
    assert_eq!(i64s(&rr), Vec::<i64>::new());
    // diagonal: dask's chunks
    let d = x.diagonal(1, 0, 1).unwrap();
    assert_eq!(d.chunks(), vec![vec![3, 2, 2, 3, 1, 2]]);
    close(&f64s(&d), &(0..13).map(|i| v[i * c + i + 1]).collect::<Vec<_>>());
    let d = x.diagonal(-2, 0, 1).unwrap();
    assert_eq!(d.chunks(), vec![vec![3, 1, 4, 3]]);
    close(&f64s(&d), &(2..13).map(|i| v[i * c + i - 2]).collect::<Vec<_>>());
    let d = x.diagonal(0, 1, 0).unwrap();
    close(&f64s(&d), &(0..13).map(|i| v[i * c + i]).collect::<Vec<_>>());
    assert_eq!(x.diagonal(0, 0, 0).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn sort_unique_and_search() {
    let v = vec![3.0, f64::NAN, -1.0, 3.0, 2.5, -1.0, 0.0, 7.0, 3.0];
    let x = Array::from_slice(&v, &[9], &[4]).unwrap();
    let s = x.sort(0, false).unwrap();
    assert_eq!(s.chunks(), vec![vec![9]]);
    close(&f64s(&s), &[-1.0, -1.0, 0.0, 2.5, 3.0, 3.0, 3.0, 7.0, f64::NAN]);
    close(&f64s(&x.sort(0, true).unwrap()), &[f64::NAN, 7.0, 3.0, 3.0, 3.0, 2.5, 0.0, -1.0, -1.0]);
    assert_eq!(i64s(&x.argsort(0, false).unwrap()), vec![2, 5, 6, 4, 0, 3, 8, 7, 1]);
    assert_eq!(i64s(&x.argsort(-1, true).unwrap()), vec![1, 7, 0, 3, 8, 4, 6, 2, 5]);
    // 2-d int32 sort along axis 0 keeps axis 1's chunks
    let m = Array::from_slice(&[5i32, 1, 4, 2, 8, 0, 9, 3, 7], &[3, 3], &[2, 2]).unwrap();
    let ms = m.sort(0, false).unwrap();
    assert_eq!(ms.chunks(), vec![vec![3], vec![2, 1]]);
    assert_eq!(ms.compute_vec::<i32>(&ctx()).unwrap(), vec![2, 1, 0, 5, 3, 4, 9, 8, 7]);
    // unique with index, inverse and counts vs a loop
    let iv: Vec<i64> = (0..40).map(|i| (i * 7 % 11) as i64 - 3).collect();
    let xi = Array::from_slice(&iv, &[5, 8], &[2, 3]).unwrap();
    let u = xi.unique_with(UniqueOptions { index: true, inverse: true, counts: true, distinct_nan: false }).unwrap();
    let mut vals = iv.clone();
    vals.sort();
    vals.dedup();
    assert_eq!(i64s(&u.values), vals);
    assert_eq!(u.values.chunks(), vec![vec![-1]], "size unknown until computed");
    let first: Vec<i64> = vals.iter().map(|w| iv.iter().position(|y| y == w).unwrap() as i64).collect();
    assert_eq!(i64s(u.index.as_ref().unwrap()), first);
    let inv: Vec<i64> = iv.iter().map(|w| vals.binary_search(w).unwrap() as i64).collect();
    assert_eq!(i64s(u.inverse.as_ref().unwrap()), inv);
    let counts: Vec<i64> = vals.iter().map(|w| iv.iter().filter(|y| *y == w).count() as i64).collect();
    assert_eq!(i64s(u.counts.as_ref().unwrap()), counts);
    assert!(xi.unique_with(UniqueOptions::default()).unwrap().index.is_none());
    // NaNs collapse (NumPy) or stay distinct (array API)
    let n = Array::from_slice(&[f64::NAN, 1.0, f64::NAN], &[3], &[2]).unwrap();
    assert_eq!(f64s(&n.unique().unwrap()).len(), 2);
    let d = n.unique_with(UniqueOptions { distinct_nan: true, ..Default::default() }).unwrap();
    assert_eq!(f64s(&d.values).len(), 3);
    assert_eq!(i64s(&Array::from_slice::<i64>(&[], &[0], &[1]).unwrap().unique().unwrap()), Vec::<i64>::new());
    // isin, union1d
    let t = Array::from_slice(&[3i64, -1, 100], &[3], &[2]).unwrap();
    let isin = xi.isin(&t, false).unwrap();
    assert_eq!(isin.chunks(), xi.chunks());
    assert_eq!(bools(&isin), iv.iter().map(|w| [3, -1, 100].contains(w)).collect::<Vec<_>>());
    assert_eq!(bools(&xi.isin(&t, true).unwrap()), iv.iter().map(|w| ![3, -1, 100].contains(w)).collect::<Vec<_>>());
    let mut un: Vec<i64> = iv.iter().chain([100i64, -50].iter()).copied().collect();
    un.sort();
    un.dedup();
    let other = Array::from_slice(&[100i64, -50, 3], &[3], &[1]).unwrap();
    assert_eq!(i64s(&xi.union1d(&other).unwrap()), un);
    // searchsorted and digitize vs loops, v 2-d with ragged chunks
    let sorted = Array::from_slice(&[-2.0, 0.0, 0.0, 1.5, 4.0], &[5], &[2]).unwrap();
    let sv = [-2.0, 0.0, 0.0, 1.5, 4.0];
    let q = vec![-3.0, 0.0, 1.0, 4.0, 9.0, 1.5];
    let qa = Array::from_slice(&q, &[2, 3], &[1, 2]).unwrap();
    let left = sorted.searchsorted(&qa, Side::Left, None).unwrap();
    assert_eq!(left.chunks(), qa.chunks());
    assert_eq!(i64s(&left), q.iter().map(|w| sv.iter().filter(|s| *s < w).count() as i64).collect::<Vec<_>>());
    let right = sorted.searchsorted(&qa, Side::Right, None).unwrap();
    assert_eq!(i64s(&right), q.iter().map(|w| sv.iter().filter(|s| *s <= w).count() as i64).collect::<Vec<_>>());
    // a sorter: the indices that sort an unsorted a
    let un_a = Array::from_slice(&[4.0, -2.0, 1.5], &[3], &[2]).unwrap();
    let sorter = un_a.argsort(0, false).unwrap();
    let pos = un_a.searchsorted(&Array::from_slice(&[0.0, 5.0], &[2], &[1]).unwrap(), Side::Left, Some(&sorter)).unwrap();
    assert_eq!(i64s(&pos), vec![1, 3]);
    let bins = Array::from_slice(&[0.0, 1.0, 2.5], &[3], &[2]).unwrap();
    let dg = qa.digitize(&bins, false).unwrap();
    assert_eq!(i64s(&dg), q.iter().map(|w| [0.0, 1.0, 2.5].iter().filter(|b| *b <= w).count() as i64).collect::<Vec<_>>());
    let dr = qa.digitize(&bins, true).unwrap();
    assert_eq!(i64s(&dr), q.iter().map(|w| [0.0, 1.0, 2.5].iter().filter(|b| *b < w).count() as i64).collect::<Vec<_>>());
    let unsorted_bins = Array::from_slice(&[0.0, 2.0, 1.0], &[3], &[3]).unwrap();
    let err = qa.digitize(&unsorted_bins, false).unwrap().compute(&ctx()).unwrap_err();
    assert!(err.message().contains("monotonically"), "{}", err);
    // nonzero, flatnonzero, argwhere vs loops (int32 2-d with ragged chunks)
    let w: Vec<i32> = (0..20).map(|i| if i % 3 == 0 || i == 7 { 0 } else { i }).collect();
    let wa = Array::from_slice(&w, &[4, 5], &[3, 2]).unwrap();
    let nz: Vec<(i64, i64)> = (0..4).flat_map(|i| (0..5).map(move |j| (i, j))).filter(|(i, j)| w[(i * 5 + j) as usize] != 0)
        .collect();
    let parts = wa.nonzero().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(i64s(&parts[0]), nz.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(i64s(&parts[1]), nz.iter().map(|p| p.1).collect::<Vec<_>>());
    assert_eq!(i64s(&wa.flatnonzero().unwrap()), nz.iter().map(|(i, j)| i * 5 + j).collect::<Vec<_>>());
    let aw = wa.argwhere().unwrap();
    assert_eq!(aw.shape()[1], 2);
    assert_eq!(i64s(&aw), nz.iter().flat_map(|(i, j)| [*i, *j]).collect::<Vec<_>>());
    let z0 = Array::from_slice(&[5.0], &[], &[]).unwrap();
    assert_eq!(z0.nonzero().unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(i64s(&z0.flatnonzero().unwrap()), vec![0]);
    // a string-free unsupported case: sorting along an axis out of range
    assert_eq!(x.sort(1, false).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn roll_rot90_rollaxis() {
    let (r, c) = (13usize, 17usize);
    let v = data(r * c);
    let x = Array::from_slice(&v, &[r as i64, c as i64], &[5, 4]).unwrap();
    let at = |i: usize, j: usize| v[i * c + j];
    // roll along axis 1 by 3 and along both axes
    let y = x.roll(&[3], Some(&[1])).unwrap();
    assert_eq!(y.chunks(), vec![vec![5, 5, 3], vec![2, 1, 4, 4, 4, 2]]);
    close(&f64s(&y), &(0..r).flat_map(|i| (0..c).map(move |j| at(i, (j + c - 3) % c))).collect::<Vec<_>>());
    let y = x.roll(&[-2, 20], Some(&[0, 1])).unwrap();
    close(&f64s(&y), &(0..r).flat_map(|i| (0..c).map(move |j| at((i + 2) % r, (j + c - 3) % c))).collect::<Vec<_>>());
    // flattened roll
    let y = x.roll(&[5], None).unwrap();
    assert_eq!(y.shape(), vec![13, 17]);
    let n = r * c;
    close(&f64s(&y), &(0..n).map(|k| v[(k + n - 5) % n]).collect::<Vec<_>>());
    assert_eq!(x.roll(&[1, 2], Some(&[0])).unwrap_err().status(), Status::InvalidArgument);
    // rot90: dask's chunks, values by loops
    let y = x.rot90(1, 0, 1).unwrap();
    assert_eq!(y.chunks(), vec![vec![1, 4, 4, 4, 4], vec![5, 5, 3]]);
    close(&f64s(&y), &(0..c).flat_map(|i| (0..r).map(move |j| at(j, c - 1 - i))).collect::<Vec<_>>());
    let y = x.rot90(2, 0, 1).unwrap();
    assert_eq!(y.chunks(), vec![vec![3, 5, 5], vec![1, 4, 4, 4, 4]]);
    close(&f64s(&y), &(0..r).flat_map(|i| (0..c).map(move |j| at(r - 1 - i, c - 1 - j))).collect::<Vec<_>>());
    let y = x.rot90(-1, 0, 1).unwrap();
    close(&f64s(&y), &(0..c).flat_map(|i| (0..r).map(move |j| at(r - 1 - j, i))).collect::<Vec<_>>());
    close(&f64s(&x.rot90(4, 0, 1).unwrap()), &v);
    assert_eq!(x.rot90(1, 0, 0).unwrap_err().status(), Status::InvalidArgument);
    // rollaxis on a 3-d int64 array: (2, 3, 4) -> (4, 2, 3)
    let t: Vec<i64> = (0..24).collect();
    let ta = Array::from_slice(&t, &[2, 3, 4], &[1, 2, 3]).unwrap();
    let y = ta.rollaxis(2, 0).unwrap();
    assert_eq!(y.shape(), vec![4, 2, 3]);
    assert_eq!(y.chunks(), vec![vec![3, 1], vec![1, 1], vec![2, 1]]);
    let want: Vec<i64> = (0..4).flat_map(|k| (0..2).flat_map(move |i| (0..3).map(move |j| i * 12 + j * 4 + k))).collect();
    assert_eq!(i64s(&y), want);
    assert_eq!(ta.rollaxis(3, 0).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn take_einsum_and_unknown_chunks() {
    let (r, c) = (7usize, 5usize);
    let v = data(r * c);
    let x = Array::from_slice(&v, &[r as i64, c as i64], &[3, 2]).unwrap();
    // take: unsorted, repeated and negative indices along each axis
    let t = x.take(&[4, -1, 0, 4], 0).unwrap();
    assert_eq!(t.shape(), vec![4, 5]);
    let rows = [4usize, 6, 0, 4];
    let vr = &v;
    close(&f64s(&t), &rows.iter().flat_map(|&i| (0..c).map(move |j| vr[i * c + j])).collect::<Vec<_>>());
    let t = x.take(&[2, 2, -5], 1).unwrap();
    close(&f64s(&t), &(0..r).flat_map(|i| [2usize, 2, 0].into_iter().map(move |j| vr[i * c + j])).collect::<Vec<_>>());
    assert_eq!(x.take(&[], 1).unwrap().shape(), vec![7, 0]);
    assert_eq!(x.take(&[5], 1).unwrap_err().status(), Status::InvalidArgument);
    // einsum against loops: matmul, trace-like diagonal, inner product, transpose
    let w = data(c * 3);
    let y = Array::from_slice(&w, &[c as i64, 3], &[2, 2]).unwrap();
    let mm = Array::einsum("ij,jk->ik", &[&x, &y], None).unwrap();
    assert_eq!(mm.shape(), vec![7, 3]);
    let mut want = Vec::new();
    for i in 0..r {
        for k in 0..3 {
            want.push((0..c).map(|j| v[i * c + j] * w[j * 3 + k]).sum::<f64>());
        }
    }
    close(&f64s(&mm), &want);
    let sq = Array::from_slice(&v[..25], &[5, 5], &[2, 3]).unwrap();
    close(&f64s(&Array::einsum("ii->i", &[&sq], None).unwrap()), &(0..5).map(|i| v[i * 5 + i]).collect::<Vec<_>>());
    let a = Array::from_slice(&[1i64, 2, 3], &[3], &[2]).unwrap();
    let dot = Array::einsum("i,i", &[&a, &a], None).unwrap();
    assert_eq!((dot.shape(), dot.dtype()), (Vec::<i64>::new(), DType::Int64));
    assert_eq!(i64s(&dot), vec![14]);
    close(&f64s(&Array::einsum("ij->ji", &[&x], Some(DType::Float64)).unwrap()),
          &(0..c).flat_map(|j| (0..r).map(move |i| vr[i * c + j])).collect::<Vec<_>>());
    assert_eq!(Array::einsum("ij,jk->ik", &[&x, &x], None).unwrap_err().status(), Status::InvalidArgument);
    // unknown chunk sizes: known again after compute_chunk_sizes
    let u = a.unique().unwrap();
    assert!(a.chunks_known() && !u.chunks_known());
    let k = u.compute_chunk_sizes(&ctx()).unwrap();
    assert!(k.chunks_known());
    assert_eq!(k.chunks(), vec![vec![3]]);
    let nz = x.flatnonzero().unwrap().compute_chunk_sizes(&ctx()).unwrap();
    assert_eq!(nz.chunks()[0].iter().sum::<i64>(), v.iter().filter(|&&e| e != 0.0).count() as i64);
}

/// insert, delete, choose, select, coarsen, bincount against NumPy 1.24's values and dask 2022.12's
/// chunks (ragged inputs, several dtypes, empty position lists) and their errors.
#[test]
fn insert_delete_choose_select_coarsen() {
    let a = Array::arange(0.0, 10.0, 1.0, 3, DType::Float64).unwrap();
    let m = Array::from_slice(&(0..12).collect::<Vec<i64>>(), &[3, 4], &[2, 3]).unwrap();
    let vals = Array::from_slice(&[100.0, 200.0, 300.0, 400.0], &[4], &[3]).unwrap();
    let idx = Array::from_slice(&[0i64, 2, 1, 3, -1], &[5], &[2]).unwrap();
    let ch: Vec<Array> = [1.0, 10.0, 100.0]
        .iter()
        .map(|s| Array::from_slice(&(0..5).map(|i| i as f64 * s).collect::<Vec<_>>(), &[5], &[3]).unwrap())
        .collect();
    let chr: Vec<&Array> = ch.iter().collect();
    let x = Array::from_slice(&(0..6).collect::<Vec<i64>>(), &[6], &[4]).unwrap();
    let c1 = x.binary_int(BinaryOp::Lt, 2).unwrap();
    let c2 = x.binary_int(BinaryOp::Gt, 3).unwrap();
    let x10 = x.binary_int(BinaryOp::Mul, 10).unwrap();

    // insert: np.insert(np.arange(10.), [2, 2, -1, 10], [100, 200, 300, 400])
    close(&f64s(&a.insert(&[2, 2, -1, 10], &vals, 0).unwrap()),
          &[0.0, 1.0, 100.0, 200.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 300.0, 9.0, 400.0]);
    // da.insert(arange(10, chunks=3), [2, 5, 10], values chunked (3,)): dask's chunks
    let v3 = Array::from_slice(&[100.0, 200.0, 300.0], &[3], &[3]).unwrap();
    let r = a.insert(&[2, 5, 10], &v3, 0).unwrap();
    assert_eq!(r.chunks(), vec![vec![2, 1, 1, 2, 1, 1, 3, 1, 1]]);
    close(&f64s(&r), &[0.0, 1.0, 100.0, 2.0, 3.0, 4.0, 200.0, 5.0, 6.0, 7.0, 8.0, 9.0, 300.0]);
    let col = Array::from_slice(&[-1i64, -2, -3], &[3, 1], &[2, 1]).unwrap();
    let r = m.insert(&[1], &col, 1).unwrap();
    assert_eq!(r.shape(), vec![3, 5]);
    assert_eq!(r.chunks(), vec![vec![2, 1], vec![1, 1, 2, 1]]);
    assert_eq!(i64s(&r), vec![0, -1, 1, 2, 3, 4, -2, 5, 6, 7, 8, -3, 9, 10, 11]);
    // float values into an int64 array: NumPy casts them to arr's dtype (unsafe cast, truncation)
    let fv = Array::from_slice(&[2.75, -1.5, 9.0], &[3, 1], &[3, 1]).unwrap();
    let r = m.insert(&[4], &fv, 1).unwrap();
    assert_eq!(r.dtype(), DType::Int64);
    assert_eq!(i64s(&r), vec![0, 1, 2, 3, 2, 4, 5, 6, 7, -1, 8, 9, 10, 11, 9]);
    close(&f64s(&a.insert(&[], &vals, 0).unwrap()), &(0..10).map(f64::from).collect::<Vec<_>>());
    let e = a.insert(&[11], &vals, 0).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("out of bounds"), "{}", e);

    // delete: np.delete(np.arange(10.), [0, 3, 3, -1]); dask's chunks for [0, 3, -1]
    close(&f64s(&a.delete(&[0, 3, 3, -1], 0).unwrap()), &[1.0, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(a.delete(&[0, 3, -1], 0).unwrap().chunks(), vec![vec![2, 2, 3]]);
    let d = m.delete(&[0, 2], 1).unwrap();
    assert_eq!(d.chunks(), vec![vec![2, 1], vec![1, 1]]);
    assert_eq!(i64s(&d), vec![1, 3, 5, 7, 9, 11]);
    close(&f64s(&a.delete(&[], 0).unwrap()), &(0..10).map(f64::from).collect::<Vec<_>>());
    let all: Vec<i64> = (0..10).collect();
    let none = a.delete(&all, 0).unwrap();
    assert_eq!(none.shape(), vec![0]);
    assert!(f64s(&none).is_empty());
    let e = a.delete(&[10], 0).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("out of bounds"), "{}", e);
    assert_eq!(a.delete(&[0], 1).unwrap_err().status(), Status::InvalidArgument);

    // choose: np.choose([0, 2, 1, 3, -1], [arange(5) * s for s in (1, 10, 100)], mode)
    let w = idx.choose(&chr, ChooseMode::Wrap).unwrap();
    assert_eq!(w.chunks(), vec![vec![2, 1, 1, 1]], "dask's broadcast chunks");
    close(&f64s(&w), &[0.0, 100.0, 20.0, 3.0, 400.0]);
    close(&f64s(&idx.choose(&chr, ChooseMode::Clip).unwrap()), &[0.0, 100.0, 20.0, 300.0, 4.0]);
    let err = idx.choose(&chr, ChooseMode::Raise).unwrap().compute(&ctx()).unwrap_err();
    assert!(err.message().contains("invalid entry"), "{}", err);
    let ok = Array::from_slice(&[2i64, 0, 1, 1, 0], &[5], &[3]).unwrap();
    close(&f64s(&ok.choose(&chr, ChooseMode::Raise).unwrap()), &[0.0, 1.0, 20.0, 30.0, 4.0]);
    // int32 choices keep their dtype; a bool index picks choice 0 or 1
    let i32c: Vec<Array> = (0..2)
        .map(|k| Array::from_slice(&(0..5).map(|i| i * 7 + k).collect::<Vec<i32>>(), &[5], &[2]).unwrap())
        .collect();
    let bidx = Array::from_slice(&[1u8, 0, 1, 1, 0], &[5], &[5]).unwrap().astype(DType::Bool).unwrap();
    let r = bidx.choose(&[&i32c[0], &i32c[1]], ChooseMode::Raise).unwrap();
    assert_eq!(r.dtype(), DType::Int32);
    assert_eq!(r.compute_vec::<i32>(&ctx()).unwrap(), vec![1, 7, 15, 22, 28]);
    assert_eq!(idx.choose(&[], ChooseMode::Raise).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(vals.choose(&chr, ChooseMode::Raise).unwrap_err().status(), Status::Type);

    // select: np.select([x < 2, x > 3], [x, 10 * x], default)
    let s = Array::select(&[&c1, &c2], &[&x, &x10], Scalar::Int(0)).unwrap();
    assert_eq!(s.dtype(), DType::Int64);
    assert_eq!(s.chunks(), vec![vec![4, 2]]);
    assert_eq!(i64s(&s), vec![0, 1, 0, 0, 40, 50]);
    let s = Array::select(&[&c1, &c2], &[&x, &x10], Scalar::Float(-1.5)).unwrap();
    assert_eq!(s.dtype(), DType::Float64);
    close(&f64s(&s), &[0.0, 1.0, -1.5, -1.5, 40.0, 50.0]);
    let e = Array::select(&[&x], &[&x], Scalar::Int(0)).unwrap_err();
    assert_eq!(e.status(), Status::Type);
    assert!(e.message().contains("condlist"), "{}", e);
    assert_eq!(Array::select(&[&c1], &[&x, &x10], Scalar::Int(0)).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(Array::select(&[], &[], Scalar::Int(0)).unwrap_err().status(), Status::InvalidArgument);

    // coarsen: dask's aligned chunks and NumPy's reductions over windows
    let s = a.coarsen(Reduction::Sum, &[2], false).unwrap();
    assert_eq!(s.chunks(), vec![vec![2, 1, 1, 1]], "dask's aligned chunks");
    close(&f64s(&s), &[1.0, 5.0, 9.0, 13.0, 17.0]);
    let mx = m.coarsen(Reduction::Max, &[1, 2], false).unwrap();
    assert_eq!(mx.chunks(), vec![vec![2, 1], vec![1, 1]]);
    assert_eq!(i64s(&mx), vec![1, 3, 5, 7, 9, 11]);
    let b = Array::arange(0.0, 10.0, 1.0, 4, DType::Float64).unwrap();
    let t = b.coarsen(Reduction::Mean, &[3], true).unwrap();
    assert_eq!(t.shape(), vec![3]);
    close(&f64s(&t), &[1.0, 4.0, 7.0]);
    let e = b.coarsen(Reduction::Mean, &[3], false).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("do not align"), "{}", e);
    // int32 sum: NumPy's default result dtype int64; (0..12)*3 % 7 in (2, 3) blocks
    let v: Vec<i32> = (0..12).map(|i| i * 3 % 7).collect();
    let c = Array::from_slice(&v, &[3, 4], &[2, 3]).unwrap().coarsen(Reduction::Sum, &[3, 2], false).unwrap();
    assert_eq!(c.dtype(), DType::Int64);
    assert_eq!(c.shape(), vec![1, 2]);
    assert_eq!(i64s(&c), vec![18, 19]);
    assert_eq!(a.coarsen(Reduction::Sum, &[0], false).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(a.coarsen(Reduction::ArgMax, &[2], false).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(a.coarsen(Reduction::Sum, &[2, 2], false).unwrap_err().status(), Status::InvalidArgument);

    // bincount: np.bincount(x, minlength=7) and with weights; one block
    let bx = Array::from_slice(&[0i64, 3, 1, 3, 3, 0, 5, 1, 2], &[9], &[4]).unwrap();
    let wt = Array::from_slice(&(0..9).map(|i| f64::from(i) * 0.5).collect::<Vec<_>>(), &[9], &[2]).unwrap();
    let n = bx.bincount(None, 7, 0).unwrap();
    assert_eq!(n.dtype(), DType::Int64);
    assert_eq!(n.chunks(), vec![vec![7]]);
    assert_eq!(i64s(&n), vec![2, 2, 1, 3, 0, 1, 0]);
    let n = bx.bincount(Some(&wt), 7, 2).unwrap();
    assert_eq!(n.dtype(), DType::Float64);
    close(&f64s(&n), &[2.5, 4.5, 4.0, 4.0, 0.0, 3.0, 0.0]);
    let err = bx.bincount(None, 4, 0).unwrap().compute(&ctx()).unwrap_err();
    assert!(err.message().contains("bincount"), "{}", err);
    assert_eq!(a.bincount(None, 7, 0).unwrap_err().status(), Status::Type);
    assert_eq!(m.bincount(None, 7, 0).unwrap_err().status(), Status::InvalidArgument);
}

/// uint8 and bool inputs (NumPy's values: uint8 shifts wrap, the median of uint8 is float64).
#[test]
fn uint8_and_bool_inputs() {
    let a = Array::from_slice(&[200u8, 3, 77, 3, 255, 0], &[6], &[4]).unwrap();
    let s = Array::from_slice(&[1u8, 2, 0, 7, 1, 3], &[6], &[3]).unwrap();
    let u8s = |x: &Array| x.compute_vec::<u8>(&ctx()).unwrap();
    assert_eq!(u8s(&a.left_shift(&s).unwrap()), vec![144, 12, 77, 128, 254, 0]);
    assert_eq!(u8s(&a.right_shift(&s).unwrap()), vec![100, 0, 77, 0, 127, 0]);
    assert_eq!(u8s(&a.bitwise_not().unwrap()), vec![55, 252, 178, 252, 0, 255]);
    assert_eq!(u8s(&a.fmax(&s).unwrap()), vec![200, 3, 77, 7, 255, 3]);
    assert_eq!(u8s(&a.sort(0, true).unwrap()), vec![255, 200, 77, 3, 3, 0]);
    assert_eq!(i64s(&a.argsort(0, false).unwrap()), vec![5, 1, 3, 2, 0, 4]);
    let m = a.median(&[], false).unwrap();
    assert_eq!(m.dtype(), DType::Float64);
    close(&f64s(&m), &[40.0]);
    let sorted = Array::from_slice(&[1u8, 2, 2, 3], &[4], &[2]).unwrap();
    assert_eq!(i64s(&sorted.searchsorted(&Array::from_slice(&[2u8], &[1], &[1]).unwrap(), Side::Left, None).unwrap()), vec![1]);
    // bool: unique with counts, flatnonzero, isin
    let b = Array::from_slice(&[1u8, 0, 1, 1], &[4], &[3]).unwrap().astype(DType::Bool).unwrap();
    let u = b.unique_with(UniqueOptions { counts: true, ..Default::default() }).unwrap();
    assert_eq!(bools(&u.values), vec![false, true]);
    assert_eq!(i64s(u.counts.as_ref().unwrap()), vec![1, 3]);
    assert_eq!(i64s(&b.flatnonzero().unwrap()), vec![0, 2, 3]);
    let t = Array::from_slice(&[0u8], &[1], &[1]).unwrap().astype(DType::Bool).unwrap();
    assert_eq!(bools(&b.isin(&t, false).unwrap()), vec![false, true, false, false]);
    // int32 digitize
    let x = Array::from_slice(&[1i32, 5, 9], &[3], &[2]).unwrap();
    let bins = Array::from_slice(&[0i32, 4, 8], &[3], &[2]).unwrap();
    assert_eq!(i64s(&x.digitize(&bins, false).unwrap()), vec![1, 2, 3]);
}

/// Empty and 0-d inputs of the routines (NumPy's shapes and values).
#[test]
fn empty_and_0d_routines() {
    let e = Array::from_slice::<f64>(&[], &[0], &[3]).unwrap();
    let z = Array::from_slice(&[2.5], &[], &[]).unwrap();
    let v = Array::from_slice(&[1.0, 2.0, 3.0], &[3], &[2]).unwrap();
    assert_eq!(f64s(&e.sort(0, false).unwrap()), Vec::<f64>::new());
    assert_eq!(i64s(&e.argsort(0, false).unwrap()), Vec::<i64>::new());
    close(&f64s(&z.unique().unwrap()), &[2.5]);
    assert_eq!(bools(&v.isin(&e, false).unwrap()), vec![false; 3]);
    assert_eq!(bools(&e.isin(&v, false).unwrap()), Vec::<bool>::new());
    assert_eq!(i64s(&e.searchsorted(&v, Side::Left, None).unwrap()), vec![0, 0, 0]);
    let p = v.searchsorted(&z, Side::Left, None).unwrap();
    assert_eq!((p.shape(), i64s(&p)), (Vec::<i64>::new(), vec![2]));
    assert_eq!(f64s(&e.union1d(&e).unwrap()), Vec::<f64>::new());
    assert_eq!(i64s(&e.flatnonzero().unwrap()), Vec::<i64>::new());
    assert_eq!(z.argwhere().unwrap().compute(&ctx()).unwrap().shape(), vec![1, 0]);
    let zero = Array::from_slice(&[0.0], &[], &[]).unwrap();
    assert_eq!(zero.argwhere().unwrap().compute(&ctx()).unwrap().shape(), vec![0, 0]);
    let r = z.roll(&[1], None).unwrap();
    assert_eq!((r.shape(), f64s(&r)), (Vec::<i64>::new(), vec![2.5]));
    assert_eq!(f64s(&e.roll(&[3], None).unwrap()), Vec::<f64>::new());
    let e2 = Array::from_slice::<f64>(&[], &[0, 3], &[1, 2]).unwrap();
    assert_eq!(e2.rot90(1, 0, 1).unwrap().shape(), vec![3, 0]);
    assert_eq!(e2.nonzero().unwrap().iter().map(|a| i64s(a).len()).collect::<Vec<_>>(), vec![0, 0]);
    let m = Array::from_slice(&data(12), &[3, 4], &[2, 3]).unwrap();
    assert_eq!(m.diagonal(10, 0, 1).unwrap().shape(), vec![0]);
    let (rr, cc) = Array::tril_indices(0, 0, None, &[1, 1]).unwrap();
    assert_eq!((i64s(&rr), i64s(&cc)), (Vec::<i64>::new(), Vec::<i64>::new()));
    assert_eq!(Array::meshgrid(&[&z, &v], Indexing::Xy, false).unwrap()[0].shape(), vec![3, 1]);
    let b = Array::broadcast_arrays(&[&z, &m]).unwrap();
    assert_eq!((b[0].shape(), b[0].chunks()), (vec![3, 4], m.chunks()));
    close(&f64s(&b[0]), &[2.5; 12]);
}

/// insert, delete, choose, select, bincount on empty, size-1 and 0-d inputs (NumPy's values).
#[test]
fn insert_delete_choose_select_bincount_edge_cases() {
    let empty = Array::from_slice::<f64>(&[], &[0], &[1]).unwrap();
    let vals = Array::from_slice(&[5.0, 6.0], &[2], &[1]).unwrap();
    let r = empty.insert(&[0, 0], &vals, 0).unwrap();
    assert_eq!(r.shape(), vec![2]);
    close(&f64s(&r), &[5.0, 6.0]);
    let one = Array::from_slice(&[7.0], &[1], &[1]).unwrap();
    let d = one.delete(&[0], 0).unwrap();
    assert_eq!(d.shape(), vec![0]);
    assert!(f64s(&d).is_empty());
    assert_eq!(empty.delete(&[0], 0).unwrap_err().status(), Status::InvalidArgument);
    // 0-d: np.choose(np.int64(1), [10., 20.]) is 20.0 (0-d)
    let i0 = Array::from_slice(&[1i64], &[], &[]).unwrap();
    let c10 = Array::from_slice(&[10.0], &[], &[]).unwrap();
    let c20 = Array::from_slice(&[20.0], &[], &[]).unwrap();
    let r = i0.choose(&[&c10, &c20], ChooseMode::Raise).unwrap();
    assert_eq!(r.ndim(), 0);
    close(&f64s(&r), &[20.0]);
    // select over empty arrays is empty
    let eb = Array::from_slice::<u8>(&[], &[0], &[1]).unwrap().astype(DType::Bool).unwrap();
    let s = Array::select(&[&eb], &[&empty], Scalar::Int(0)).unwrap();
    assert_eq!(s.shape(), vec![0]);
    assert!(f64s(&s).is_empty());
    // bincount of nothing: length zeros
    let ex = Array::from_slice::<i64>(&[], &[0], &[1]).unwrap();
    assert_eq!(i64s(&ex.bincount(None, 3, 0).unwrap()), vec![0, 0, 0]);
}

// ravel_multi_index / unravel_index against a plain loop (C and Fortran order, wrap/clip modes,
// ragged chunks, the raise-mode error), and bincount with a minlength (NumPy's length, found by the
// compute: unknown until then).
#[test]
fn ravel_unravel_and_bincount_minlength() {
    let dims = [4i64, 5];
    let r = [0i64, 3, 1, 2, 3, 0];
    let c = [4i64, 0, 2, 1, 3, 4];
    let a0 = Array::from_slice(&r, &[6], &[4]).unwrap();
    let a1 = Array::from_slice(&c, &[6], &[3]).unwrap();
    let flat = Array::ravel_multi_index(&[&a0, &a1], &dims, &[], false).unwrap();
    let want: Vec<i64> = r.iter().zip(&c).map(|(i, j)| i * dims[1] + j).collect();
    assert_eq!(i64s(&flat), want);
    let fl = Array::ravel_multi_index(&[&a0, &a1], &dims, &[], true).unwrap();
    let want_f: Vec<i64> = r.iter().zip(&c).map(|(i, j)| i + j * dims[0]).collect();
    assert_eq!(i64s(&fl), want_f);
    // wrap along the rows, clip along the columns
    let big_r = Array::from_slice(&[5i64, -1, 9], &[3], &[2]).unwrap();
    let big_c = Array::from_slice(&[7i64, -3, 2], &[3], &[3]).unwrap();
    let m = Array::ravel_multi_index(&[&big_r, &big_c], &dims, &[ChooseMode::Wrap, ChooseMode::Clip], false).unwrap();
    assert_eq!(i64s(&m), vec![5 + 4, 3 * 5, 5 + 2]);
    let bad = Array::ravel_multi_index(&[&big_r, &big_c], &dims, &[], false).unwrap();
    let e = bad.compute_vec::<i64>(&ctx()).unwrap_err();
    assert!(e.to_string().contains("invalid entry in coordinates array"), "{}", e);
    assert!(Array::ravel_multi_index(&[&a0], &dims, &[], false).is_err());
    // unravel_index inverts it
    let back = flat.unravel_index(&dims, false).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(i64s(&back[0]), r.to_vec());
    assert_eq!(i64s(&back[1]), c.to_vec());
    let back_f = fl.unravel_index(&dims, true).unwrap();
    assert_eq!(i64s(&back_f[0]), r.to_vec());
    assert_eq!(i64s(&back_f[1]), c.to_vec());
    let out = Array::from_slice(&[20i64], &[1], &[1]).unwrap().unravel_index(&dims, false).unwrap();
    assert!(out[0].compute_vec::<i64>(&ctx()).unwrap_err().to_string().contains("out of bounds"));
    assert!(flat.unravel_index(&[], false).is_err());
    // bincount with a minlength below and above the data's maximum
    let x = [0i64, 3, 3, 7, 1, 0, 9];
    let xa = Array::from_slice(&x, &[7], &[3]).unwrap();
    for m in [0i64, 4, 15] {
        let b = xa.bincount_minlength(None, m, 2).unwrap();
        assert!(!b.chunks_known());
        let len = (10i64).max(m) as usize;
        let mut want = vec![0i64; len];
        for &v in &x {
            want[v as usize] += 1;
        }
        assert_eq!(i64s(&b.compute_chunk_sizes(&ctx()).unwrap()), want);
    }
    assert!(xa.bincount_minlength(None, -1, 0).is_err());
}

/// histogram / histogramdd (ca_array_histogramdd) against NumPy 1.24's values (computed here as a
/// plain loop where NumPy's rule is simple) and dask 2022.12's chunks (one block).
#[test]
fn histograms() {
    use chunkarray::{HistogramBins, HistogramOptions};
    // np.histogram([0, .1, .25, .5, .99, 1, 1.5, nan, -1], bins=4, range=(0, 1)) -> [2, 1, 1, 2]
    let v = [0.0, 0.1, 0.25, 0.5, 0.99, 1.0, 1.5, f64::NAN, -1.0];
    let a = Array::from_slice(&v, &[9], &[4]).unwrap();
    let (h, e) = a.histogram(HistogramBins::Uniform { nbins: 4, lo: 0.0, hi: 1.0 }, &HistogramOptions::default()).unwrap();
    assert_eq!(h.dtype(), DType::Int64);
    assert_eq!(h.chunks(), vec![vec![4]]);
    assert_eq!(i64s(&h), vec![2, 1, 1, 2]);
    close(&f64s(&e), &[0.0, 0.25, 0.5, 0.75, 1.0]);
    // weights (int32 -> int32 counts) and density: np.histogram(v, [0, .5, 2], weights=w, density=True)
    let w = Array::from_slice(&[1i32, 2, 3, 4, 5, 6, 7, 8, 9], &[9], &[9]).unwrap();
    let edges = Array::from_slice(&[0.0, 0.5, 2.0], &[3], &[2]).unwrap();
    let opts = HistogramOptions { weights: Some(&w), ..Default::default() };
    let (h, _) = a.histogram(HistogramBins::Edges(&edges), &opts).unwrap();
    assert_eq!(h.dtype(), DType::Int32);
    let (h, _) = a.histogram(HistogramBins::Edges(&edges), &HistogramOptions { density: true, ..opts }).unwrap();
    // counts [1+2+3, 4+5+6+7] = [6, 22], widths [.5, 1.5], total 28
    close(&f64s(&h), &[6.0 / 0.5 / 28.0, 22.0 / 1.5 / 28.0]);
    // histogram2d of (x, y) on a 2-d grid of blocks, one sample an expression
    let x = Array::from_slice(&(0..12).map(f64::from).collect::<Vec<_>>(), &[3, 4], &[2, 3]).unwrap();
    let y = x.binary_int(BinaryOp::Mul, 2).unwrap();
    let (h, e) = Array::histogramdd(&[&x, &y],
                                    &[HistogramBins::Uniform { nbins: 2, lo: 0.0, hi: 12.0 },
                                      HistogramBins::Edges(&edges)],
                                    &HistogramOptions { split_every: 2, ..Default::default() }).unwrap();
    assert_eq!(h.dtype(), DType::Float64);
    assert_eq!(h.chunks(), vec![vec![2], vec![2]]);
    // y = 2x in [0, .5): x = 0; [.5, 2]: x = 1 (y = 2, on the last edge) -> [[1, 1], [0, 0]]
    close(&f64s(&h), &[1.0, 1.0, 0.0, 0.0]);
    assert_eq!(e.len(), 2);
    close(&f64s(&e[0]), &[0.0, 6.0, 12.0]);
    // errors: a range with lo > hi, decreasing edges at compute
    let err = a.histogram(HistogramBins::Uniform { nbins: 2, lo: 1.0, hi: 0.0 }, &HistogramOptions::default())
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("max must be larger than min"), "{}", err);
    let bad = Array::from_slice(&[0.0, 2.0, 1.0], &[3], &[3]).unwrap();
    let (h, _) = a.histogram(HistogramBins::Edges(&bad), &HistogramOptions::default()).unwrap();
    assert!(h.compute(&ctx()).unwrap_err().message().contains("must increase monotonically"));
}
