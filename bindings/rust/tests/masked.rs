//! chunkarray::masked against plain loops: masking, numpy.ma's log and divide domains, a masked
//! mean with an all-masked row, count, average with weights, and a bad mask. Needs CHUNKARRAY_LIB.
use chunkarray::masked::{MaskTest, MaskedArray};
use chunkarray::*;

fn ctx() -> Context {
    Context::new(2).unwrap()
}

// 3 x 4 values, ragged chunks; row 1 masked everywhere, plus x < 0.
fn sample() -> (Vec<f64>, Vec<bool>, MaskedArray) {
    let x: Vec<f64> = (0..12).map(|i| ((i * 5) % 7) as f64 - 2.0).collect();
    let xa = Array::from_slice(&x, &[3, 4], &[2, 3]).unwrap();
    let rowmask: Vec<f64> = (0..12).map(|i| if i / 4 == 1 { 1.0 } else { 0.0 }).collect();
    let ma = Array::from_slice(&rowmask, &[3, 4], &[2, 3]).unwrap();
    let m = MaskedArray::new(&xa, Some(&ma), None).unwrap();
    let m = m.compare(MaskTest::Less, Scalar::Float(0.0), Scalar::Float(0.0)).unwrap();
    let mask: Vec<bool> = (0..12).map(|i| i / 4 == 1 || x[i] < 0.0).collect();
    (x, mask, m)
}

#[test]
fn masking_and_domains() {
    let (x, mask, m) = sample();
    let (d, k) = m.compute_f64(&ctx()).unwrap();
    assert_eq!(k, mask);
    assert_eq!(d, x);
    assert_eq!(m.fill_value().unwrap(), Scalar::Float(1e20));
    // log: masked where masked or x <= 0
    let (ld, lk) = m.unary(UnaryOp::Log).unwrap().compute_f64(&ctx()).unwrap();
    for i in 0..12 {
        assert_eq!(lk[i], mask[i] || x[i] <= 0.0, "log mask {}", i);
        if !lk[i] {
            assert!((ld[i] - x[i].ln()).abs() < 1e-12);
        }
    }
    // 1 / (x - 1): masked where x == 1 too
    let xm1 = m.binary_scalar(BinaryOp::Sub, Scalar::Float(1.0), false).unwrap();
    let q = xm1.binary_scalar(BinaryOp::Div, Scalar::Float(1.0), true).unwrap();
    let (qd, qk) = q.compute_f64(&ctx()).unwrap();
    for i in 0..12 {
        assert_eq!(qk[i], mask[i] || x[i] == 1.0, "divide mask {}", i);
        if !qk[i] {
            assert!((qd[i] - 1.0 / (x[i] - 1.0)).abs() < 1e-12);
        }
    }
    let filled = m.filled(Some(Scalar::Float(-1.0))).unwrap().compute_vec::<f64>(&ctx()).unwrap();
    for i in 0..12 {
        assert_eq!(filled[i], if mask[i] { -1.0 } else { x[i] });
    }
}

#[test]
fn reductions_and_average() {
    let (x, mask, m) = sample();
    let (mean, mk) = m.reduce(Reduction::Mean, &[1], false, 0).unwrap().compute_f64(&ctx()).unwrap();
    for r in 0..3 {
        let vals: Vec<f64> = (0..4).map(|c| r * 4 + c).filter(|&i| !mask[i]).map(|i| x[i]).collect();
        assert_eq!(mk[r], vals.is_empty(), "row {}", r);
        if !vals.is_empty() {
            assert!((mean[r] - vals.iter().sum::<f64>() / vals.len() as f64).abs() < 1e-12);
        }
    }
    assert!(mk[1]);
    let cnt = m.count(&[], false).unwrap().compute_vec::<i64>(&ctx()).unwrap();
    assert_eq!(cnt, vec![mask.iter().filter(|&&b| !b).count() as i64]);
    let w: Vec<f64> = (0..12).map(|i| (i % 4 + 1) as f64).collect();
    let wm = MaskedArray::new(&Array::from_slice(&w, &[3, 4], &[3, 4]).unwrap(), None, None).unwrap();
    let (avg, scl) = m.average(Some(&wm), &[], false).unwrap();
    let (num, den) = (0..12).filter(|&i| !mask[i]).fold((0.0, 0.0), |(n, d), i| (n + x[i] * w[i], d + w[i]));
    let (a, ak) = avg.compute_f64(&ctx()).unwrap();
    assert!(!ak[0]);
    assert!((a[0] - num / den).abs() < 1e-12);
    assert!((scl.compute_f64(&ctx()).unwrap().0[0] - den).abs() < 1e-12);
}

#[test]
fn bad_mask_is_an_error() {
    let xa = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3], &[3]).unwrap();
    let bad = Array::from_slice(&[1.0f64, 0.0], &[2], &[2]).unwrap();
    let e = MaskedArray::new(&xa, Some(&bad), None).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.to_string().contains("Mask and data not compatible"), "{}", e);
}
