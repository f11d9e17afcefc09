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

@testset "random with array parameters" begin
    ctx = Context(2)
    shp = cfull(Float64, (40, 6), 2.5)
    a = crandom_params(8, (40, 6), [shp, nothing]; chunks=15, seed=9, params=(0.0, 2.0))   # gamma
    b = crandom_params(8, (40, 6), Any[]; chunks=15, seed=9, params=(2.5, 2.0))
    @test compute(a, ctx) == compute(b, ctx)
    err(f) = try f(); nothing catch e; e end
    sc = carray([1.0, -1.0])
    g = crandom_params(8, (2,), [nothing, sc]; params=(1.0,))
    @test occursin("scale < 0", err(() -> compute(g, ctx)).message)
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

# Issue 16's functions against plain Julia (values NumPy gives for the same calls).
@testset "issue 16 routines" begin
    ctx = Context(num_threads=2)
    v = [(i * 37 % 101) / 7 - 5 for i in 0:12]
    x = carray(v; chunks=[5])
    @test compute(cbrt(x), ctx) ≈ cbrt.(v)
    @test compute(exp2(x), ctx) ≈ exp2.(v)
    @test compute(fabs(x), ctx) == abs.(v)
    @test compute(fix(x), ctx) == trunc.(v)
    @test compute(radians(x), ctx) ≈ deg2rad.(v)
    @test compute(sinc(x), ctx) ≈ sinc.(v)
    @test compute(signbit(x), ctx) == signbit.(v)
    @test chunks(cbrt(x)) == [[5, 5, 3]]
    w = reverse(v)
    y = carray(w; chunks=[4])
    @test compute(hypot(x, y), ctx) ≈ hypot.(v, w)
    @test compute(fmax(x, y), ctx) == max.(v, w)
    @test compute(rem(x, y), ctx) ≈ rem.(v, w)
    @test compute(copysign(x, y), ctx) == copysign.(v, w)
    @test compute(logaddexp(x, y), ctx) ≈ log.(exp.(v) .+ exp.(w))
    m, e = frexp(carray([8.0, -3.0, 0.1]; chunks=[2]))
    @test compute(m, ctx) ≈ [0.5, -0.75, 0.8] && compute(e, ctx) == Int32[4, 2, -3]
    @test compute(isclose(carray([1.0, NaN]), carray([1.0 + 1e-9, NaN]); equal_nan=true), ctx) == [true, true]
    @test compute(allclose(x, x), ctx)[] == true
    @test compute(nan_to_num(carray([NaN, Inf, 1.0])), ctx) == [0.0, floatmax(Float64), 1.0]
    # order statistics (dims are Julia's; the reduced dim becomes one chunk)
    A = reshape([(i * 37 % 101) / 7 - 5 for i in 0:(13 * 17 - 1)], 13, 17)
    a = carray(A; chunks=[5, 4])
    med = median(a; dims=2)
    @test chunks(med) == [[5, 5, 3]]
    sortedrow(r) = sort(collect(r))
    @test compute(med, ctx) ≈ [(s = sortedrow(A[i, :]); s[9]) for i in 1:13]
    @test compute(quantile(a, [0.0, 1.0]; dims=1), ctx) ≈ vcat(minimum(A; dims=1), maximum(A; dims=1))
    @test compute(percentile(carray(collect(0.0:9.0)), 50; method=:lower), ctx)[] == 4.0
    @test eltype(median(carray(Float32[1, 2, 4]))) == Float32
    # creation
    @test compute(zeros_like(a; eltype=Int32), ctx) == zeros(Int32, 13, 17)
    @test compute(full_like(a, 2.7; eltype=Int64, shape=(5,), chunks=[[2, 3]]), ctx) == fill(2, 5)
    @test chunks(indices(Int64, (3, 4); chunks=[2, 3])) == [[1, 1], [2, 1], [3, 1]]
    @test compute(indices(Int64, (3, 4)), ctx)[1, :, :] == [i for i in 0:2, j in 0:3]
    g = meshgrid(carray(collect(0:2)), carray(collect(10:13)))
    @test size(g[1]) == (4, 3) && compute(g[2], ctx) == [i for i in 10:13, j in 0:2]
    b = broadcast_arrays(carray(reshape([1.0, 2.0, 3.0], 3, 1)), carray([10.0, 20.0, 30.0, 40.0]))
    @test size(b[1]) == (3, 4) && compute(b[2], ctx) == repeat([10.0 20.0 30.0 40.0], 3, 1)
    @test compute(tril(a, -3), ctx) == [j - i <= -3 ? A[i, j] : 0.0 for i in 1:13, j in 1:17]
    @test compute(triu(a, 2), ctx) == [j - i >= 2 ? A[i, j] : 0.0 for i in 1:13, j in 1:17]
    r, c = tril_indices(4)
    @test compute(r, ctx) == [0, 1, 1, 2, 2, 2, 3, 3, 3, 3] && compute(c, ctx) == [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    @test compute(diagonal(a; offset=1), ctx) == [A[i, i + 1] for i in 1:13]
    @test chunks(diagonal(a; offset=1)) == [[3, 2, 2, 3, 1, 2]]
    # sorting, sets, searching (positions are NumPy's 0-based values)
    s = carray([3.0, NaN, -1.0, 3.0, 2.5, -1.0, 0.0, 7.0, 3.0]; chunks=[4])
    @test isequal(compute(sort(s), ctx), [-1.0, -1.0, 0.0, 2.5, 3.0, 3.0, 3.0, 7.0, NaN])
    @test compute(argsort(s), ctx) == [2, 5, 6, 4, 0, 3, 8, 7, 1]
    iv = [i * 7 % 11 - 3 for i in 0:39]
    u = unique_all(carray(iv; chunks=[6]); counts=true)
    @test compute(u.values, ctx) == sort(unique(iv)) && u.index === nothing
    @test compute(u.counts, ctx) == [count(==(q), iv) for q in sort(unique(iv))]
    @test compute(isin(carray(iv), carray([3, -1])), ctx) == [q in (3, -1) for q in iv]
    @test compute(searchsorted(carray([-2.0, 0.0, 0.0, 1.5]), carray([0.0, 9.0]); side=:right), ctx) == [3, 4]
    @test compute(digitize(carray([-1.0, 0.5, 3.0]), carray([0.0, 1.0])), ctx) == [0, 1, 2]
    @test compute(flatnonzero(carray([0, 2, 0, 5])), ctx) == [1, 3]
    @test compute(nonzero(carray([0 2; 3 0]))[2], ctx) == [1, 0]
    # manipulation
    @test compute(roll(a, 3; dims=2), ctx) == circshift(A, (0, 3))
    @test compute(rot90(a), ctx) == rotl90(A)
    @test size(rollaxis(czeros(Float64, (2, 3, 4)), 3)) == (4, 2, 3)
    @test compute(take(a, [4, -1, 0]; dims=1), ctx) == A[[5, 13, 1], :]
    B = reshape(collect(1.0:(17 * 3)), 17, 3)
    @test compute(einsum("ij,jk->ik", a, carray(B; chunks=[4, 2])), ctx) ≈ A * B
    u = unique(carray([3, 1, 3, 2]))
    @test !chunks_known(u) && chunks(compute_chunk_sizes(u, ctx)) == [[3]]
    # insert, delete, choose, select, coarsen, bincount (NumPy's values)
    @test compute(insert(carray(collect(0.0:9.0); chunks=[3]), [2, 10], carray([100.0, 200.0])), ctx) ==
          [0, 1, 100, 2, 3, 4, 5, 6, 7, 8, 9, 200]
    @test compute(delete(carray(collect(0.0:9.0); chunks=[3]), [0, 3, -1]), ctx) == [1, 2, 4, 5, 6, 7, 8]
    @test compute(choose(carray([0, 2, 1]), carray([1.0, 2, 3]), carray([10.0, 20, 30]), carray([7.0, 8, 9])), ctx) ==
          [1.0, 8.0, 30.0]
    xs = carray(collect(0:5))
    lt, gt = ChunkArray.binary(ChunkArray.CA_OP_LT, xs, 2), ChunkArray.binary(ChunkArray.CA_OP_GT, xs, 3)
    @test compute(select([lt, gt], [xs, xs * 10]), ctx) == [0, 1, 0, 0, 40, 50]
    @test compute(coarsen(ChunkArray.CA_RED_SUM, carray(collect(0.0:9.0); chunks=[3]), (2,)), ctx) == [1, 5, 9, 13, 17]
    @test compute(bincount(carray([0, 3, 1, 3, 3, 0, 5, 1, 2]; chunks=[4]), 7), ctx) == [2, 2, 1, 3, 0, 1, 0]
    @test compute(bincount(carray([0, 3, 1, 3, 3, 0, 5, 1, 2]; chunks=[4]), 7;
                           weights=carray(collect(0:8) .* 0.5; chunks=[2])), ctx) == [2.5, 4.5, 4.0, 4.0, 0.0, 3.0, 0.0]
    b = bincount_minlength(carray([0, 3, 1, 3, 3, 0, 5, 1, 2]; chunks=[4]), 9)
    @test !chunks_known(b)
    @test compute(compute_chunk_sizes(b, ctx), ctx) == [2, 2, 1, 3, 0, 1, 0, 0, 0]
    # histogram / histogramdd (NumPy's values): np.histogram([0, .1, .25, .5, .99, 1, 1.5, nan, -1], 4, (0, 1))
    hv = carray([0.0, 0.1, 0.25, 0.5, 0.99, 1.0, 1.5, NaN, -1.0]; chunks=[4])
    h, e = histogram(hv, 4; range=(0, 1))
    @test compute(h, ctx) == [2, 1, 1, 2]
    @test compute(e, ctx) == [0.0, 0.25, 0.5, 0.75, 1.0]
    h, _ = histogram(hv, carray([0.0, 0.5, 2.0]); weights=carray(collect(1.0:9.0)), density=true)
    @test compute(h, ctx) ≈ [6 / 0.5 / 28, 22 / 1.5 / 28]
    h, es = histogramdd([carray(collect(0.0:11.0); chunks=[5]), carray(collect(0.0:2.0:22.0); chunks=[7])],
                        [2, carray([0.0, 0.5, 2.0])]; range=[(0, 12), nothing])
    @test compute(h, ctx) == [1.0 1.0; 0.0 0.0]
    @test length(es) == 2
    # ravel_multi_index / unravel_index: NumPy's 0-based flat indices, C and Fortran order
    r, c = carray([0, 3, 1, 2]; chunks=[3]), carray([4, 0, 2, 1]; chunks=[2])
    @test compute(ravel_multi_index([r, c], [4, 5]), ctx) == [4, 15, 7, 11]
    @test compute(ravel_multi_index([r, c], [4, 5]; order=:F), ctx) == [16, 3, 9, 6]
    @test compute(ravel_multi_index([carray([5, -1]), carray([7, 2])], [4, 5]; modes=[:wrap, :clip]), ctx) == [9, 17]
    u = unravel_index(carray([4, 15, 7, 11]; chunks=[3]), [4, 5])
    @test compute(u[1], ctx) == [0, 3, 1, 2] && compute(u[2], ctx) == [4, 0, 2, 1]
    close(ctx)
end

@testset "fft (against a plain DFT loop)" begin
    ctx = Context(2)
    dft(x, n, sgn) = [sum((j <= length(x) ? x[j] : 0) * cis(sgn * 2pi * (j - 1) * (k - 1) / n) for j in 1:min(n, length(x)); init=0.0im)
                      for k in 1:n]
    A = reshape(collect(1.0:30.0) .% 7 .- 2.5, 5, 6)
    a = carray(A; chunks=[2, -1])                 # ragged along dim 1, one chunk along dim 2
    for n in (nothing, 4, 9)
        m = n === nothing ? 6 : n
        F = FFT.fft(a, n)
        @test chunks(F) == [[2, 2, 1], [m]]
        @test compute(F, ctx) ≈ permutedims(hcat([dft(A[i, :], m, -1) for i in 1:5]...))
        @test compute(FFT.ifft(a, n; norm=:forward), ctx) ≈ permutedims(hcat([dft(A[i, :], m, 1) for i in 1:5]...))
        @test compute(FFT.rfft(a, n; norm=:ortho), ctx) ≈
              permutedims(hcat([dft(A[i, :], m, -1)[1:m ÷ 2 + 1] ./ sqrt(m) for i in 1:5]...))
    end
    @test compute(FFT.irfft(FFT.rfft(a), 6), ctx) ≈ A
    @test_throws ChunkArrayError FFT.fft(a; dims=1)  # dim 1 has three chunks: dask's error
    @test compute(FFT.fftfreq(5, 0.5), ctx) ≈ [0, 1, 2, -2, -1] ./ 2.5
    @test compute(FFT.rfftfreq(5), ctx) ≈ [0, 1, 2] ./ 5
    @test compute(FFT.fftshift(carray(collect(0:4))), ctx) == [3, 4, 0, 1, 2]
    @test compute(FFT.ifftshift(carray(collect(0:4))), ctx) == [2, 3, 4, 0, 1]
    @test FFT.backend() in ("kissfft", "fftw3")
    close(ctx)
end

@testset "array API promotion and exact full (C library's rules)" begin
    ctx = Context(1)
    @test promote_std(Int8, UInt8) == Int16
    @test promote_std(Float32, Float64) == Float64
    @test_throws ChunkArrayError promote_std(Int64, Float32)
    @test_throws ChunkArrayError promote_std(Int64, UInt64)
    x = carray(Int8[-128, -1, 0, 5, 127]; chunks=[2])
    y = carray(UInt8[255, 1, 0, 200, 128]; chunks=[3])
    @test compute(binary_std(ChunkArray.CA_OP_ADD, x, y), ctx) == Int16[127, 0, 0, 205, 255]
    @test eltype(compute(binary_std(ChunkArray.CA_OP_ADD, x, 1), ctx)) == Int8
    @test_throws ChunkArrayError binary_std(ChunkArray.CA_OP_ADD, x, 200)
    @test_throws ChunkArrayError binary_std(ChunkArray.CA_OP_ADD, x, 0.5)
    q = compute(binary_std(ChunkArray.CA_OP_FLOORDIV_STD, carray([Inf, -1.0]), carray([2.0, Inf])), ctx)
    @test q[1] == Inf && q[2] == 0.0 && signbit(q[2])
    for v in (2^53 + 1, typemin(Int64), typemax(Int64))
        @test compute(cfull_int(Int64, (5,), v; chunks=[2]), ctx) == fill(v, 5)
    end
    @test compute(cfull_int(UInt64, (3,), typemax(UInt64)), ctx) == fill(typemax(UInt64), 3)
    @test_throws ChunkArrayError cfull_int(Int8, (2,), 128)
    close(ctx)
end

@testset "masked arrays (against plain loops)" begin
    ctx = Context(2)
    A = reshape(collect(0.0:11.0) .% 5 .- 1.5, 3, 4)
    a = MA.masked_less(MA.masked_array(carray(A; chunks=[2, 3])), 0)
    r = MA.compute(a, ctx)
    @test r.mask == (A .< 0)
    @test r.data == A
    l = MA.compute(MA.unary(ChunkArray.CA_OP_LOG, a), ctx)
    @test l.mask == (A .<= 0)
    @test l.data[.!l.mask] ≈ log.(A[.!l.mask])
    s = MA.compute(MA.reduce_op(ChunkArray.CA_RED_SUM, a; dims=(2,)), ctx)
    @test s.data ≈ [sum(A[i, j] for j in 1:4 if A[i, j] >= 0; init=0.0) for i in 1:3]
    @test compute(MA.count(a), ctx)[] == count(>=(0), A)
    @test MA.fill_value(a) == 1e20
    close(ctx)
end

@testset "HDF5 and npy stacks" begin
    ctx = Context(2)
    A = reshape(collect(0.0:0.5:(0.5 * 41)), 6, 7)
    a = carray(A; chunks=[4, 3])
    dir = mktempdir()
    h5 = joinpath(dir, "x.h5")
    hdf5 = try
        to_hdf5(a, ctx, h5, "/g/x"; chunks=[3, 7], gzip_level=4, shuffle=true)
        true
    catch e
        e isa ChunkArrayError && e.code == "CA_EUNSUPPORTED" || rethrow()
        false
    end
    if hdf5
        b = from_hdf5(h5, "/g/x")
        @test chunks(b) == [[3, 3], [7]]
        @test compute(b, ctx) == A
        @test compute(from_hdf5(h5, "g/x"; chunks="(4, 2)"), ctx) == A
        @test_throws ChunkArrayError from_hdf5(h5, "nope")
        @test_throws ChunkArrayError to_hdf5(a, ctx, h5, "/g/x")
        to_hdf5(a, ctx, h5, "/g/x"; overwrite=true, contiguous=true)
        @test compute(from_hdf5(h5, "/g/x"), ctx) == A
    end
    to_npy_stack(a, ctx, joinpath(dir, "s"); axis=1)
    s = from_npy_stack(joinpath(dir, "s"))
    @test chunks(s)[2] == [3, 3, 1]
    @test compute(s, ctx) == A
    close(ctx)
end
