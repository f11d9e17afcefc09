//! HDF5 (from_hdf5 / to_hdf5) and npy stacks (to_npy_stack / from_npy_stack) round trips, checked
//! against the source values; the HDF5 tests skip when the library was built without HDF5
//! (Status::Unsupported). Needs CHUNKARRAY_LIB.
use chunkarray::*;

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("chunkarray-rust-io-{}-{}", std::process::id(), name));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64) * 0.5 - 3.0).collect()
}

#[test]
fn hdf5_round_trip_layouts_and_errors() {
    let ctx = Context::new(2).unwrap();
    let dir = tmp("h5");
    let path = dir.join("x.h5");
    let p = path.to_str().unwrap();
    let v = data(23 * 7);
    let x = Array::from_slice(&v, &[23, 7], &[10, 4]).unwrap();
    match x.to_hdf5(&ctx, p, "/g/plain", &Hdf5Options::default()) {
        Err(e) if e.status() == Status::Unsupported => {
            eprintln!("skipped: {}", e);
            return;
        }
        r => r.unwrap(),
    }
    let gz = Hdf5Options { chunks: Some(vec![5, 7]), gzip_level: 4, shuffle: true, ..Default::default() };
    x.to_hdf5(&ctx, p, "gz", &gz).unwrap();
    let contig = Hdf5Options { contiguous: true, ..Default::default() };
    x.to_hdf5(&ctx, p, "contig", &contig).unwrap();
    for name in ["/g/plain", "gz", "contig"] {
        let a = Array::from_hdf5(p, name, None).unwrap();
        assert_eq!(a.shape(), vec![23, 7]);
        assert_eq!(a.compute_vec::<f64>(&ctx).unwrap(), v, "{}", name);
        let b = Array::from_hdf5(p, name, Some("(6, 3)")).unwrap();
        assert_eq!(b.chunks()[0], vec![6, 6, 6, 5]);
        assert_eq!(b.compute_vec::<f64>(&ctx).unwrap(), v, "{}", name);
    }
    assert_eq!(Array::from_hdf5(p, "gz", None).unwrap().chunks()[0], vec![5, 5, 5, 5, 3]);
    let e = x.to_hdf5(&ctx, p, "gz", &Hdf5Options::default()).unwrap_err();
    assert_eq!(e.status(), Status::Exists);
    let e = Array::from_hdf5(p, "nope", None).unwrap_err();
    assert_eq!(e.status(), Status::NotFound);
    assert!(e.message().contains("has no dataset 'nope'"), "{}", e.message());
    let e = Array::from_hdf5(dir.join("missing.h5").to_str().unwrap(), "x", None).unwrap_err();
    assert_eq!(e.status(), Status::NotFound);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn npy_stack_round_trip() {
    let ctx = Context::new(2).unwrap();
    let dir = tmp("stack");
    let v = data(9 * 4);
    let x = Array::from_slice(&v, &[9, 4], &[4, 3]).unwrap();
    for axis in [0, 1] {
        let d = dir.join(format!("s{}", axis));
        x.to_npy_stack(&ctx, d.to_str().unwrap(), axis).unwrap();
        assert!(d.join("info").is_file());
        let b = Array::from_npy_stack(d.to_str().unwrap()).unwrap();
        let want = if axis == 0 { vec![vec![4, 4, 1], vec![4]] } else { vec![vec![9], vec![3, 1]] };
        assert_eq!(b.chunks(), want);
        assert_eq!(b.compute_vec::<f64>(&ctx).unwrap(), v);
    }
    let e = Array::from_npy_stack(dir.join("none").to_str().unwrap()).unwrap_err();
    assert_eq!(e.status(), Status::NotFound);
    std::fs::remove_dir_all(&dir).ok();
}
