# The bindings' common pipeline in Julia: create, elementwise, reduce, a Julia kernel, save the graph.
#     CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 julia --project=bindings/julia bindings/julia/examples/pipeline.jl [out-dir]
using ChunkArray

out_dir = length(ARGS) > 0 ? ARGS[1] : tempdir()
ctx = Context(num_threads=-1)
x = crandom((2000, 1500); chunks=[500, 400], seed=1)          # create
y = sqrt(x) * 2.0 + 1.0                                        # elementwise (fused)
col_means = ChunkArray.mean(y; dims=1)                         # reduce
register_kernel(ctx, "pipeline.threshold", (b, t) -> map(v -> v > t ? v : 0.0, b))   # a Julia kernel
z = map_blocks("pipeline.threshold", y; extra=[2.0])
total, means, zsum = compute_many(ctx, sum(y), col_means, sum(z))
@assert zsum[] <= total[] && total[] > 0
println("sum=$(total[]) mean[1]=$(means[1]) kernel-sum=$(zsum[])")
g = graph(col_means)
if has_function(:ca_graph_save)
    save_graph(g, joinpath(out_dir, "pipeline-julia.graph"))
else
    write(joinpath(out_dir, "pipeline-julia.dot"), to_dot(g))
end
close(ctx)
