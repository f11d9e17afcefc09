//! The seed's low level from Rust: Graph::new/add_task and Array::new, through the README's eye and
//! diag (examples/custom_array.rs, included here), checked against plain loops.
use chunkarray::*;

#[path = "../examples/custom_array.rs"]
mod custom_array;
use custom_array::{diag, eye, register_numpy_kernels};

fn ctx() -> Context {
    let c = Context::new(2).unwrap();
    register_numpy_kernels(&c).unwrap();
    c
}

#[test]
fn eye_matches_the_identity_even_and_ragged() {
    let ctx = ctx();
    for &(n, bs) in &[(6, 2), (7, 3), (5, 5), (5, 8), (1, 1), (4, 1), (10, 4), (0, 3)] {
        let e = eye(n, bs).unwrap();
        assert_eq!(e.shape(), vec![n, n]);
        let mut want_chunks = vec![bs; (n / bs) as usize];
        if n % bs != 0 || n == 0 {
            want_chunks.push(n % bs);
        }
        assert_eq!(e.chunks(), vec![want_chunks.clone(), want_chunks.clone()], "eye({}, {})", n, bs);
        assert_eq!(e.dtype(), DType::Float64);
        let got = e.compute_vec::<f64>(&ctx).unwrap();
        let mut want = vec![0.0; (n * n) as usize];
        for i in 0..n {
            want[(i * n + i) as usize] = 1.0;
        }
        assert_eq!(got, want, "eye({}, {})", n, bs);
        // the array composes with the library's operations: trace and a product with a ramp
        let trace = e.sum(&[], false).unwrap().compute_vec::<f64>(&ctx).unwrap();
        assert_eq!(trace, vec![n as f64]);
        let ramp = Array::arange(0.0, n as f64, 1.0, 3, DType::Float64).unwrap();
        let scaled = (&e * &ramp).sum(&[0], false).unwrap().compute_vec::<f64>(&ctx).unwrap();
        assert_eq!(scaled, (0..n).map(|i| i as f64).collect::<Vec<_>>());
    }
}

#[test]
fn diag_matches_a_loop_on_ragged_chunks() {
    let ctx = ctx();
    // float64, ragged blocks from a library array
    let vals: Vec<f64> = (0..11).map(|i| (i as f64) * 1.5 - 4.0).collect();
    for chunks in [vec![11], vec![4, 4, 3], vec![1, 2, 3, 5], vec![1; 11]] {
        let v = Array::from_slice(&vals, &[11], &[11]).unwrap().rechunk_to(std::slice::from_ref(&chunks)).unwrap();
        let d = diag(&v).unwrap();
        assert_eq!(d.chunks(), vec![chunks.clone(), chunks.clone()]);
        let got = d.compute_vec::<f64>(&ctx).unwrap();
        let mut want = vec![0.0; 121];
        for i in 0..11 {
            want[i * 11 + i] = vals[i];
        }
        assert_eq!(got, want, "chunks {:?}", chunks);
    }
    // int64 from arange, and diag of a diag's row sums (diag composes with reductions)
    let v = Array::arange(0.0, 9.0, 1.0, 4, DType::Int64).unwrap();
    let d = diag(&v).unwrap();
    assert_eq!(d.dtype(), DType::Int64);
    let rows = d.sum(&[1], false).unwrap();
    assert_eq!(rows.compute_vec::<i64>(&ctx).unwrap(), (0..9).collect::<Vec<i64>>());
    let dd = diag(&rows).unwrap().compute_vec::<i64>(&ctx).unwrap();
    assert_eq!(dd, d.compute_vec::<i64>(&ctx).unwrap());
}

#[test]
fn graph_builder_keys_literals_and_layers() {
    let ctx = Context::new(0).unwrap();
    // a kernel that echoes its literals into a block: int, float, string length, tuple, list, None
    ctx.register_kernel("t.echo", |ka| {
        let mut out = Vec::new();
        for a in &ka.args {
            match a {
                Value::None => out.push(-1.0),
                Value::Int(i) => out.push(*i as f64),
                Value::Float(f) => out.push(*f),
                Value::Str(s) => out.push(s.len() as f64),
                Value::Bytes(b) => out.push(b.iter().map(|&x| x as f64).sum()),
                Value::Tuple(t) => out.extend(t.iter().map(|&x| x as f64)),
                Value::List(l) => out.push(l.len() as f64),
                Value::Block(b) => out.extend_from_slice(b.as_slice::<f64>().ok_or("float64 block")?),
                Value::Other(k) => return Err(format!("unexpected kind {}", k).into()),
            }
        }
        Ok(Block::from_vec(&[out.len() as i64], &out)?)
    })
    .unwrap();
    let mut g = Graph::new().unwrap();
    assert_eq!(g.num_tasks(), 0);
    let a0 = Key::new("a", &[0]);
    let a1 = Key::new("a", &[1]);
    let args = [
        Arg::Int(7),
        Arg::Float(0.5),
        Arg::from("four"),
        Arg::Bytes(vec![1, 2, 3]),
        Arg::tuple(&[10, 20]),
        Arg::List(vec![Arg::Int(1), Arg::None, Arg::List(vec![])]),
        Arg::None,
    ];
    g.add_task(&a0, "t.echo", &args).unwrap();
    // a task referencing another: the kernel receives a0's result as a block
    g.add_task(&a1, "t.echo", &[Arg::Key(a0.clone()), Arg::Int(99)]).unwrap();
    assert!(g.contains_key(&a0) && g.contains_key(&a1));
    assert!(!g.contains_key(&Key::new("a", &[2])));
    assert_eq!(g.num_tasks(), 2);
    assert_eq!(g.layers().unwrap(), vec!["a".to_string()]);
    let first = vec![7.0, 0.5, 4.0, 6.0, 10.0, 20.0, 3.0, -1.0];
    let x = Array::new(&g, "a", &[vec![8, 9]], DType::Float64).unwrap();
    let mut want = first.clone();
    want.extend(&first);
    want.push(99.0);
    assert_eq!(x.compute_vec::<f64>(&ctx).unwrap(), want);

    // a 0-d array: one task with an empty index
    let mut g0 = Graph::new().unwrap();
    g0.add_task(&Key::new("s", &[]), "t.echo", &[]).unwrap();
    ctx.register_kernel("t.scalar", |_| Ok(Block::from_vec(&[], &[2.5f64])?)).unwrap();
    let mut g1 = Graph::new().unwrap();
    g1.add_task(&Key::new("s1", &[]), "t.scalar", &[]).unwrap();
    let s = Array::new(&g1, "s1", &[], DType::Float64).unwrap();
    assert_eq!(s.ndim(), 0);
    assert_eq!(s.compute_vec::<f64>(&ctx).unwrap(), vec![2.5]);

    // merge: one graph holding both layers, and an array over each
    g.merge(&g1).unwrap();
    let mut layers = g.layers().unwrap();
    layers.sort();
    assert_eq!(layers, vec!["a".to_string(), "s1".to_string()]);
    let s2 = Array::new(&g, "s1", &[], DType::Float64).unwrap();
    assert_eq!(s2.compute_vec::<f64>(&ctx).unwrap(), vec![2.5]);
    // the array does not see later changes to the graph
    let copy = g.copy().unwrap();
    g.add_task(&Key::new("a", &[2]), "t.echo", &[]).unwrap();
    assert!(!copy.contains_key(&Key::new("a", &[2])));
    assert_eq!(x.compute_vec::<f64>(&ctx).unwrap(), want);
    assert_eq!(Key::new("a", &[0, 1]).to_string(), "('a', 0, 1)");
}

#[test]
fn bad_graphs_and_arrays_are_named_errors() {
    let mut g = Graph::new().unwrap();
    let k = Key::new("e", &[0, 0]);
    g.add_task(&k, "np.eye", &[Arg::Int(2)]).unwrap();
    // duplicate key
    let e = g.add_task(&k, "np.eye", &[Arg::Int(2)]).unwrap_err();
    assert_eq!(e.status(), Status::Exists, "{}", e);
    // index count differs from the layer's
    let e = g.add_task(&Key::new("e", &[1]), "np.eye", &[]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    // empty name and NUL bytes
    assert_eq!(g.add_task(&Key::new("", &[0]), "k", &[]).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(g.add_task(&Key::new("x\0y", &[0]), "k", &[]).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(g.add_task(&Key::new("x", &[0]), "k", &[Arg::from("a\0b")]).unwrap_err().status(),
               Status::InvalidArgument);
    // a chunk grid needing a key the graph does not have: the message names it
    let e = Array::new(&g, "e", &[vec![2, 2], vec![2]], DType::Float64).unwrap_err();
    assert_eq!(e.status(), Status::NotFound, "{}", e);
    assert!(e.message().contains("('e', 1, 0)"), "{}", e);
    // a layer that does not exist, negative block sizes, an invalid dtype
    assert_eq!(Array::new(&g, "nope", &[vec![2]], DType::Float64).unwrap_err().status(), Status::NotFound);
    let e = Array::new(&g, "e", &[vec![-2], vec![2]], DType::Float64).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    let ok = Array::new(&g, "e", &[vec![2], vec![2]], DType::Float64).unwrap();
    assert_eq!(ok.shape(), vec![2, 2]);
    // the Error type: status enum, code name, Display, std::error::Error, round trip of codes
    let e = Array::new(&g, "nope", &[vec![2]], DType::Float64).unwrap_err();
    assert_eq!(e.code(), "CA_ENOTFOUND");
    assert_eq!(e.status().code(), -3);
    assert!(e.to_string().starts_with("CA_ENOTFOUND: "), "{}", e);
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
    assert!(boxed.to_string().contains("nope"));
    for c in -13..=-1 {
        assert_eq!(Status::from_code(c).code(), c);
        assert_ne!(Status::from_code(c).name(), "CA_E?");
    }
    assert_eq!(Status::from_code(-99), Status::Unknown(-99));
    // a kernel missing at compute time names the kernel
    let ctx = Context::new(0).unwrap();
    let e = ok.compute(&ctx).unwrap_err();
    assert_eq!(e.status(), Status::NotFound);
    assert!(e.message().contains("np.eye"), "{}", e);
}

#[test]
fn send_and_sync_where_true() {
    fn both<T: Send + Sync>() {}
    both::<Array>();
    both::<Graph>();
    both::<Context>();
    both::<Block>();
    both::<Error>();
    // one eye computed from several threads at once
    let ctx = std::sync::Arc::new(ctx());
    let e = std::sync::Arc::new(eye(9, 4).unwrap());
    let hs: Vec<_> = (0..3)
        .map(|_| {
            let (ctx, e) = (ctx.clone(), e.clone());
            std::thread::spawn(move || e.sum(&[], false).unwrap().compute_vec::<f64>(&ctx).unwrap()[0])
        })
        .collect();
    for h in hs {
        assert_eq!(h.join().unwrap(), 9.0);
    }
}
