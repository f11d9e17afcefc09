//! The bindings' common pipeline in Rust: create, elementwise, reduce, a Rust kernel, save the graph.
//!     CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 cargo run --offline --example pipeline [out-dir]
use chunkarray::*;

fn main() -> Result<()> {
    let out_dir = std::env::args().nth(1).unwrap_or_else(|| std::env::temp_dir().to_string_lossy().into_owned());
    let ctx = Context::new(-1)?;
    let x = Array::random_uniform(&[2000, 1500], &[500, 400], 1, 0.0, 1.0)?; // create
    let y = x.sqrt()?.mul_scalar(2.0)?.add_scalar(1.0)?; // elementwise (fused)
    let col_means = y.mean(&[0], false)?; // reduce
    ctx.register_kernel("pipeline.threshold", |ka| {
        // a user kernel written in Rust
        let b = ka.args[0].block().ok_or("expected a block")?;
        let t = ka.args[1].as_f64().ok_or("expected a threshold")?;
        let v: Vec<f64> = b.as_slice::<f64>().ok_or("expected float64")?.iter().map(|&a| if a > t { a } else { 0.0 }).collect();
        Ok(Block::from_vec(&b.shape(), &v)?)
    })?;
    let z = y.map_blocks("pipeline.threshold", &[], &[Literal::Float(2.0)], None)?;
    let total = y.sum(&[], false)?;
    let zsum = z.sum(&[], false)?;
    let r = Array::compute_many(&ctx, &[&total, &col_means, &zsum])?;
    let (t, m, k) = (r[0].as_slice::<f64>().unwrap()[0], r[1].as_slice::<f64>().unwrap()[0], r[2].as_slice::<f64>().unwrap()[0]);
    assert!(k <= t && t > 0.0);
    println!("sum={:.6} mean[0]={:.6} kernel-sum={:.6}", t, m, k);
    let g = col_means.graph()?;
    let p = format!("{}/pipeline-rust.graph", out_dir);
    match g.save(&p) {
        Ok(()) => println!("graph saved to {}", p),
        // a library built without graph files (-Dcapnp=disabled)
        Err(e) if e.status() == Status::Unsupported => {
            let p = format!("{}/pipeline-rust.dot", out_dir);
            std::fs::write(&p, g.to_dot()?)?;
            println!("{}; graphviz dot written to {} instead", e.message(), p);
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
