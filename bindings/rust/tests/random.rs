//! Array::random (ca_array_random) through the Rust binding: ca_random_options_t mirrored with its
//! third parameter p2, checked by the moments of a two-parameter (normal) and a three-parameter
//! (triangular) distribution against their exact values, and the parameter checks. Needs
//! CHUNKARRAY_LIB (set by the meson test).
use chunkarray::*;

fn moments(a: &Array) -> (f64, f64) {
    let v = a.compute_vec::<f64>(&Context::new(2).unwrap()).unwrap();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

#[test]
fn random_two_and_three_parameters() {
    let n = 200_000.0_f64;
    // normal(loc=2, scale=3): mean 2, variance 9; 6 standard errors
    let a = Array::random(RandomDistribution::Normal, &[200_000], &[70_000], DType::Float64, 7, &[2.0, 3.0]).unwrap();
    let (m, v) = moments(&a);
    assert!((m - 2.0).abs() < 6.0 * 3.0 / n.sqrt(), "normal mean {}", m);
    assert!((v - 9.0).abs() < 6.0 * 9.0 * (2.0 / n).sqrt(), "normal variance {}", v);
    // the same seed gives the same values whatever the chunks
    let b = Array::random(RandomDistribution::Normal, &[200_000], &[33_333], DType::Float64, 7, &[2.0, 3.0]).unwrap();
    assert_eq!(moments(&b), moments(&a));
    // triangular(left=0, mode=1, right=4) needs p2: mean 5/3, variance (0 + 1 + 16 - 0 - 0 - 4) / 18
    let t = Array::random(RandomDistribution::Triangular, &[200_000], &[50_000], DType::Float64, 3, &[0.0, 1.0, 4.0])
        .unwrap();
    let (m, v) = moments(&t);
    let (em, ev): (f64, f64) = (5.0 / 3.0, 13.0 / 18.0);
    assert!((m - em).abs() < 6.0 * ev.sqrt() / n.sqrt(), "triangular mean {}", m);
    assert!((v - ev).abs() < 0.02 * ev, "triangular variance {}", v);
    let tv = t.compute_vec::<f64>(&Context::new(2).unwrap()).unwrap();
    assert!(tv.iter().all(|&x| (0.0..=4.0).contains(&x)));
    // errors: right < mode; more than three parameters
    let err = Array::random(RandomDistribution::Triangular, &[10], &[5], DType::Float64, 0, &[0.0, 1.0, 0.5]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    let err = Array::random(RandomDistribution::Normal, &[10], &[5], DType::Float64, 0, &[0.0, 1.0, 0.0, 1.0]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
}

#[test]
fn random_params_arrays() {
    let ctx = Context::new(2).unwrap();
    // gamma with a constant shape array equals the scalar draw bit for bit
    let shp = Array::full(&[40, 6], &[40, 6], DType::Float64, 2.5).unwrap();
    let a = Array::random_params(RandomDistribution::Gamma, &[40, 6], &[15, 6], DType::Float64, 9, &[0.0, 2.0],
                                 &[Some(&shp), None]).unwrap();
    let b = Array::random(RandomDistribution::Gamma, &[40, 6], &[15, 6], DType::Float64, 9, &[2.5, 2.0]).unwrap();
    assert_eq!(a.compute_vec::<f64>(&ctx).unwrap(), b.compute_vec::<f64>(&ctx).unwrap());
    // a (6,) parameter broadcasts along the rows; a shape that does not broadcast is refused
    let lam = Array::from_slice(&[0.0f64, 1.0, 2.0, 5.0, 10.0, 50.0], &[6], &[6]).unwrap();
    let p = Array::random_params(RandomDistribution::Poisson, &[40, 6], &[15, 6], DType::Int64, 1, &[], &[Some(&lam)])
        .unwrap();
    let v = p.compute_vec::<i64>(&ctx).unwrap();
    assert!(v.iter().step_by(6).all(|&x| x == 0));
    let err = Array::random_params(RandomDistribution::Poisson, &[40, 5], &[15, 5], DType::Int64, 1, &[], &[Some(&lam)])
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    // a bad value fails the compute with NumPy's message
    let sc = Array::from_slice(&[1.0f64, -1.0], &[2], &[2]).unwrap();
    let g = Array::random_params(RandomDistribution::Gamma, &[2], &[2], DType::Float64, 1, &[1.0], &[None, Some(&sc)])
        .unwrap();
    let err = g.compute_vec::<f64>(&ctx).unwrap_err();
    assert_eq!(err.status(), Status::Kernel);
    assert!(err.to_string().contains("scale < 0"), "{}", err);
}
