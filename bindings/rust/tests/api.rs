//! chunkarray's Rust bindings against plain loops. Needs CHUNKARRAY_LIB (set by the meson test).
use chunkarray::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// False in a library built without graph files (-Dcapnp=disabled): saving then says CA_EUNSUPPORTED,
/// and the tests whose subject is a graph file skip (printing why) instead of failing.
fn graph_files() -> bool {
    let p = std::env::temp_dir().join(format!("chunkarray-rust-{}-probe.graph", std::process::id()));
    let r = Graph::new().unwrap().save(p.to_str().unwrap());
    std::fs::remove_file(&p).ok();
    match r {
        Ok(()) => true,
        Err(e) => e.code() != "CA_EUNSUPPORTED",
    }
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37 % 101) as f64) / 7.0 - 5.0).collect()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{} vs {}", x, y);
    }
}

#[test]
fn version_agrees() {
    let (num, abi) = version_number().unwrap();
    assert_eq!(abi, 1);
    assert_eq!(version().unwrap(), format!("{}.{}.{}", num / 10000, num / 100 % 100, num % 100));
}

#[test]
fn model_and_roundtrip() {
    let v = data(13 * 17);
    let x = Array::from_slice(&v, &[13, 17], &[5, 4]).unwrap();
    assert_eq!(x.shape(), vec![13, 17]);
    assert_eq!(x.chunks(), vec![vec![5, 5, 3], vec![4, 4, 4, 4, 1]]);
    assert_eq!(x.dtype(), DType::Float64);
    assert_eq!(x.size(), 221);
    let ctx = Context::new(2).unwrap();
    assert_eq!(x.compute_vec::<f64>(&ctx).unwrap(), v);
    let y = x.clone();
    drop(x);
    assert_eq!(y.compute_vec::<f64>(&ctx).unwrap(), v);
    let i = Array::from_slice(&[1i32, 2, 3], &[3], &[2]).unwrap();
    assert_eq!(i.compute_vec::<i32>(&ctx).unwrap(), vec![1, 2, 3]);
    let e = i.compute_vec::<f64>(&ctx).unwrap_err();
    assert_eq!(e.code(), "CA_ETYPE");
}

#[test]
fn elementwise_and_reductions_match_loops() {
    let ctx = Context::new(-1).unwrap();
    let v = data(12 * 10);
    let x = Array::from_slice(&v, &[12, 10], &[5, 3]).unwrap();
    let y = x.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
    let want: Vec<f64> = v.iter().map(|a| a * 2.0 + 1.0).collect();
    close(&y.compute_vec::<f64>(&ctx).unwrap(), &want);
    let z = (&x * &x).unary(UnaryOp::Sqrt).unwrap();
    close(&z.compute_vec::<f64>(&ctx).unwrap(), &v.iter().map(|a| a.abs()).collect::<Vec<_>>());
    let s = y.sum(&[], false).unwrap();
    close(&s.compute_vec::<f64>(&ctx).unwrap(), &[want.iter().sum()]);
    let colsum = y.sum(&[0], false).unwrap();
    let mut cs = vec![0.0; 10];
    for r in 0..12 {
        for c in 0..10 {
            cs[c] += want[r * 10 + c];
        }
    }
    close(&colsum.compute_vec::<f64>(&ctx).unwrap(), &cs);
    let m = x.max(&[1], true).unwrap();
    assert_eq!(m.shape(), vec![12, 1]);
    let rowmax: Vec<f64> = (0..12).map(|r| v[r * 10..r * 10 + 10].iter().cloned().fold(f64::MIN, f64::max)).collect();
    close(&m.compute_vec::<f64>(&ctx).unwrap(), &rowmax);
    let mean = x.mean(&[], false).unwrap();
    close(&mean.compute_vec::<f64>(&ctx).unwrap(), &[v.iter().sum::<f64>() / 120.0]);
    let cum = x.scan(Scan::CumSum, 1).unwrap();
    let mut want_cum = v.clone();
    for r in 0..12 {
        for c in 1..10 {
            want_cum[r * 10 + c] += want_cum[r * 10 + c - 1];
        }
    }
    close(&cum.compute_vec::<f64>(&ctx).unwrap(), &want_cum);
    let gt = x.binary_scalar(BinaryOp::Gt, 0.0, false).unwrap();
    assert_eq!(gt.dtype(), DType::Bool);
    let w = Array::where_(&gt, &x, &x.unary(UnaryOp::Neg).unwrap()).unwrap();
    close(&w.compute_vec::<f64>(&ctx).unwrap(), &v.iter().map(|a| a.abs()).collect::<Vec<_>>());
}

#[test]
fn creation_and_rechunk() {
    let ctx = Context::new(1).unwrap();
    let a = Array::arange(0.0, 10.0, 1.0, 3, DType::Int64).unwrap();
    assert_eq!(a.compute_vec::<i64>(&ctx).unwrap(), (0..10).collect::<Vec<i64>>());
    assert_eq!(a.chunks(), vec![vec![3, 3, 3, 1]]);
    let r = a.rechunk(&[4]).unwrap();
    assert_eq!(r.chunks(), vec![vec![4, 4, 2]]);
    assert_eq!(r.compute_vec::<i64>(&ctx).unwrap(), (0..10).collect::<Vec<i64>>());
    let o = Array::ones(&[3, 4], &[2, 2], DType::Float32).unwrap();
    assert_eq!(o.compute_vec::<f32>(&ctx).unwrap(), vec![1.0f32; 12]);
    let f = Array::full(&[2, 2], &[-1, -1], DType::Float64, 2.5).unwrap();
    assert_eq!(f.compute_vec::<f64>(&ctx).unwrap(), vec![2.5; 4]);
    let z = Array::zeros(&[0, 3], &[1, 1], DType::Float64).unwrap();
    assert_eq!(z.compute_vec::<f64>(&ctx).unwrap(), Vec::<f64>::new());
    let u1 = Array::random_uniform(&[50, 40], &[20, 15], 9, 0.0, 1.0).unwrap().compute_vec::<f64>(&ctx).unwrap();
    let u2 = Array::random_uniform(&[50, 40], &[20, 15], 9, 0.0, 1.0).unwrap().compute_vec::<f64>(&ctx).unwrap();
    assert_eq!(u1, u2);
    assert!(u1.iter().all(|&v| (0.0..1.0).contains(&v)));
}

#[test]
fn closure_kernel_with_literals_and_block_index() {
    let ctx = Context::new(2).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let c2 = calls.clone();
    ctx.register_kernel("rust.affine", move |ka| {
        c2.fetch_add(1, Ordering::SeqCst);
        let b = ka.args[0].block().ok_or("first argument is not a block")?;
        let k = ka.args[1].as_f64().ok_or("second argument is not a number")?;
        let xs = b.as_slice::<f64>().ok_or("not float64")?;
        let out: Vec<f64> = xs.iter().map(|v| v * k + ka.block_index[0] as f64).collect();
        Ok(Block::from_vec(&b.shape(), &out)?)
    })
    .unwrap();
    let v = data(20);
    let x = Array::from_slice(&v, &[20], &[6]).unwrap();
    let y = x.map_blocks("rust.affine", &[], &[Literal::Float(3.0)], None).unwrap();
    let got = y.compute_vec::<f64>(&ctx).unwrap();
    let want: Vec<f64> = v.iter().enumerate().map(|(i, a)| a * 3.0 + (i / 6) as f64).collect();
    close(&got, &want);
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    // a kernel over two arrays with a dtype change
    ctx.register_kernel("rust.greater", |ka| {
        let a = ka.args[0].block().unwrap().as_slice::<f64>().unwrap();
        let b = ka.args[1].block().unwrap().as_slice::<f64>().unwrap();
        let o: Vec<i64> = a.iter().zip(b).map(|(x, y)| (x > y) as i64).collect();
        Ok(Block::from_vec(&ka.args[0].block().unwrap().shape(), &o)?)
    })
    .unwrap();
    let z = Array::from_slice(&[0.0; 20], &[20], &[6]).unwrap();
    let g = x.map_blocks("rust.greater", &[&z], &[], Some(DType::Int64)).unwrap();
    assert_eq!(g.compute_vec::<i64>(&ctx).unwrap(), v.iter().map(|a| (*a > 0.0) as i64).collect::<Vec<_>>());
}

#[test]
fn panics_and_errors_become_kernel_errors() {
    let ctx = Context::new(2).unwrap();
    ctx.register_kernel("rust.panics", |_| panic!("kaboom {}", 42)).unwrap();
    ctx.register_kernel("rust.fails", |_| Err("no good".into())).unwrap();
    let x = Array::ones(&[10], &[3], DType::Float64).unwrap();
    let e = x.map_blocks("rust.panics", &[], &[], None).unwrap().compute(&ctx).unwrap_err();
    assert_eq!(e.status(), Status::Kernel);
    assert!(e.message().contains("kaboom 42"), "{}", e.message());
    let e = x.map_blocks("rust.fails", &[], &[], None).unwrap().compute(&ctx).unwrap_err();
    assert_eq!(e.code(), "CA_EKERNEL");
    assert!(e.message().contains("no good"), "{}", e.message());
    // the context still works afterwards
    assert_eq!(x.sum(&[], false).unwrap().compute_vec::<f64>(&ctx).unwrap(), vec![10.0]);
}

#[test]
fn bad_input_gives_clear_errors() {
    let e = Array::from_slice(&[1.0f64, 2.0], &[3], &[1]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let x = Array::ones(&[4, 5], &[2, 2], DType::Float64).unwrap();
    let e = x.sum(&[3], false).unwrap_err();
    assert_eq!(e.code(), "CA_EINVAL");
    assert!(e.message().contains('3'), "{}", e.message());
    let y = Array::ones(&[3, 5], &[2, 2], DType::Float64).unwrap();
    let e = x.try_add(&y).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(!e.message().is_empty());
    let ctx = Context::new(0).unwrap();
    let e = x.map_blocks("no.such.kernel", &[], &[], None).unwrap().compute(&ctx).unwrap_err();
    assert_eq!(e.code(), "CA_ENOTFOUND");
    assert!(e.message().contains("no.such.kernel"), "{}", e.message());
    assert_eq!(ctx.set_config("nope", "1").unwrap_err().code(), "CA_ENOTFOUND");
}

#[test]
fn errors_are_per_thread() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let x = Array::ones(&[4], &[2], DType::Float64).unwrap();
                let e = x.sum(&[5 + i], false).unwrap_err();
                assert!(e.message().contains(&(5 + i).to_string()), "{}", e.message());
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn compute_many_persist_svg_graph_npy() {
    let ctx = Context::new(2).unwrap();
    let v = data(30);
    let x = Array::from_slice(&v, &[30], &[7]).unwrap();
    let s = x.sum(&[], false).unwrap();
    let m = x.mean(&[], false).unwrap();
    let r = Array::compute_many(&ctx, &[&s, &m]).unwrap();
    close(r[0].as_slice::<f64>().unwrap(), &[v.iter().sum()]);
    close(r[1].as_slice::<f64>().unwrap(), &[v.iter().sum::<f64>() / 30.0]);
    let p = x.add_scalar(1.0).unwrap().persist(&ctx).unwrap();
    assert_eq!(p.chunks(), x.chunks());
    close(&p.compute_vec::<f64>(&ctx).unwrap(), &v.iter().map(|a| a + 1.0).collect::<Vec<_>>());
    assert!(x.to_svg(0).unwrap().starts_with("<svg"));
    let g = s.graph().unwrap();
    assert!(g.num_tasks() > 0 && g.num_layers() >= 2);
    assert!(g.to_dot().unwrap().contains("digraph"));
    let path = std::env::temp_dir().join(format!("chunkarray-rust-{}.npy", std::process::id()));
    let ps = path.to_str().unwrap();
    x.to_npy(&ctx, ps).unwrap();
    let back = Array::from_npy(ps).unwrap();
    assert_eq!(back.compute_vec::<f64>(&ctx).unwrap(), v);
    std::fs::remove_file(&path).ok();
}

#[test]
fn graph_and_array_files_when_available() {
    let ctx = Context::new(1).unwrap();
    let x = Array::arange(0.0, 12.0, 1.0, 5, DType::Float64).unwrap().mul_scalar(2.0).unwrap();
    let dir = std::env::temp_dir();
    let gp = dir.join(format!("chunkarray-rust-{}.graph", std::process::id()));
    let ap = dir.join(format!("chunkarray-rust-{}.array", std::process::id()));
    if graph_files() {
        let g = x.graph().unwrap();
        g.save(gp.to_str().unwrap()).unwrap();
        let h = Graph::load(gp.to_str().unwrap()).unwrap();
        assert_eq!(h.num_tasks(), g.num_tasks());
        assert_eq!(h.num_layers(), g.num_layers());
        std::fs::remove_file(&gp).ok();
    } else {
        assert_eq!(x.graph().unwrap().save(gp.to_str().unwrap()).unwrap_err().code(), "CA_EUNSUPPORTED");
    }
    if graph_files() {
        x.save(ap.to_str().unwrap()).unwrap();
        let y = Array::load(ap.to_str().unwrap()).unwrap();
        assert_eq!(y.name(), x.name());
        assert_eq!(y.chunks(), x.chunks());
        assert_eq!(y.compute_vec::<f64>(&ctx).unwrap(), (0..12).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
        std::fs::remove_file(&ap).ok();
    } else {
        assert_eq!(x.save(ap.to_str().unwrap()).unwrap_err().code(), "CA_EUNSUPPORTED");
    }
}

#[test]
fn save_with_context_records_kernel_versions() {
    if !graph_files() {
        eprintln!("skipped: this chunkarray was built without graph files (-Dcapnp=disabled)");
        return;
    }
    let ctx = Context::new(1).unwrap();
    ctx.register_kernel("rust.vtwice", |ka| {
        let b = ka.args[0].block().ok_or("not a block")?;
        let xs = b.as_slice::<f64>().ok_or("not float64")?;
        let out: Vec<f64> = xs.iter().map(|v| v * 2.0).collect();
        Ok(Block::from_vec(&b.shape(), &out)?)
    })
    .unwrap();
    let x = Array::arange(0.0, 6.0, 1.0, 4, DType::Float64).unwrap();
    let y = x.map_blocks("rust.vtwice", &[], &[], None).unwrap();
    let dir = std::env::temp_dir();
    let ap = dir.join(format!("chunkarray-rust-{}-v.array", std::process::id()));
    let gp = dir.join(format!("chunkarray-rust-{}-v.graph", std::process::id()));
    // With the context: the registered version (1) is recorded; without: user kernels are not.
    y.save_with_context(ap.to_str().unwrap(), &ctx).unwrap();
    let g = Graph::load(ap.to_str().unwrap()).unwrap();
    assert_eq!(g.kernel_version("rust.vtwice").unwrap(), 1);
    assert_eq!(g.kernel_version("no.such").unwrap_err().code(), "CA_ENOTFOUND");
    let z = Array::load(ap.to_str().unwrap()).unwrap();
    assert_eq!(z.compute_vec::<f64>(&ctx).unwrap(), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    y.graph().unwrap().save_with_context(gp.to_str().unwrap(), &ctx).unwrap();
    assert_eq!(Graph::load(gp.to_str().unwrap()).unwrap().kernel_version("rust.vtwice").unwrap(), 1);
    y.save(ap.to_str().unwrap()).unwrap();
    assert_eq!(Graph::load(ap.to_str().unwrap()).unwrap().kernel_version("rust.vtwice").unwrap(), 0);
    // A context without the kernel cannot record its version.
    let bare = Context::new(1).unwrap();
    let e = y.save_with_context(ap.to_str().unwrap(), &bare).unwrap_err();
    assert_eq!(e.code(), "CA_ENOTFOUND");
    assert!(e.message().contains("'rust.vtwice'"), "{}", e.message());
    std::fs::remove_file(&ap).ok();
    std::fs::remove_file(&gp).ok();
}

#[test]
fn operator_traits() {
    let ctx = Context::new(1).unwrap();
    let v = [1.0f64, 2.0, 3.0, 4.0, 5.0];
    let x = Array::from_slice(&v, &[5], &[3]).unwrap();
    let w = Array::from_slice(&[2.0f64, -1.0, 0.5, 4.0, 3.0], &[5], &[2]).unwrap();
    let y = &x * 2.0 + &x;
    assert_eq!(y.compute_vec::<f64>(&ctx).unwrap(), v.iter().map(|a| a * 3.0).collect::<Vec<_>>());
    let z = 10.0 - &x;
    assert_eq!(z.compute_vec::<f64>(&ctx).unwrap(), v.iter().map(|a| 10.0 - a).collect::<Vec<_>>());
    let n = -&x;
    assert_eq!(n.compute_vec::<f64>(&ctx).unwrap(), v.iter().map(|a| -a).collect::<Vec<_>>());
    // owned operands chain without references; ragged chunks on both sides
    let q = (x.clone() + w.clone()) * (&x - &w) / 2.0;
    let wv = w.compute_vec::<f64>(&ctx).unwrap();
    let want: Vec<f64> = v.iter().zip(&wv).map(|(a, b)| (a + b) * (a - b) / 2.0).collect();
    assert_eq!(q.compute_vec::<f64>(&ctx).unwrap(), want);
    let mut acc = x.clone();
    acc += &x;
    acc *= 3.0;
    acc -= 1.0;
    acc /= &w;
    let want: Vec<f64> = v.iter().zip(&wv).map(|(a, b)| (a * 2.0 * 3.0 - 1.0) / b).collect();
    assert_eq!(acc.compute_vec::<f64>(&ctx).unwrap(), want);
    let r = &x % 2.0;
    assert_eq!(r.compute_vec::<f64>(&ctx).unwrap(), vec![1.0, 0.0, 1.0, 0.0, 1.0]);
    let i = Array::arange(0.0, 7.0, 1.0, 3, DType::Int64).unwrap();
    assert_eq!((&i * 3 - 1).compute_vec::<i64>(&ctx).unwrap(), (0..7).map(|a| a * 3 - 1).collect::<Vec<i64>>());
    // shapes that do not broadcast: try_* gives the error, the operator panics with it
    let bad = Array::ones(&[4], &[2], DType::Float64).unwrap();
    let e = x.try_div(&bad).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| &x / &bad)).unwrap_err();
    let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("CA_EINVAL") && msg.contains(e.message()), "{}", msg);
}

#[test]
fn cancellation_and_progress() {
    let ctx = Context::new(2).unwrap();
    let started = Arc::new(AtomicUsize::new(0));
    let s2 = started.clone();
    ctx.register_kernel("rust.slow", move |ka| {
        s2.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(ka.args[0].block().ok_or("a block")?.retain())
    })
    .unwrap();
    let x = Array::ones(&[400], &[1], DType::Float64).unwrap().map_blocks("rust.slow", &[], &[], None).unwrap();
    let token = Arc::new(CancelToken::new().unwrap());
    assert!(!token.is_cancelled());
    let t2 = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(60));
        t2.cancel();
    });
    let t0 = std::time::Instant::now();
    let e = x.compute_with(&ctx, &mut ComputeOptions { cancel: Some(&token), ..Default::default() }).unwrap_err();
    canceller.join().unwrap();
    assert_eq!(e.status(), Status::Canceled, "{}", e);
    assert!(t0.elapsed() < std::time::Duration::from_secs(4), "{:?}", t0.elapsed());
    assert!(started.load(Ordering::SeqCst) < 400);
    assert!(token.is_cancelled());
    // a cancelled token stops every later computation until reset
    let e = x.persist_with(&ctx, &mut ComputeOptions { cancel: Some(&token), ..Default::default() }).unwrap_err();
    assert_eq!(e.status(), Status::Canceled);
    token.reset();
    // progress: called on this thread, last call reports done == total
    let y = Array::ones(&[12], &[1], DType::Float64).unwrap().map_blocks("rust.slow", &[], &[], None).unwrap();
    let mut calls = Vec::new();
    let mut record = |done: i64, total: i64| calls.push((done, total));
    let b = y
        .compute_with(&ctx, &mut ComputeOptions {
            cancel: Some(&token),
            progress: Some(&mut record),
            progress_interval: std::time::Duration::from_millis(1),
        })
        .unwrap();
    assert_eq!(b.as_slice::<f64>().unwrap(), &[1.0; 12][..]);
    assert!(!calls.is_empty());
    let (done, total) = *calls.last().unwrap();
    assert_eq!(done, total, "{:?}", calls);
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0), "{:?}", calls);
    // a panic in the progress callback is re-raised after the computation, not across C
    let mut bad = |_: i64, _: i64| panic!("progress panicked");
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = y.compute_with(&ctx, &mut ComputeOptions { progress: Some(&mut bad), ..Default::default() });
    }))
    .unwrap_err();
    assert_eq!(p.downcast_ref::<&str>().copied(), Some("progress panicked"));
}

// Every dtype the library makes reads back as itself (float16, datetime64/timedelta64 with their
// unit, S<n>/U<n> with their length): Array::dtype() once panicked on them.
#[test]
fn every_dtype_round_trips() {
    let units = [TimeUnit::Y, TimeUnit::M, TimeUnit::W, TimeUnit::D, TimeUnit::H, TimeUnit::Min, TimeUnit::S,
                 TimeUnit::Ms, TimeUnit::Us, TimeUnit::Ns, TimeUnit::Ps, TimeUnit::Fs, TimeUnit::As];
    let mut all = vec![DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8,
                       DType::UInt16, DType::UInt32, DType::UInt64, DType::Float32, DType::Float64,
                       DType::Complex64, DType::Complex128, DType::Float16, DType::Bytes(7), DType::Unicode(3)];
    for u in units {
        all.push(DType::DateTime64(u));
        all.push(DType::TimeDelta64(u));
    }
    for dt in all {
        assert_eq!(DType::from_code(dt.code()), Some(dt), "{:?}", dt);
        let z = Array::zeros(&[5, 3], &[2, 3], dt).unwrap_or_else(|e| panic!("{:?}: {}", dt, e));
        assert_eq!(z.dtype(), dt);
    }
    assert_eq!(DType::Float64.code(), 11);
    assert_eq!(DType::DateTime64(TimeUnit::Ns).code(), 0xA10); // NumPy's "<M8[ns]" (common.h)
    assert_eq!(DType::Unicode(8).code(), 0x813);
    for bad in [0, -1, 20, 15 | (1 << 8), 16, 18] {
        assert_eq!(DType::from_code(bad), None, "{}", bad);
    }
}

#[test]
fn array_api_promotion_and_exact_full() {
    let ctx = Context::new(0).unwrap();
    // the standard's table, from the C library
    assert_eq!(DType::Int8.promote_std(DType::UInt8).unwrap(), DType::Int16);
    assert_eq!(DType::UInt32.promote_std(DType::Int64).unwrap(), DType::Int64);
    assert_eq!(DType::Float32.promote_std(DType::Float64).unwrap(), DType::Float64);
    for (a, b) in [(DType::Int64, DType::Float32), (DType::Bool, DType::Int8), (DType::Int64, DType::UInt64)] {
        let e = a.promote_std(b).unwrap_err();
        assert_eq!(e.status(), Status::Type);
        let (na, nb) = (format!("{:?}", a).to_lowercase(), format!("{:?}", b).to_lowercase());
        assert!(e.message().contains(&na) && e.message().contains(&nb), "{}", e.message());
    }
    // binary ops under it, values against a plain loop on ragged chunks
    let x = Array::from_slice(&[-128i8, -1, 0, 5, 127], &[5], &[2]).unwrap();
    let y = Array::from_slice(&[255u8, 1, 0, 200, 128], &[5], &[3]).unwrap();
    let s = x.binary_std(BinaryOp::Add, &y).unwrap();
    assert_eq!(s.dtype(), DType::Int16);
    assert_eq!(s.compute_vec::<i16>(&ctx).unwrap(), vec![127i16, 0, 0, 205, 255]);
    let f = Array::full(&[5], &[2], DType::Float32, 1.5).unwrap();
    assert_eq!(x.binary_std(BinaryOp::Mul, &f).unwrap_err().status(), Status::Type);
    // each operation takes its dtype category (numpy.array_api's operand checks, in C)
    let e = x.binary_std(BinaryOp::Div, &x).unwrap_err();
    assert_eq!(e.status(), Status::Type);
    assert!(e.message().contains("floating-point dtypes under the array API standard, not int8"), "{}", e.message());
    // a scalar takes the array's dtype
    let x1 = x.binary_int_std(BinaryOp::Sub, 1, true).unwrap();
    assert_eq!(x1.dtype(), DType::Int8);
    assert_eq!(x1.compute_vec::<i8>(&ctx).unwrap(), vec![-127i8, 2, 1, -4, -126]);
    assert_eq!(x.binary_int_std(BinaryOp::Add, 200, false).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(x.binary_f64_std(BinaryOp::Add, 0.5, false).unwrap_err().status(), Status::Type);
    let fh = f.binary_f64_std(BinaryOp::Mul, 0.5, false).unwrap();
    assert_eq!(fh.dtype(), DType::Float32);
    assert_eq!(fh.compute_vec::<f32>(&ctx).unwrap(), vec![0.75f32; 5]);
    // floor_divide with the standard's special cases (CA_OP_FLOORDIV_STD) against the plain rule
    let num = Array::from_slice(&[f64::INFINITY, 1.0, -1.0, 7.0], &[4], &[3]).unwrap();
    let den = Array::from_slice(&[2.0f64, f64::INFINITY, f64::INFINITY, -2.0], &[4], &[2]).unwrap();
    let q = num.binary_std(BinaryOp::FloorDivStd, &den).unwrap().compute_vec::<f64>(&ctx).unwrap();
    assert_eq!(q[0], f64::INFINITY);
    assert!(q[1] == 0.0 && q[1].is_sign_positive());
    assert!(q[2] == 0.0 && q[2].is_sign_negative());
    assert_eq!(q[3], -4.0);
    // full with exact integers past 2**53
    let big = (1i64 << 53) + 1;
    for v in [big, -big, i64::MIN, i64::MAX] {
        assert_eq!(Array::full_i64(&[5], &[2], DType::Int64, v).unwrap().compute_vec::<i64>(&ctx).unwrap(), vec![v; 5]);
    }
    assert_eq!(Array::full_u64(&[3], &[2], DType::UInt64, u64::MAX).unwrap().compute_vec::<u64>(&ctx).unwrap(),
               vec![u64::MAX; 3]);
    let e = Array::full_i64(&[2], &[1], DType::Int8, 128).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("out of bounds for int8"), "{}", e.message());
}
