# dask's "custom array function" in Julia: eye and diag written as a graph of tasks keyed
# (name, i, j), then an array over them (dask's Array(graph, name, chunks, dtype)), the way dask's
# documentation builds them and examples/eye.c and examples/diag.c do in C.
#     CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 julia --project=bindings/julia bindings/julia/examples/custom_array.jl
# test/runtests.jl includes this file and checks eye and diag against plain loops.
#
# dask:
#     def eye(n, blocksize):
#         chunks = ((blocksize,) * (n // blocksize), (blocksize,) * (n // blocksize))
#         name = 'eye' + next(tokens)
#         dsk = {(name, i, j): (np.eye, blocksize) if i == j else (np.zeros, (blocksize, blocksize))
#                for i in range(n // blocksize) for j in range(n // blocksize)}
#         return Array(dsk, name, chunks, np.eye(0).dtype)
#
#     def diag(v):                                  # v: a chunked 1-d array
#         name = 'diag-' + tokenize(v)
#         dsk = {(name, i, j): (np.diag, (v.name, i)) if i == j else (np.zeros, (m, n))
#                for i, m in enumerate(v.chunks[0]) for j, n in enumerate(v.chunks[0])}
#         graph = HighLevelGraph.from_collections(name, dsk, dependencies=[v])
#         return Array(graph, name, (v.chunks[0], v.chunks[0]), v.dtype)
#
# Keys are 0-based block indices, as in dask. eye here also takes a last, smaller block when
# blocksize does not divide n.
using ChunkArray

"np.eye, np.zeros and np.diag as Julia kernels (blocks arrive as Julia arrays, tuples as Tuples)."
function register_numpy_kernels(ctx)
    register_kernel(ctx, "np.eye", n -> [i == j ? 1.0 : 0.0 for i in 1:n, j in 1:n])
    register_kernel(ctx, "np.zeros", (shape, dtype) -> zeros(dtype == "int64" ? Int64 : Float64, shape...))
    register_kernel(ctx, "np.diag", v -> (M = zeros(eltype(v), length(v), length(v));
                                          for i in eachindex(v); M[i, i] = v[i]; end; M))
end

"dask's eye(n, blocksize): the n x n identity in blocks of blocksize."
function eye(n::Integer, blocksize::Integer)
    (n >= 0 && blocksize > 0) || throw(ArgumentError("eye($n, $blocksize): n >= 0 and blocksize > 0"))
    sizes = fill(Int64(blocksize), n ÷ blocksize)
    (n % blocksize != 0 || n == 0) && push!(sizes, n % blocksize)
    name = "eye-$n-$blocksize"
    g = Graph()
    for (i, m) in enumerate(sizes), (j, k) in enumerate(sizes)
        key = Key(name, i - 1, j - 1)
        if i == j
            add_task!(g, key, "np.eye", m)
        else
            add_task!(g, key, "np.zeros", (m, k), "float64")
        end
    end
    CArray(g, name, [sizes, sizes], Float64)
end

"dask's diag(v) of a chunked 1-d array v: tasks reference v's blocks (name(v), i)."
function diag(v::CArray)
    c = chunks(v)[1]
    dname = "diag-" * name(v)
    zeros_dtype = eltype(v) == Int64 ? "int64" : "float64"
    g = graph(v)                                   # v's layers
    for (i, m) in enumerate(c), (j, n) in enumerate(c)
        key = Key(dname, i - 1, j - 1)
        if i == j
            add_task!(g, key, "np.diag", Key(name(v), i - 1))
        else
            add_task!(g, key, "np.zeros", (m, n), zeros_dtype)
        end
    end
    CArray(g, dname, [c, c], eltype(v))
end

if abspath(PROGRAM_FILE) == @__FILE__
    ctx = Context(num_threads=-1)     # Julia >= 1.9 (kernels on worker threads); else num_threads=0
    register_numpy_kernels(ctx)
    e = eye(6, 2)
    println("eye(6, 2): chunks ", chunks(e))
    E = compute(e, ctx)
    display(E); println()
    @assert E == [i == j ? 1.0 : 0.0 for i in 1:6, j in 1:6]
    v = rechunk_to(carray(collect(Int64, 0:8); chunks=[9]), [[2, 3, 4]])
    d = diag(v)
    println("diag(0:8): chunks ", chunks(d))
    D = compute(d, ctx)
    display(D); println()
    @assert D == [i == j ? i - 1 : 0 for i in 1:9, j in 1:9]
    close(ctx)
end
