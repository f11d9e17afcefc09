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
