//! dask's "custom array function" in Rust: `eye` and `diag` written as a graph of tasks keyed
//! `(name, i, j)`, then an array over them (dask's `Array(graph, name, chunks, dtype)`), the way
//! dask's documentation builds them and examples/eye.c and examples/diag.c do in C.
//!
//!     CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 cargo run --offline --example custom_array
//!
//! dask:
//!
//! ```python
//! def eye(n, blocksize):
//!     chunks = ((blocksize,) * (n // blocksize), (blocksize,) * (n // blocksize))
//!     name = 'eye' + next(tokens)
//!     dsk = {(name, i, j): (np.eye, blocksize) if i == j else (np.zeros, (blocksize, blocksize))
//!            for i in range(n // blocksize) for j in range(n // blocksize)}
//!     return Array(dsk, name, chunks, np.eye(0).dtype)
//!
//! def diag(v):                                  # v: a chunked 1-d array
//!     name = 'diag-' + tokenize(v)
//!     dsk = {(name, i, j): (np.diag, (v.name, i)) if i == j else (np.zeros, (m, n))
//!            for i, m in enumerate(v.chunks[0]) for j, n in enumerate(v.chunks[0])}
//!     graph = HighLevelGraph.from_collections(name, dsk, dependencies=[v])
//!     return Array(graph, name, (v.chunks[0], v.chunks[0]), v.dtype)
//! ```
//!
//! `eye` here also takes a last, smaller block when `blocksize` does not divide `n` (dask's version
//! needs it to divide).
use chunkarray::{Arg, Array, Block, Context, DType, Error, Graph, Key, KernelArgs, KernelResult, Result, Status, Value};

/// np.eye(n): a float64 identity block.
fn np_eye(ka: &KernelArgs<'_>) -> KernelResult {
    let n = match ka.args.as_slice() {
        [Value::Int(n)] if *n >= 0 => *n,
        _ => return Err("np.eye takes one size >= 0".into()),
    };
    let mut v = vec![0.0f64; (n * n) as usize];
    for i in 0..n {
        v[(i * n + i) as usize] = 1.0;
    }
    Ok(Block::from_vec(&[n, n], &v)?)
}

/// np.zeros(shape, dtype): a block of zeros; the dtype is a string literal ("float64", "int64").
fn np_zeros(ka: &KernelArgs<'_>) -> KernelResult {
    match ka.args.as_slice() {
        [Value::Tuple(shape), Value::Str("float64")] => Ok(Block::zeros(shape, DType::Float64)?),
        [Value::Tuple(shape), Value::Str("int64")] => Ok(Block::zeros(shape, DType::Int64)?),
        _ => Err("np.zeros takes a shape tuple and 'float64' or 'int64'".into()),
    }
}

/// np.diag(v): a square block with the 1-d block v (float64 or int64) on its diagonal.
fn np_diag(ka: &KernelArgs<'_>) -> KernelResult {
    let b = match ka.args.as_slice() {
        [Value::Block(b)] if b.shape().len() == 1 => b,
        _ => return Err("np.diag takes one 1-d block".into()),
    };
    fn square<T: chunkarray::Element + Default>(d: &[T]) -> chunkarray::Result<Block> {
        let n = d.len();
        let mut v = vec![T::default(); n * n];
        for (i, x) in d.iter().enumerate() {
            v[i * n + i] = *x;
        }
        Block::from_vec(&[n as i64, n as i64], &v)
    }
    if let Some(d) = b.as_slice::<f64>() {
        Ok(square(d)?)
    } else if let Some(d) = b.as_slice::<i64>() {
        Ok(square(d)?)
    } else {
        Err(format!("np.diag: dtype {:?} is not float64 or int64", b.dtype()).into())
    }
}

/// Registers the three kernels (Rust closures or functions) the graphs below call.
pub fn register_numpy_kernels(ctx: &Context) -> Result<()> {
    ctx.register_kernel("np.eye", np_eye)?;
    ctx.register_kernel("np.zeros", np_zeros)?;
    ctx.register_kernel("np.diag", np_diag)
}

/// dask's `eye(n, blocksize)`: the n x n identity in blocks of `blocksize` (the last one smaller
/// if `blocksize` does not divide `n`; one empty block if `n` is 0, as dask's normalize_chunks).
pub fn eye(n: i64, blocksize: i64) -> Result<Array> {
    if n < 0 || blocksize <= 0 {
        return Err(Error::new(Status::InvalidArgument, format!("eye({}, {}): n >= 0 and blocksize > 0", n, blocksize)));
    }
    let mut sizes = vec![blocksize; (n / blocksize) as usize];
    if n % blocksize != 0 || n == 0 {
        sizes.push(n % blocksize);
    }
    let name = format!("eye-{}-{}", n, blocksize);
    let mut g = Graph::new()?;
    for (i, &m) in sizes.iter().enumerate() {
        for (j, &k) in sizes.iter().enumerate() {
            let key = Key::new(name.as_str(), &[i as i64, j as i64]);
            if i == j {
                g.add_task(&key, "np.eye", &[Arg::Int(m)])?;
            } else {
                g.add_task(&key, "np.zeros", &[Arg::tuple(&[m, k]), Arg::from("float64")])?;
            }
        }
    }
    Array::new(&g, &name, &[sizes.clone(), sizes], DType::Float64)
}

/// dask's `diag(v)` of a chunked 1-d array `v`: the tasks reference v's blocks `(v.name, i)`, and the
/// graph starts from v's own layers (`HighLevelGraph.from_collections(..., dependencies=[v])`).
pub fn diag(v: &Array) -> Result<Array> {
    let c = v.chunks().remove(0);
    let name = format!("diag-{}", v.name());
    let zeros_dtype = if v.dtype() == DType::Int64 { "int64" } else { "float64" };
    let mut g = v.graph()?;
    for (i, &m) in c.iter().enumerate() {
        for (j, &n) in c.iter().enumerate() {
            let key = Key::new(name.as_str(), &[i as i64, j as i64]);
            if i == j {
                g.add_task(&key, "np.diag", &[Arg::key(v.name(), &[i as i64])])?;
            } else {
                g.add_task(&key, "np.zeros", &[Arg::tuple(&[m, n]), Arg::from(zeros_dtype)])?;
            }
        }
    }
    Array::new(&g, &name, &[c.clone(), c], v.dtype())
}

/// The chunks as NumPy/dask print them: ((2, 2, 2), (2, 2, 2)).
fn chunks_str(a: &Array) -> String {
    let dims: Vec<String> = a
        .chunks()
        .iter()
        .map(|c| {
            let s: Vec<String> = c.iter().map(|x| x.to_string()).collect();
            if s.len() == 1 { format!("({},)", s[0]) } else { format!("({})", s.join(", ")) }
        })
        .collect();
    format!("({})", dims.join(", "))
}

#[allow(dead_code)] // the tests include this file for eye and diag
fn main() -> Result<()> {
    let ctx = Context::new(-1)?;
    register_numpy_kernels(&ctx)?;

    let e = eye(6, 2)?;
    println!("eye(6, 2): chunks {}", chunks_str(&e));
    let got = e.compute_vec::<f64>(&ctx)?;
    for i in 0..6 {
        let row: Vec<String> = (0..6).map(|j| format!("{}.", got[i * 6 + j])).collect();
        println!("  [{}]", row.join(" "));
        for j in 0..6 {
            assert_eq!(got[i * 6 + j], if i == j { 1.0 } else { 0.0 }, "eye(6, 2)[{}, {}]", i, j);
        }
    }

    // v = arange(9, chunks=(2, 3, 4)): ragged blocks
    let v = Array::arange(0.0, 9.0, 1.0, 4, DType::Int64)?.rechunk_to(&[vec![2, 3, 4]])?;
    let d = diag(&v)?;
    println!("diag(arange(9)): chunks {}", chunks_str(&d));
    let got = d.compute_vec::<i64>(&ctx)?;
    for i in 0..9 {
        for j in 0..9 {
            assert_eq!(got[i * 9 + j], if i == j { i as i64 } else { 0 }, "diag[{}, {}]", i, j);
        }
    }
    // the trace through the library's own reduction: sum(diag(v)) == sum(v) == 36
    println!("sum(diag(arange(9))) = {}", d.sum(&[], false)?.compute_vec::<i64>(&ctx)?[0]);
    Ok(())
}
