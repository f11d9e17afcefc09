//! chunkarray::fft against a plain O(n^2) DFT loop: fft, ifft, rfft, irfft, hfft, ihfft with n
//! smaller and larger than the axis, every norm, ragged chunks along the other axis (kept, with the
//! transformed axis one block), the 2-d forms, fftfreq/rfftfreq/fftshift/ifftshift against NumPy's
//! formulas, and dask's error when the transformed axis has several blocks. Needs CHUNKARRAY_LIB.
use chunkarray::fft::{self, FftOptions, Kind, Norm};
use chunkarray::*;

type C = (f64, f64);

fn ctx() -> Context {
    Context::new(2).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.compute_vec::<f64>(&ctx()).unwrap()
}

/// A complex128 array's values as (re, im) pairs.
fn complexes(a: &Array) -> Vec<C> {
    assert_eq!(a.dtype(), DType::Complex128);
    let re = f64s(&a.real().unwrap());
    let im = f64s(&a.imag().unwrap());
    re.into_iter().zip(im).collect()
}

fn fwd_scale(norm: Norm, n: usize) -> f64 {
    match norm {
        Norm::Backward => 1.0,
        Norm::Ortho => 1.0 / (n as f64).sqrt(),
        Norm::Forward => 1.0 / n as f64,
    }
}

fn inv_scale(norm: Norm, n: usize) -> f64 {
    match norm {
        Norm::Backward => 1.0 / n as f64,
        Norm::Ortho => 1.0 / (n as f64).sqrt(),
        Norm::Forward => 1.0,
    }
}

/// The DFT of `x` truncated or zero-padded to `n`: sum_j x[j] exp(sign 2 pi i jk / n) * scale.
fn dft(x: &[C], n: usize, sign: f64, scale: f64) -> Vec<C> {
    (0..n)
        .map(|k| {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, &(xr, xi)) in x.iter().take(n).enumerate() {
                let t = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                re += xr * t.cos() - xi * t.sin();
                im += xr * t.sin() + xi * t.cos();
            }
            (re * scale, im * scale)
        })
        .collect()
}

/// The full Hermitian spectrum of length n from its first half (NumPy's irfft input handling: the
/// input truncated or zero-padded to n/2 + 1 values; the imaginary parts of the DC and, for even n,
/// the Nyquist term ignored).
fn hermitian(x: &[C], n: usize) -> Vec<C> {
    let get = |k: usize| if k < x.len() { x[k] } else { (0.0, 0.0) };
    (0..n)
        .map(|k| {
            if k == 0 || (n % 2 == 0 && k == n / 2) {
                (get(k).0, 0.0)
            } else if k <= n / 2 {
                get(k)
            } else {
                let (r, i) = get(n - k);
                (r, -i)
            }
        })
        .collect()
}

/// The loop's result of `kind` on one row (`n`: the transform length).
fn reference(kind: Kind, row: &[C], n: usize, norm: Norm) -> Vec<C> {
    match kind {
        Kind::Fft => dft(row, n, -1.0, fwd_scale(norm, n)),
        Kind::Ifft => dft(row, n, 1.0, inv_scale(norm, n)),
        Kind::Rfft => {
            let real: Vec<C> = row.iter().map(|&(r, _)| (r, 0.0)).collect();
            dft(&real, n, -1.0, fwd_scale(norm, n))[..n / 2 + 1].to_vec()
        }
        Kind::Irfft => dft(&hermitian(row, n), n, 1.0, inv_scale(norm, n)).into_iter().map(|(r, _)| (r, 0.0)).collect(),
        Kind::Hfft => {
            let conj: Vec<C> = row.iter().map(|&(r, i)| (r, -i)).collect();
            dft(&hermitian(&conj, n), n, 1.0, fwd_scale(norm, n)).into_iter().map(|(r, _)| (r, 0.0)).collect()
        }
        Kind::Ihfft => {
            let real: Vec<C> = row.iter().map(|&(r, _)| (r, 0.0)).collect();
            dft(&real, n, -1.0, inv_scale(norm, n))[..n / 2 + 1].iter().map(|&(r, i)| (r, -i)).collect()
        }
    }
}

fn assert_close(got: &[C], want: &[C], what: &str) {
    assert_eq!(got.len(), want.len(), "{}: {} values, want {}", what, got.len(), want.len());
    let mag = want.iter().fold(1.0f64, |m, &(r, i)| m.max(r.abs()).max(i.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g.0 - w.0).abs() <= 1e-10 * mag && (g.1 - w.1).abs() <= 1e-10 * mag,
                "{}: element {}: {:?} vs {:?}", what, k, g, w);
    }
}

const ROWS: usize = 5;
const COLS: usize = 6;

fn signal() -> Vec<f64> {
    (0..ROWS * COLS).map(|i| ((i * 37 % 23) as f64) / 3.0 - 2.5).collect()
}

/// (5, 6) float64 in rows of (2, 2, 1): ragged along axis 0, one block along the transformed axis 1.
fn ragged() -> Array {
    Array::from_slice(&signal(), &[ROWS as i64, COLS as i64], &[2, -1]).unwrap()
}

/// Checks `kind` along the last axis of `x` (rows of `rows`) for every norm and each n.
fn check_kind(x: &Array, rows: &[Vec<C>], kind: Kind, ns: &[Option<i64>]) {
    let m = rows[0].len();
    for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
        for &n in ns {
            let len = n.map_or(if matches!(kind, Kind::Irfft | Kind::Hfft) { 2 * (m - 1) } else { m }, |v| v as usize);
            let out_len = match kind {
                Kind::Rfft | Kind::Ihfft => len / 2 + 1,
                _ => len,
            };
            let what = format!("{:?} n={:?} norm={:?}", kind, n, norm);
            let r = fft::transform(x, kind, &FftOptions { axes: Some(vec![-1]), s: n.map(|v| vec![v]), norm }).unwrap();
            assert_eq!(r.shape(), vec![ROWS as i64, out_len as i64], "{}", what);
            assert_eq!(r.chunks(), vec![vec![2, 2, 1], vec![out_len as i64]], "{}: dask's chunks", what);
            let got: Vec<C> = if matches!(kind, Kind::Irfft | Kind::Hfft) {
                assert_eq!(r.dtype(), DType::Float64, "{}", what);
                f64s(&r).into_iter().map(|v| (v, 0.0)).collect()
            } else {
                complexes(&r)
            };
            let want: Vec<C> = rows.iter().flat_map(|row| reference(kind, row, len, norm)).collect();
            assert_close(&got, &want, &what);
        }
    }
}

#[test]
fn one_axis_transforms_match_the_loop() {
    let x = ragged();
    let v = signal();
    let rows: Vec<Vec<C>> = v.chunks(COLS).map(|r| r.iter().map(|&a| (a, 0.0)).collect()).collect();
    let ns = [None, Some(4), Some(9), Some(1)];
    for kind in [Kind::Fft, Kind::Ifft, Kind::Rfft, Kind::Ihfft] {
        check_kind(&x, &rows, kind, &ns);
    }
    // complex input: the forward transform's output (ragged rows kept), through every kind
    let spec = fft::fft(&x, None, -1, Norm::Backward).unwrap();
    let srows: Vec<Vec<C>> = complexes(&spec).chunks(COLS).map(<[C]>::to_vec).collect();
    for kind in [Kind::Fft, Kind::Ifft, Kind::Irfft, Kind::Hfft] {
        check_kind(&spec, &srows, kind, &[None, Some(4), Some(9), Some(2)]);
    }
    // the round trips NumPy promises
    let back = fft::ifft(&spec, None, -1, Norm::Backward).unwrap();
    assert_close(&complexes(&back), &rows.concat(), "ifft(fft(x))");
    let half = fft::rfft(&x, None, 1, Norm::Ortho).unwrap();
    let again = fft::irfft(&half, Some(COLS as i64), 1, Norm::Ortho).unwrap();
    assert_close(&f64s(&again).into_iter().map(|v| (v, 0.0)).collect::<Vec<_>>(), &rows.concat(), "irfft(rfft(x))");
    // the named forms are the general transform over one axis
    let h = fft::hfft(&spec, Some(7), -1, Norm::Forward).unwrap();
    let g = fft::transform(&spec, Kind::Hfft, &FftOptions { axes: None, s: Some(vec![7]), norm: Norm::Forward }).unwrap();
    assert_eq!(f64s(&h), f64s(&g));
    let ih = fft::ihfft(&x, None, -1, Norm::Backward).unwrap();
    assert_eq!(ih.shape(), vec![ROWS as i64, (COLS / 2 + 1) as i64]);
}

#[test]
fn integer_and_float32_inputs_are_computed_in_double() {
    let v: Vec<i32> = (0..12).map(|i| (i * 5) % 7 - 3).collect();
    let x = Array::from_slice(&v, &[3, 4], &[1, 4]).unwrap();
    let r = fft::fft(&x, None, -1, Norm::Backward).unwrap();
    assert_eq!(r.dtype(), DType::Complex128);
    assert_eq!(r.chunks(), vec![vec![1, 1, 1], vec![4]]);
    let want: Vec<C> = v.chunks(4).flat_map(|row| {
        let row: Vec<C> = row.iter().map(|&a| (f64::from(a), 0.0)).collect();
        reference(Kind::Fft, &row, 4, Norm::Backward)
    }).collect();
    assert_close(&complexes(&r), &want, "fft of int32");
    let f: Vec<f32> = (0..8).map(|i| i as f32 * 0.25 - 1.0).collect();
    let y = Array::from_slice(&f, &[8], &[8]).unwrap();
    let r = fft::rfft(&y, Some(5), 0, Norm::Ortho).unwrap();
    assert_eq!(r.dtype(), DType::Complex128);
    let row: Vec<C> = f.iter().map(|&a| (f64::from(a), 0.0)).collect();
    assert_close(&complexes(&r), &reference(Kind::Rfft, &row, 5, Norm::Ortho), "rfft of float32");
}

#[test]
fn two_and_n_dimensional_forms() {
    let v = signal();
    let x = ragged();
    // axis 0 has three blocks: dask's error
    let e = fft::fft2(&x, None, &[-2, -1], Norm::Backward).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("only supports taking an FFT along an axis that"), "{}", e);
    let e = fft::fft(&x, None, 0, Norm::Backward).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("single chunk"), "{}", e);
    // one block: fft2 is the row transforms, then the column transforms (with s=(4, 8))
    let one = x.rechunk(&[-1, -1]).unwrap();
    let (s0, s1) = (4usize, 8usize);
    let r = fft::fft2(&one, Some(&[s0 as i64, s1 as i64]), &[-2, -1], Norm::Ortho).unwrap();
    assert_eq!(r.shape(), vec![s0 as i64, s1 as i64]);
    let rows: Vec<Vec<C>> = v.chunks(COLS).take(s0).map(|r| {
        let row: Vec<C> = r.iter().map(|&a| (a, 0.0)).collect();
        reference(Kind::Fft, &row, s1, Norm::Ortho)
    }).collect();
    let mut want = vec![(0.0, 0.0); s0 * s1];
    for c in 0..s1 {
        let col: Vec<C> = rows.iter().map(|r| r[c]).collect();
        for (k, z) in reference(Kind::Fft, &col, s0, Norm::Ortho).into_iter().enumerate() {
            want[k * s1 + c] = z;
        }
    }
    assert_close(&complexes(&r), &want, "fft2 s=(4, 8) ortho");
    // fftn over every axis equals fft2 here; ifftn(fftn(x)) is x; irfftn(rfftn(x)) is x
    let n = fft::fftn(&one, None, None, Norm::Backward).unwrap();
    let t = fft::fft2(&one, None, &[0, 1], Norm::Backward).unwrap();
    assert_close(&complexes(&n), &complexes(&t), "fftn vs fft2");
    let back = fft::ifftn(&n, None, None, Norm::Backward).unwrap();
    let xs: Vec<C> = v.iter().map(|&a| (a, 0.0)).collect();
    assert_close(&complexes(&back), &xs, "ifftn(fftn(x))");
    let rn = fft::rfftn(&one, None, None, Norm::Forward).unwrap();
    assert_eq!(rn.shape(), vec![ROWS as i64, (COLS / 2 + 1) as i64]);
    let rb = fft::irfftn(&rn, Some(&[ROWS as i64, COLS as i64]), None, Norm::Forward).unwrap();
    assert_close(&f64s(&rb).into_iter().map(|a| (a, 0.0)).collect::<Vec<_>>(), &xs, "irfftn(rfftn(x))");
    let r2 = fft::rfft2(&one, None, &[0, 1], Norm::Backward).unwrap();
    let i2 = fft::irfft2(&r2, Some(&[ROWS as i64, COLS as i64]), &[0, 1], Norm::Backward).unwrap();
    assert_close(&f64s(&i2).into_iter().map(|a| (a, 0.0)).collect::<Vec<_>>(), &xs, "irfft2(rfft2(x))");
    let i2c = fft::ifft2(&fft::fft2(&one, None, &[0, 1], Norm::Forward).unwrap(), None, &[0, 1], Norm::Forward).unwrap();
    assert_close(&complexes(&i2c), &xs, "ifft2(fft2(x))");
    // bad arguments name the problem
    let bad = |o: FftOptions, kind: Kind, needle: &str| {
        let e = fft::transform(&one, kind, &o).unwrap_err();
        assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
        assert!(e.message().contains(needle), "{} does not mention {:?}", e, needle);
    };
    bad(FftOptions { axes: Some(vec![0, 0]), ..Default::default() }, Kind::Fft, "Duplicate axes");
    bad(FftOptions { axes: Some(vec![0, 1]), s: Some(vec![3]), ..Default::default() }, Kind::Fft, "different lengths");
    bad(FftOptions { axes: Some(vec![1]), s: Some(vec![0]), ..Default::default() }, Kind::Fft, "Invalid number of FFT data points");
    bad(FftOptions { axes: Some(vec![0, 1]), ..Default::default() }, Kind::Hfft, "");
    bad(FftOptions { axes: Some(vec![2]), ..Default::default() }, Kind::Fft, "");
}

#[test]
fn frequencies_and_shifts() {
    for n in [1i64, 4, 7, 10] {
        let d = 0.25;
        let f = fft::fftfreq(n, d, 3).unwrap();
        let want: Vec<f64> = (0..n).map(|i| (if i < (n + 1) / 2 { i } else { i - n }) as f64 / (n as f64 * d)).collect();
        let got = f64s(&f);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-12, "fftfreq({}, {}): {:?} vs {:?}", n, d, got, want);
        }
        let r = fft::rfftfreq(n, d, -1).unwrap();
        assert_eq!(r.chunks(), vec![vec![n / 2 + 1]]);
        let want: Vec<f64> = (0..=n / 2).map(|i| i as f64 / (n as f64 * d)).collect();
        for (g, w) in f64s(&r).iter().zip(&want) {
            assert!((g - w).abs() <= 1e-12, "rfftfreq({})", n);
        }
    }
    assert_eq!(fft::fftfreq(8, 1.0, 3).unwrap().chunks(), vec![vec![3, 3, 2]]);
    assert_eq!(fft::fftfreq(0, 1.0, 3).unwrap_err().status(), Status::InvalidArgument);
    // fftshift / ifftshift: np.roll by n//2 and -(n//2) along each axis
    let v: Vec<i64> = (0..15).collect();
    let x = Array::from_slice(&v, &[3, 5], &[2, 2]).unwrap();
    let roll = |sh0: i64, sh1: i64| -> Vec<i64> {
        let mut out = vec![0; 15];
        for i in 0..3i64 {
            for j in 0..5i64 {
                out[(((i + sh0).rem_euclid(3)) * 5 + (j + sh1).rem_euclid(5)) as usize] = v[(i * 5 + j) as usize];
            }
        }
        out
    };
    let s = fft::fftshift(&x, None).unwrap();
    assert_eq!(s.compute_vec::<i64>(&ctx()).unwrap(), roll(1, 2));
    let s1 = fft::fftshift(&x, Some(&[1])).unwrap();
    assert_eq!(s1.compute_vec::<i64>(&ctx()).unwrap(), roll(0, 2));
    let is = fft::ifftshift(&x, None).unwrap();
    assert_eq!(is.compute_vec::<i64>(&ctx()).unwrap(), roll(-1, -2));
    let round = fft::ifftshift(&s, None).unwrap();
    assert_eq!(round.compute_vec::<i64>(&ctx()).unwrap(), v);
    assert_eq!(fft::fftshift(&x, Some(&[2])).unwrap_err().status(), Status::InvalidArgument);
    let b = fft::backend().unwrap();
    assert!(b == "pocketfft" || b == "kissfft" || b == "fftw3", "{}", b);
}

#[test]
fn empty_and_size_one_inputs() {
    // shape (0, 4): the empty axis keeps its (empty) chunks, as dask's ((0,), (4,))
    let e = Array::zeros(&[0, 4], &[2, 4], DType::Float64).unwrap();
    let r = fft::fft(&e, None, 1, Norm::Backward).unwrap();
    assert_eq!(r.shape(), vec![0, 4]);
    assert_eq!(r.dtype(), DType::Complex128);
    assert!(complexes(&r).is_empty());
    // one point: fft([3.5]) == [3.5]; rfft([3.5], n=3) == [3.5, 3.5]
    let one = Array::from_slice(&[3.5], &[1], &[1]).unwrap();
    assert_close(&complexes(&fft::fft(&one, None, 0, Norm::Backward).unwrap()), &[(3.5, 0.0)], "fft of one point");
    assert_close(&complexes(&fft::rfft(&one, Some(3), 0, Norm::Backward).unwrap()), &[(3.5, 0.0), (3.5, 0.0)],
                 "rfft of one point, n=3");
}
