# Julia tests (not run in this repository's CI: there is no Julia toolchain; see README.md).
using Test
using ChunkArray

@testset "ChunkArray" begin
    ctx = Context(num_threads=2)
    A = reshape(collect(1.0:12.0), 3, 4)
    x = carray(A; chunks=[2, 3])
    @test size(x) == (3, 4)
    @test chunks(x) == [[2, 1], [3, 1]]
    @test compute(x, ctx) == A
    @test compute(x * 2.0 + 1.0, ctx) == A .* 2 .+ 1
    @test compute(sum(x), ctx)[] == sum(A)
    @test vec(compute(sum(x; dims=1), ctx)) == vec(sum(A; dims=1))
    @test compute(ChunkArray.cumsum_axis(x, 2), ctx) == cumsum(A; dims=2)
    @test chunks(rechunk(x, [3, 2])) == [[3], [2, 2]]
    register_kernel(ctx, "jl.scale", (b, k) -> b .* k)
    @test compute(map_blocks("jl.scale", x; extra=[3.0]), ctx) == A .* 3
    register_kernel(ctx, "jl.fail", b -> error("no good"))
    err = try
        compute(map_blocks("jl.fail", x), ctx); nothing
    catch e
        e
    end
    @test err isa ChunkArrayError && err.code == "CA_EKERNEL" && occursin("no good", err.message)
    @test_throws ChunkArrayError sum(x; dims=5)
    @test startswith(to_svg(x), "<svg")
    @test occursin("digraph", to_dot(graph(x)))
    close(ctx)
end

# The seed's low level: Graph, add_task!, CArray(graph, name, chunks, T), through the README's eye
# and diag (examples/custom_array.jl), against plain loops.
include(joinpath(@__DIR__, "..", "examples", "custom_array.jl"))

@testset "custom arrays" begin
    ctx = Context(num_threads=0)
    register_numpy_kernels(ctx)
    for (n, bs) in ((6, 2), (7, 3), (5, 8), (1, 1), (10, 4), (0, 3))
        e = eye(n, bs)
        want = fill(bs, n ÷ bs)
        (n % bs != 0 || n == 0) && push!(want, n % bs)
        @test chunks(e) == [want, want]
        @test compute(e, ctx) == [i == j ? 1.0 : 0.0 for i in 1:n, j in 1:n]
    end
    vals = collect(0:10) .* 1.5 .- 4.0
    for c in ([11], [4, 4, 3], [1, 2, 3, 5])
        d = diag(rechunk_to(carray(vals; chunks=[11]), [c]))
        @test chunks(d) == [c, c]
        @test compute(d, ctx) == [i == j ? vals[i] : 0.0 for i in 1:11, j in 1:11]
    end
    # literals of every kind reach a kernel decoded
    register_kernel(ctx, "jl.echo", (args...) -> Float64[length(repr(a)) for a in args])
    g = Graph()
    add_task!(g, Key("a", 0), "jl.echo", 7, 0.5, "four", UInt8[1, 2], (10, 20), Any[1, nothing], nothing)
    @test haskey(g, Key("a", 0)) && !haskey(g, Key("a", 1)) && layers(g) == ["a"]
    @test length(compute(CArray(g, "a", [[7]], Float64), ctx)) == 7
    # errors name the problem
    err(f) = try f(); nothing catch e; e end
    @test err(() -> add_task!(g, Key("a", 0), "jl.echo")).code == "CA_EEXISTS"
    @test err(() -> add_task!(g, Key("a", 0, 0), "jl.echo")).code == "CA_EINVAL"
    e = err(() -> CArray(g, "a", [[7, 1]], Float64))
    @test e.code == "CA_ENOTFOUND" && occursin("('a', 1)", e.message)
    @test string(Key("a", 0, 1)) == "('a', 0, 1)"
    close(ctx)
end

@testset "cancellation" begin
    ctx = Context(num_threads=0)
    register_kernel(ctx, "jl.same", b -> b)
    x = map_blocks("jl.same", cones(Float64, (10,); chunks=[1]))
    t = CancelToken()
    @test !iscancelled(t)
    @test compute(x, ctx; cancel=t) == ones(10)
    cancel!(t)
    @test iscancelled(t)
    e = try compute(x, ctx; cancel=t); nothing catch err; err end
    @test e isa ChunkArrayError && e.code == "CA_ECANCELED"
    e = try persist(x, ctx; cancel=t); nothing catch err; err end
    @test e isa ChunkArrayError && e.code == "CA_ECANCELED"
    ChunkArray.reset!(t)
    @test compute_many(ctx, x; cancel=t)[1] == ones(10)
    close(t)
    close(ctx)
end
