"""
    ChunkArray

Julia bindings to libchunkarray (dask.array's design behind a C ABI). The library is opened at run
time with Libdl (`ENV["CHUNKARRAY_LIB"]`, else `libchunkarray.so.1`) and every C function is called
with `@ccall` through the pointer `dlsym` gives. Handles are freed by `close` and by finalizers.
Errors are `ChunkArrayError(status, code, message)`; the message is read right after the failing
call, with no yield point in between, so on the same OS thread.

Arrays keep Julia's dimension order (shape == size(A)); data cross the boundary in C order.
"""
module ChunkArray

using Libdl

export ChunkArrayError, Context, CArray, carray, compute, compute_many, persist, rechunk, map_blocks,
       register_kernel, chunks, name, to_svg, graph, to_dot, save_graph, load_graph, save_array, load_array,
       czeros, cones, cfull, crandom, crandom_params, cumsum_axis, has_function, Graph, Key, add_task!, layers, rechunk_to,
       CancelToken, cancel!, iscancelled,
       # issue 16 (NumPy's names; Base's sort, unique, searchsorted, cbrt, hypot, ... get CArray methods)
       fabs, spacing, i0, positive, negative, isneginf, isposinf, iscomplex, reciprocal, fix, rint, radians,
       degrees, bitwise_not, invert, arcsin, arccos, arctan, arcsinh, arccosh, arctanh, logical_not, square,
       fmax, fmin, fmod, float_power, logaddexp, logaddexp2, nextafter, left_shift, right_shift, arctan2,
       remainder, floor_divide, logical_and, logical_or, logical_xor, divmod, isclose,
       allclose, nan_to_num, quantile, percentile, nanquantile, nanpercentile, median, nanmedian, empty_like,
       zeros_like, ones_like, full_like, indices, meshgrid, broadcast_arrays, tril, triu, tril_indices,
       triu_indices, tril_indices_from, triu_indices_from, diagonal, argsort, unique_all, isin, union1d,
       digitize, nonzero, flatnonzero, argwhere, roll, rot90, rollaxis, take, einsum, chunks_known,
       compute_chunk_sizes, insert, delete, choose, select, coarsen, bincount, bincount_minlength,
       histogram, histogramdd,
       ravel_multi_index, unravel_index, from_hdf5, to_hdf5, from_npy_stack, to_npy_stack,
       # the Python array API standard's promotion and exact integer full (ca_dtype_promote_std, ...)
       promote_std, binary_std, cfull_int,
       # fft.h (dask.array.fft under NumPy's names; also reachable as ChunkArray.FFT.fft ...)
       FFT,
       # masked.h (numpy.ma / dask.array.ma: ChunkArray.MA.masked_array ...)
       MA

# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

# CA_OP_* / CA_RED_* / CA_SCAN_* (generated from the library's tables by tools/gen_codes.py)
include("codes.jl")

const LIB = Ref{Ptr{Cvoid}}(C_NULL)
const SYMS = Dict{Symbol,Ptr{Cvoid}}()
const SYMS_LOCK = ReentrantLock()

function __init__()
    # libchunkarray links libmimalloc (which exports operator new/delete) ahead of libstdc++, and
    # Julia has its own libstdc++ loaded: make that one global first so allocators do not mix.
    try
        Libdl.dlopen("libstdc++.so.6", Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL)
    catch
    end
    LIB[] = Libdl.dlopen(get(ENV, "CHUNKARRAY_LIB", "libchunkarray.so.1"), Libdl.RTLD_NOW | Libdl.RTLD_LOCAL)
end

"Pointer of C function `name` (cached); throws if the library lacks it."
function sym(name::Symbol)
    lock(SYMS_LOCK) do
        get!(SYMS, name) do
            Libdl.dlsym(LIB[], name)
        end
    end
end

"True if the loaded library exports `name` (optional functions such as ca_graph_save)."
has_function(name::Symbol) = Libdl.dlsym(LIB[], name; throw_error=false) !== nothing

# ---------------------------------------------------------------------------------------------
# C structs (mirrors of include/chunkarray/*.h; bindings/julia/check_abi.py compares them)
# ---------------------------------------------------------------------------------------------

struct CaChunks           # ca_chunks_t
    ndim::Int32
    numblocks::Ptr{Int64}
    sizes::Ptr{Int64}
end

struct CaDimChunks        # ca_dimchunks_t
    size::Int64
    sizes::Ptr{Int64}
    nsizes::Int64
end

struct CaScalar           # ca_scalar_t
    kind::Int32
    reserved::Int32
    re::Cdouble
    im::Cdouble
    i64::Int64
end

struct CaContextOptions   # ca_context_options_t
    struct_size::UInt32
    num_threads::Int32
    memory_limit::Int64
    chunk_size::Int64
    builtin_kernels::Int32
end

struct CaKernelOptions    # ca_kernel_options_t
    struct_size::UInt32
    version::Int32
    user_data::Ptr{Cvoid}
    free_user_data::Ptr{Cvoid}
end

struct CaReduceOptions    # ca_reduce_options_t
    struct_size::UInt32
    split_every::Int32
    ddof::Int32
    dtype::Int32
end

struct CaScanOptions    # ca_scan_options_t
    struct_size::UInt32
    dtype::Int32
end

struct CaRandomOptions    # ca_random_options_t
    struct_size::UInt32
    reserved::UInt32
    seed::UInt64
    p0::Float64
    p1::Float64
    p2::Float64
end

struct CaHistogramBins    # ca_histogram_bins_t
    nbins::Int64
    lo::Float64
    hi::Float64
    edges::Ptr{Cvoid}
end

struct CaHistogramOptions # ca_histogram_options_t
    struct_size::UInt32
    weights::Ptr{Cvoid}
    density::Int32
    mode::Int32
    split_every::Int32
end

struct CaBufferOptions    # ca_buffer_options_t
    struct_size::UInt32
    flags::UInt32
    strides::Ptr{Int64}
    release::Ptr{Cvoid}
    user_data::Ptr{Cvoid}
end

struct CaMapBlocksOptions # ca_map_blocks_options_t
    struct_size::UInt32
    dtype::Int32
    chunks::Ptr{CaChunks}
    drop_axis::Ptr{Int32}
    ndrop_axis::Int32
    new_axis::Ptr{Int32}
    nnew_axis::Int32
    block_info::Int32
    name::Ptr{Cchar}
end

struct CaKey              # ca_key_t
    name::Ptr{Cchar}
    index::Ptr{Int64}
    nindex::Int32
end

struct CaHdf5Options   # ca_hdf5_options_t
    struct_size::UInt32
    chunks::Ptr{Int64}
    contiguous::Int32
    gzip_level::Int32
    shuffle::Int32
    overwrite::Int32
end

struct CaComputeOptions   # ca_compute_options_t
    struct_size::UInt32
    progress::Ptr{Cvoid}
    progress_user_data::Ptr{Cvoid}
    progress_interval_us::Int64
    cancel::Ptr{Cvoid}
end

# ca_arg_t: kind, reserved, then a 32-byte union; kernels read blocks and literals through it.
struct CaArg              # ca_arg_t (a union inside: layout checked by size only)
    kind::Int32
    reserved::Int32
    u::NTuple{4,UInt64}
end

# Argument kinds (kernel.h) and the status codes the module raises itself (common.h).
const CA_ARG_NONE, CA_ARG_INT64, CA_ARG_FLOAT64, CA_ARG_STRING = Int32(0), Int32(1), Int32(2), Int32(3)
const CA_ARG_BYTES, CA_ARG_TUPLE, CA_ARG_KEY, CA_ARG_BLOCK, CA_ARG_LIST = Int32(4), Int32(5), Int32(7), Int32(8), Int32(9)
const CA_EINVAL, CA_ENOTFOUND, CA_EKERNEL = Int32(-1), Int32(-3), Int32(-5)

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

struct ChunkArrayError <: Exception
    status::Int32
    code::String
    message::String
end

Base.showerror(io::IO, e::ChunkArrayError) = print(io, e.code, ": ", e.message)

function check(st::Int32)
    st == 0 && return nothing
    # read at once: no yield point since the failing ccall, so this is the same OS thread
    msg = unsafe_string(@ccall $(sym(:ca_last_error_message))()::Cstring)
    code = unsafe_string(@ccall $(sym(:ca_status_str))(st::Int32)::Cstring)
    throw(ChunkArrayError(st, code, msg))
end

version() = unsafe_string(@ccall $(sym(:ca_version_string))()::Cstring)

# ---------------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------------

const DTYPES = Dict{DataType,Int32}(Bool => 1, Int8 => 2, Int16 => 3, Int32 => 4, Int64 => 5, UInt8 => 6,
                                    UInt16 => 7, UInt32 => 8, UInt64 => 9, Float32 => 10, Float64 => 11,
                                    ComplexF32 => 12, ComplexF64 => 13, Float16 => 15)
# dtypes with a parameter (common.h): bits 0..7 the kind, the bits above the unit of a
# datetime64/timedelta64 or the length of a bytes/unicode dtype. No Julia element type maps to them.
const CA_DATETIME64, CA_TIMEDELTA64, CA_BYTES, CA_UNICODE = Int32(16), Int32(17), Int32(18), Int32(19)
ca_dtype_make_unchecked(kind::Int32, param::Integer) = kind | (Int32(param) << 8)
const JULIA_TYPES = Dict(v => k for (k, v) in DTYPES)
dtype_code(::Type{T}) where {T} = DTYPES[T]

# ---------------------------------------------------------------------------------------------
# Context
# ---------------------------------------------------------------------------------------------

mutable struct Context
    h::Ptr{Cvoid}
    kernels::Vector{Any}   # keeps Julia kernels and their cfunctions alive
    function Context(; num_threads::Integer=-1)
        o = Ref(CaContextOptions(sizeof(CaContextOptions), num_threads, 0, 0, 1))
        out = Ref{Ptr{Cvoid}}(C_NULL)
        check(@ccall $(sym(:ca_context_new))(out::Ptr{Ptr{Cvoid}}, o::Ptr{CaContextOptions})::Int32)
        c = new(out[], Any[])
        finalizer(close, c)
    end
end

function Base.close(c::Context)
    if c.h != C_NULL
        @ccall $(sym(:ca_context_free))(c.h::Ptr{Cvoid})::Cvoid
        c.h = C_NULL
    end
    nothing
end

num_threads(c::Context) = @ccall $(sym(:ca_context_num_threads))(c.h::Ptr{Cvoid})::Int32

set_config(c::Context, key::AbstractString, value::AbstractString) =
    check(@ccall $(sym(:ca_context_set_config))(c.h::Ptr{Cvoid}, key::Cstring, value::Cstring)::Int32)

# ---------------------------------------------------------------------------------------------
# Blocks (inside kernels) and results
# ---------------------------------------------------------------------------------------------

function block_shape(b::Ptr{Cvoid})
    nd = @ccall $(sym(:ca_block_ndim))(b::Ptr{Cvoid})::Int32
    p = @ccall $(sym(:ca_block_shape))(b::Ptr{Cvoid})::Ptr{Int64}
    nd == 0 ? Int64[] : copy(unsafe_wrap(Vector{Int64}, p, nd))
end

"A Julia Array (same dims as the C shape) copied from a block."
function block_to_array(b::Ptr{Cvoid})
    T = JULIA_TYPES[@ccall $(sym(:ca_block_dtype))(b::Ptr{Cvoid})::Int32]
    shape = block_shape(b)
    n = @ccall $(sym(:ca_block_size))(b::Ptr{Cvoid})::Int64
    p = @ccall $(sym(:ca_block_data))(b::Ptr{Cvoid})::Ptr{Cvoid}
    flat = n == 0 ? T[] : copy(unsafe_wrap(Vector{T}, Ptr{T}(p), n))
    from_c_order(flat, shape)
end

from_c_order(flat::Vector, shape) =
    isempty(shape) ? fill(flat[1]) : permutedims(reshape(flat, Tuple(reverse(shape))), length(shape):-1:1)
to_c_order(A::AbstractArray) = ndims(A) == 0 ? [A[]] : vec(permutedims(A, ndims(A):-1:1))

"A new owned block holding a copy of the Julia array `A`."
function new_block(A::AbstractArray{T}) where {T}
    shape = Int64[size(A)...]
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_block_new))(out::Ptr{Ptr{Cvoid}}, dtype_code(T)::Int32, length(shape)::Int32,
                                       shape::Ptr{Int64})::Int32)
    flat = to_c_order(A)
    if !isempty(flat)
        p = @ccall $(sym(:ca_block_data))(out[]::Ptr{Cvoid})::Ptr{Cvoid}
        unsafe_copyto!(Ptr{T}(p), pointer(flat), length(flat))
    end
    out[]
end

# ---------------------------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------------------------

mutable struct CArray
    h::Ptr{Cvoid}
    function CArray(h::Ptr{Cvoid})
        a = new(h)
        finalizer(close, a)
    end
end

function Base.close(a::CArray)
    if a.h != C_NULL
        @ccall $(sym(:ca_array_free))(a.h::Ptr{Cvoid})::Cvoid
        a.h = C_NULL
    end
    nothing
end

function newarray(f)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(f(out))
    CArray(out[])
end

Base.ndims(a::CArray) = Int(@ccall $(sym(:ca_array_ndim))(a.h::Ptr{Cvoid})::Int32)
function Base.size(a::CArray)
    nd = ndims(a)
    p = @ccall $(sym(:ca_array_shape))(a.h::Ptr{Cvoid})::Ptr{Int64}
    nd == 0 ? () : Tuple(Int.(unsafe_wrap(Vector{Int64}, p, nd)))
end
Base.length(a::CArray) = Int(@ccall $(sym(:ca_array_size))(a.h::Ptr{Cvoid})::Int64)
Base.eltype(a::CArray) = JULIA_TYPES[@ccall $(sym(:ca_array_dtype))(a.h::Ptr{Cvoid})::Int32]
name(a::CArray) = unsafe_string(@ccall $(sym(:ca_array_name))(a.h::Ptr{Cvoid})::Cstring)
function chunks(a::CArray)
    map(0:ndims(a)-1) do d
        n = Ref{Int64}(0)
        p = @ccall $(sym(:ca_array_chunks))(a.h::Ptr{Cvoid}, d::Int32, n::Ptr{Int64})::Ptr{Int64}
        n[] == 0 ? Int64[] : copy(unsafe_wrap(Vector{Int64}, p, n[]))
    end
end
Base.show(io::IO, a::CArray) = print(io, "CArray<", name(a), ", size=", size(a), ", eltype=", eltype(a), ">")

"Normalized chunks: one block size per dimension (-1 whole, 0 auto) or explicit vectors."
function normalize_chunks(shape, spec, ::Type{T}) where {T}
    nd = length(shape)
    spec = spec isa Integer ? fill(spec, nd) : collect(spec)
    length(spec) == nd || throw(ChunkArrayError(-1, "CA_EINVAL", "chunks $spec have $(length(spec)) dimensions, shape $shape has $nd"))
    keep = Any[]
    dims = map(spec) do s
        if s isa AbstractVector
            v = Int64.(s)
            push!(keep, v)
            CaDimChunks(-2, pointer(v), length(v))
        else
            CaDimChunks(Int64(s), C_NULL, 0)
        end
    end
    shp = Int64[shape...]
    out = Ref{Ptr{Cvoid}}(C_NULL)
    GC.@preserve keep begin
        check(@ccall $(sym(:ca_normalize_chunks))(out::Ptr{Ptr{Cvoid}}, C_NULL::Ptr{Cvoid}, dims::Ptr{CaDimChunks},
                                                  nd::Int32, shp::Ptr{Int64}, dtype_code(T)::Int32, 0::Int64)::Int32)
    end
    cs = out[]
    try
        map(0:nd-1) do d
            n = Ref{Int64}(0)
            p = @ccall $(sym(:ca_chunkset_sizes))(cs::Ptr{Cvoid}, d::Int32, n::Ptr{Int64})::Ptr{Int64}
            n[] == 0 ? Int64[] : copy(unsafe_wrap(Vector{Int64}, p, n[]))
        end
    finally
        @ccall $(sym(:ca_chunkset_free))(cs::Ptr{Cvoid})::Cvoid
    end
end

function with_chunks(f, ch)
    nb = Int64[length(c) for c in ch]
    sz = Int64[x for c in ch for x in c]
    GC.@preserve nb sz begin
        f(Ref(CaChunks(length(ch), pointer(nb), pointer(sz))))
    end
end

"An array over a copy of the Julia array `A` with `chunks` (per-dimension sizes)."
function carray(A::AbstractArray{T}; chunks=0) where {T}
    shape = Int64[size(A)...]
    flat = to_c_order(A)
    ch = normalize_chunks(shape, chunks, T)
    with_chunks(ch) do cc
        newarray() do out
            GC.@preserve flat @ccall $(sym(:ca_array_from_buffer))(out::Ptr{Ptr{Cvoid}}, pointer(flat)::Ptr{Cvoid},
                dtype_code(T)::Int32, length(shape)::Int32, shape::Ptr{Int64}, cc::Ptr{CaChunks},
                C_NULL::Ptr{CaBufferOptions})::Int32
        end
    end
end

function czeros(::Type{T}, shape::Tuple; chunks=0) where {T}
    shp = Int64[shape...]
    with_chunks(normalize_chunks(shp, chunks, T)) do cc
        newarray() do out
            @ccall $(sym(:ca_array_zeros))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32, shp::Ptr{Int64},
                                           cc::Ptr{CaChunks}, dtype_code(T)::Int32)::Int32
        end
    end
end

function cones(::Type{T}, shape::Tuple; chunks=0) where {T}
    shp = Int64[shape...]
    with_chunks(normalize_chunks(shp, chunks, T)) do cc
        newarray() do out
            @ccall $(sym(:ca_array_ones))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32, shp::Ptr{Int64},
                                          cc::Ptr{CaChunks}, dtype_code(T)::Int32)::Int32
        end
    end
end

function cfull(::Type{T}, shape::Tuple, value::Real; chunks=0) where {T}
    shp = Int64[shape...]
    with_chunks(normalize_chunks(shp, chunks, T)) do cc
        newarray() do out
            @ccall $(sym(:ca_array_full))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32, shp::Ptr{Int64},
                                          cc::Ptr{CaChunks}, dtype_code(T)::Int32, Float64(value)::Cdouble,
                                          0.0::Cdouble)::Int32
        end
    end
end

"""
    cfull_int(T, shape, value::Integer; chunks=0)

`cfull` with an exact 64-bit integer (`ca_array_full_int64`, or `ca_array_full_uint64` for values past
`typemax(Int64)`): 2^53 + 1, `typemin(Int64)` and `typemax(UInt64)` stay exact. A value the integer
element type does not hold is a `ChunkArrayError` (CA_EINVAL).
"""
function cfull_int(::Type{T}, shape::Tuple, value::Integer; chunks=0) where {T}
    shp = Int64[shape...]
    with_chunks(normalize_chunks(shp, chunks, T)) do cc
        newarray() do out
            if value > typemax(Int64)
                @ccall $(sym(:ca_array_full_uint64))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32, shp::Ptr{Int64},
                                                     cc::Ptr{CaChunks}, dtype_code(T)::Int32,
                                                     UInt64(value)::UInt64)::Int32
            else
                @ccall $(sym(:ca_array_full_int64))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32, shp::Ptr{Int64},
                                                    cc::Ptr{CaChunks}, dtype_code(T)::Int32,
                                                    Int64(value)::Int64)::Int32
            end
        end
    end
end

"Uniform random values in [lo, hi), reproducible per block."
function crandom(shape::Tuple; chunks=0, seed::Integer=0, lo=0.0, hi=1.0)
    shp = Int64[shape...]
    with_chunks(normalize_chunks(shp, chunks, Float64)) do cc
        newarray() do out
            o = Ref(CaRandomOptions(sizeof(CaRandomOptions), 0, UInt64(seed), Float64(lo), Float64(hi), 0.0))
            @ccall $(sym(:ca_array_random))(out::Ptr{Ptr{Cvoid}}, 0::Int32, length(shp)::Int32,
                                            shp::Ptr{Int64}, cc::Ptr{CaChunks}, 11::Int32,
                                            o::Ptr{CaRandomOptions})::Int32
        end
    end
end

"""
Random values of distribution `code` (CA_RANDOM_*, array.h) with array-valued parameters
(ca_array_random_params): parameter j is `arrays[j]` where it is not `nothing` (broadcast against
`shape` as NumPy broadcasts parameters against size), else `params[j]`. `dtype` is a ca_dtype_t code
(11 float64, 7 int64 for the discrete distributions). A bad parameter value fails the compute.
"""
function crandom_params(code::Integer, shape::Tuple, arrays::Vector; chunks=0, seed::Integer=0,
                        params=(0.0, 1.0, 0.0), dtype::Integer=11)
    shp = Int64[shape...]
    p = [0.0, 1.0, 0.0]
    for (j, v) in enumerate(params)
        p[j] = Float64(v)
    end
    hs = Ptr{Cvoid}[a === nothing ? C_NULL : a.h for a in arrays]
    with_chunks(normalize_chunks(shp, chunks, Float64)) do cc
        GC.@preserve arrays newarray() do out
            o = Ref(CaRandomOptions(sizeof(CaRandomOptions), 0, UInt64(seed), p[1], p[2], p[3]))
            @ccall $(sym(:ca_array_random_params))(out::Ptr{Ptr{Cvoid}}, code::Int32, length(shp)::Int32,
                                                   shp::Ptr{Int64}, cc::Ptr{CaChunks}, dtype::Int32,
                                                   hs::Ptr{Ptr{Cvoid}}, length(hs)::Int32,
                                                   o::Ptr{CaRandomOptions})::Int32
        end
    end
end

# -- elementwise ----------------------------------------------------------------------------------

scalar(v::Bool) = CaScalar(1, 0, Float64(v), 0.0, Int64(v))
scalar(v::Integer) = CaScalar(5, 0, Float64(v), 0.0, Int64(v))
scalar(v::Real) = CaScalar(11, 0, Float64(v), 0.0, 0)
scalar(v::Complex) = CaScalar(13, 0, real(v), imag(v), 0)

binary(op::Integer, a::CArray, b::CArray) = newarray() do out
    @ccall $(sym(:ca_array_binary))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid}, b.h::Ptr{Cvoid})::Int32
end
binary(op::Integer, a::CArray, s::Number, first::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_binary_scalar))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid}, scalar(s)::CaScalar,
                                           Cint(first)::Cint)::Int32
end
"""
    promote_std(A, B)

The Python array API standard's promotion of two element types (`ca_dtype_promote_std`): no
value-based casting, `promote_std(Int8, UInt8) == Int16`; a `ChunkArrayError` (CA_ETYPE) naming both
where the standard has none (an integer with a float, Bool with a number, Int64 with UInt64).
"""
function promote_std(::Type{A}, ::Type{B}) where {A,B}
    out = Ref{Int32}(0)
    check(@ccall $(sym(:ca_dtype_promote_std))(out::Ptr{Int32}, dtype_code(A)::Int32, dtype_code(B)::Int32)::Int32)
    return JULIA_TYPES[out[]]
end

"""
    binary_std(op, a, b)

`a op b` (a CA_OP_* code, e.g. `CA_OP_FLOORDIV_STD`) under the array API standard's promotion
(`ca_array_binary_std`); with a number `b`, the standard's scalar rule (`ca_array_binary_scalar_std`:
the scalar takes the array's element type; CA_EINVAL when it does not fit, CA_ETYPE for a kind the
standard does not mix).
"""
binary_std(op::Integer, a::CArray, b::CArray) = newarray() do out
    @ccall $(sym(:ca_array_binary_std))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid}, b.h::Ptr{Cvoid})::Int32
end
binary_std(op::Integer, a::CArray, s::Number, first::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_binary_scalar_std))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid},
                                               scalar(s)::CaScalar, Cint(first)::Cint)::Int32
end
unary(op::Integer, a::CArray) = newarray() do out
    @ccall $(sym(:ca_array_unary))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid})::Int32
end

for (f, op) in ((:+, CA_OP_ADD), (:-, CA_OP_SUB), (:*, CA_OP_MUL), (:/, CA_OP_DIV), (:^, CA_OP_POW),
                (:max, CA_OP_MAXIMUM), (:min, CA_OP_MINIMUM))
    @eval Base.$f(a::CArray, b::CArray) = binary($op, a, b)
    @eval Base.$f(a::CArray, b::Number) = binary($op, a, b)
    @eval Base.$f(a::Number, b::CArray) = binary($op, b, a, true)
end
for (f, op) in ((:-, CA_OP_NEG), (:abs, CA_OP_ABS), (:sign, CA_OP_SIGN), (:sqrt, CA_OP_SQRT), (:exp, CA_OP_EXP),
                (:log, CA_OP_LOG), (:sin, CA_OP_SIN), (:cos, CA_OP_COS), (:tanh, CA_OP_TANH), (:floor, CA_OP_FLOOR),
                (:ceil, CA_OP_CEIL), (:isnan, CA_OP_ISNAN))
    @eval Base.$f(a::CArray) = unary($op, a)
end

# -- reductions (dims are Julia's 1-based dimensions) ---------------------------------------------

function reduce_op(op::Integer, a::CArray; dims=:, keepdims::Bool=false, ddof::Integer=0)
    axes = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]
    o = Ref(CaReduceOptions(sizeof(CaReduceOptions), 0, ddof, 0))
    newarray() do out
        GC.@preserve axes begin
            @ccall $(sym(:ca_array_reduce))(out::Ptr{Ptr{Cvoid}}, op::Int32, a.h::Ptr{Cvoid},
                                            (isempty(axes) ? C_NULL : pointer(axes))::Ptr{Int32},
                                            length(axes)::Int32, Cint(keepdims)::Cint, o::Ptr{CaReduceOptions})::Int32
        end
    end
end
Base.sum(a::CArray; dims=:, keepdims=false) = reduce_op(CA_RED_SUM, a; dims, keepdims)
Base.prod(a::CArray; dims=:, keepdims=false) = reduce_op(CA_RED_PROD, a; dims, keepdims)
mean(a::CArray; dims=:, keepdims=false) = reduce_op(CA_RED_MEAN, a; dims, keepdims)
Base.maximum(a::CArray; dims=:, keepdims=false) = reduce_op(CA_RED_MAX, a; dims, keepdims)
Base.minimum(a::CArray; dims=:, keepdims=false) = reduce_op(CA_RED_MIN, a; dims, keepdims)

cumsum_axis(a::CArray, dim::Integer) = newarray() do out
    @ccall $(sym(:ca_array_scan))(out::Ptr{Ptr{Cvoid}}, CA_SCAN_CUMSUM::Int32, a.h::Ptr{Cvoid}, (dim - 1)::Int32,
                                  C_NULL::Ptr{CaScanOptions})::Int32
end

function rechunk(a::CArray, spec)
    ch = normalize_chunks(Int64[size(a)...], spec, eltype(a))
    with_chunks(ch) do cc
        newarray() do out
            @ccall $(sym(:ca_array_rechunk))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, cc::Ptr{CaChunks})::Int32
        end
    end
end

# -- kernels written in Julia ---------------------------------------------------------------------

"""
A kernel argument as a Julia value: blocks as arrays (copies), int64 as Int64, float64 as Float64,
strings as String, bytes as Vector{UInt8}, tuples as a Tuple of Int64, lists as Vector{Any},
None as nothing.
"""
function decode_arg(a::CaArg)
    k, u = a.kind, a.u
    k == CA_ARG_BLOCK && return block_to_array(Ptr{Cvoid}(u[1]))
    k == CA_ARG_INT64 && return reinterpret(Int64, u[1])
    k == CA_ARG_FLOAT64 && return reinterpret(Float64, u[1])
    k == CA_ARG_STRING && return unsafe_string(Ptr{UInt8}(u[1]), u[2])
    k == CA_ARG_BYTES && return u[2] == 0 ? UInt8[] : copy(unsafe_wrap(Vector{UInt8}, Ptr{UInt8}(u[1]), u[2]))
    k == CA_ARG_TUPLE && return u[2] == 0 ? () : Tuple(copy(unsafe_wrap(Vector{Int64}, Ptr{Int64}(u[1]), u[2])))
    k == CA_ARG_LIST && return Any[decode_arg(unsafe_load(Ptr{CaArg}(u[1]), i)) for i in 1:u[2]]
    nothing
end

# A Julia kernel receives the input blocks as Julia arrays (copies) plus the literal arguments and
# returns an array. Julia >= 1.9 lets foreign (worker) threads call into Julia; on older versions
# use Context(num_threads=0) so kernels run on the calling thread.
function kernel_trampoline(out::Ptr{Ptr{Cvoid}}, args::Ptr{CaArg}, nargs::Csize_t, kctx::Ptr{Cvoid},
                           ud::Ptr{Cvoid})::Int32
    f = unsafe_pointer_to_objref(ud)
    try
        vals = Any[decode_arg(unsafe_load(args, i)) for i in 1:nargs]
        unsafe_store!(out, new_block(f(vals...)))
        return Int32(0)
    catch e
        msg = sprint(showerror, e)
        @ccall $(sym(:ca_kernel_set_error))(kctx::Ptr{Cvoid}, msg::Cstring)::Cvoid
        return CA_EKERNEL
    end
end

"Register the Julia function `f(blocks..., literals...) -> Array` as kernel `kname` in `ctx`."
function register_kernel(ctx::Context, kname::AbstractString, f)
    push!(ctx.kernels, f)   # the context keeps f alive; user_data is a borrowed pointer to it
    cf = @cfunction(kernel_trampoline, Int32, (Ptr{Ptr{Cvoid}}, Ptr{CaArg}, Csize_t, Ptr{Cvoid}, Ptr{Cvoid}))
    o = Ref(CaKernelOptions(sizeof(CaKernelOptions), 1, pointer_from_objref(f), C_NULL))
    check(@ccall $(sym(:ca_context_register))(ctx.h::Ptr{Cvoid}, kname::Cstring, cf::Ptr{Cvoid},
                                              o::Ptr{CaKernelOptions})::Int32)
end

"dask's map_blocks with a kernel registered under `kname` (Julia or C), plus float literals."
function map_blocks(kname::AbstractString, arrays::CArray...; extra::Vector{Float64}=Float64[], dtype=nothing)
    hs = Ptr{Cvoid}[a.h for a in arrays]
    args = CaArg[CaArg(2, 0, (reinterpret(UInt64, x), 0, 0, 0)) for x in extra]
    o = Ref(CaMapBlocksOptions(sizeof(CaMapBlocksOptions), dtype === nothing ? 0 : dtype_code(dtype), C_NULL,
                               C_NULL, 0, C_NULL, 0, 0, C_NULL))
    newarray() do out
        GC.@preserve args begin
            @ccall $(sym(:ca_array_map_blocks))(out::Ptr{Ptr{Cvoid}}, kname::Cstring, hs::Ptr{Ptr{Cvoid}},
                                                length(hs)::Csize_t,
                                                (isempty(args) ? C_NULL : pointer(args))::Ptr{CaArg},
                                                length(args)::Csize_t, o::Ptr{CaMapBlocksOptions})::Int32
        end
    end
end

# -- compute ----------------------------------------------------------------------------------------

"""
    CancelToken()

A cancellation token (`ca_cancel_t`): `cancel!(t)` from any task or thread stops the computations
given `cancel=t` (running tasks finish, no new one starts); they throw `ChunkArrayError` with code
`CA_ECANCELED`. `close(t)` frees it (also done by a finalizer).
"""
mutable struct CancelToken
    h::Ptr{Cvoid}
    function CancelToken()
        out = Ref{Ptr{Cvoid}}(C_NULL)
        check(@ccall $(sym(:ca_cancel_new))(out::Ptr{Ptr{Cvoid}})::Int32)
        finalizer(close, new(out[]))
    end
end

function Base.close(t::CancelToken)
    if t.h != C_NULL
        @ccall $(sym(:ca_cancel_free))(t.h::Ptr{Cvoid})::Cvoid
        t.h = C_NULL
    end
    nothing
end

"Stop the computations watching `t` (and every later one until `reset!(t)`)."
cancel!(t::CancelToken) = (@ccall $(sym(:ca_cancel_request))(t.h::Ptr{Cvoid})::Cvoid; t)
"True once `cancel!(t)` was called (and not reset since)."
iscancelled(t::CancelToken) = (@ccall $(sym(:ca_cancel_requested))(t.h::Ptr{Cvoid})::Cint) != 0
"Make `t` usable again."
reset!(t::CancelToken) = (@ccall $(sym(:ca_cancel_reset))(t.h::Ptr{Cvoid})::Cvoid; t)

compute_options(cancel::Union{Nothing,CancelToken}) =
    Ref(CaComputeOptions(sizeof(CaComputeOptions), C_NULL, C_NULL, 0, cancel === nothing ? C_NULL : cancel.h))

"Compute `a` into a Julia array; `cancel` a CancelToken that stops it."
function compute(a::CArray, ctx::Context; cancel::Union{Nothing,CancelToken}=nothing)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    o = compute_options(cancel)
    GC.@preserve cancel begin
        check(@ccall $(sym(:ca_array_compute))(out::Ptr{Ptr{Cvoid}}, ctx.h::Ptr{Cvoid}, a.h::Ptr{Cvoid},
                                               o::Ptr{CaComputeOptions})::Int32)
    end
    try
        block_to_array(out[])
    finally
        @ccall $(sym(:ca_block_free))(out[]::Ptr{Cvoid})::Cvoid
    end
end

# ---- I/O: HDF5 and npy stacks (io.h) ------------------------------------------------------------

"""
    from_hdf5(path, dataset; chunks=nothing)

A lazy array over dataset `dataset` of the HDF5 file at `path` (dask's `from_array(h5py_dataset)`).
`chunks`: a chunk request string ("auto", "(1000, -1)", "64MiB") resolved with the dataset's HDF5
chunks; `nothing` = those chunks. A `ChunkArrayError` with code "CA_EUNSUPPORTED" when the library was
built without HDF5.
"""
function from_hdf5(path::AbstractString, dataset::AbstractString; chunks::Union{Nothing,AbstractString}=nothing)
    c = chunks === nothing ? nothing : String(chunks)
    GC.@preserve c begin
        cp = c === nothing ? Ptr{Cchar}(C_NULL) : Ptr{Cchar}(pointer(c))
        newarray(out -> @ccall $(sym(:ca_array_from_hdf5))(out::Ptr{Ptr{Cvoid}}, path::Cstring, dataset::Cstring,
                                                          cp::Ptr{Cchar})::Int32)
    end
end

"""
    to_hdf5(a, ctx, path, dataset; chunks=nothing, contiguous=false, gzip_level=-1, shuffle=false, overwrite=false)

Compute `a` into dataset `dataset` of the HDF5 file at `path` (dask's `to_hdf5`), block by block.
"""
function to_hdf5(a::CArray, ctx::Context, path::AbstractString, dataset::AbstractString;
                 chunks=nothing, contiguous::Bool=false, gzip_level::Integer=-1, shuffle::Bool=false,
                 overwrite::Bool=false, cancel::Union{Nothing,CancelToken}=nothing)
    ch = chunks === nothing ? nothing : Int64[c for c in chunks]
    ch === nothing || length(ch) == ndims(a) ||
        throw(ArgumentError("to_hdf5: $(length(ch)) chunk sizes for $(ndims(a)) dimensions"))
    GC.@preserve ch cancel begin
        o = Ref(CaHdf5Options(sizeof(CaHdf5Options), ch === nothing ? Ptr{Int64}(C_NULL) : pointer(ch),
                              Int32(contiguous), Int32(gzip_level), Int32(shuffle), Int32(overwrite)))
        co = compute_options(cancel)
        check(@ccall $(sym(:ca_array_to_hdf5))(ctx.h::Ptr{Cvoid}, a.h::Ptr{Cvoid}, path::Cstring, dataset::Cstring,
                                               o::Ptr{CaHdf5Options}, co::Ptr{CaComputeOptions})::Int32)
    end
    nothing
end

"A lazy array over an npy stack (dask's `from_npy_stack`: `<dir>/<i>.npy` and the `info` pickle)."
from_npy_stack(dir::AbstractString) =
    newarray(out -> @ccall $(sym(:ca_array_from_npy_stack))(out::Ptr{Ptr{Cvoid}}, dir::Cstring)::Int32)

"""
    to_npy_stack(a, ctx, dir; axis=0)

Compute `a` into an npy stack (dask's `to_npy_stack`): one .npy file per block along `axis` (0-based,
as dask's; negative counts from the end) and the `info` pickle.
"""
function to_npy_stack(a::CArray, ctx::Context, dir::AbstractString; axis::Integer=0,
                      cancel::Union{Nothing,CancelToken}=nothing)
    GC.@preserve cancel begin
        co = compute_options(cancel)
        check(@ccall $(sym(:ca_array_to_npy_stack))(ctx.h::Ptr{Cvoid}, a.h::Ptr{Cvoid}, dir::Cstring, Int32(axis)::Int32,
                                                    co::Ptr{CaComputeOptions})::Int32)
    end
    nothing
end

"Compute several arrays in one pass over their merged graph."
function compute_many(ctx::Context, arrays::CArray...; cancel::Union{Nothing,CancelToken}=nothing)
    hs = Ptr{Cvoid}[a.h for a in arrays]
    outs = fill(C_NULL, length(hs))
    o = compute_options(cancel)
    GC.@preserve cancel begin
        check(@ccall $(sym(:ca_array_compute_many))(outs::Ptr{Ptr{Cvoid}}, ctx.h::Ptr{Cvoid}, hs::Ptr{Ptr{Cvoid}},
                                                    length(hs)::Csize_t, o::Ptr{CaComputeOptions})::Int32)
    end
    map(outs) do b
        try
            block_to_array(b)
        finally
            @ccall $(sym(:ca_block_free))(b::Ptr{Cvoid})::Cvoid
        end
    end
end

"Compute `a` and keep its blocks in memory as a new array."
function persist(a::CArray, ctx::Context; cancel::Union{Nothing,CancelToken}=nothing)
    o = compute_options(cancel)
    newarray() do out
        GC.@preserve cancel @ccall $(sym(:ca_array_persist))(out::Ptr{Ptr{Cvoid}}, ctx.h::Ptr{Cvoid}, a.h::Ptr{Cvoid},
                                                             o::Ptr{CaComputeOptions})::Int32
    end
end

# -- pictures, graphs and files ---------------------------------------------------------------------

function take_string(f)
    out = Ref{Ptr{Cchar}}(C_NULL)
    check(f(out))
    s = unsafe_string(out[])
    @ccall $(sym(:ca_string_free))(out[]::Ptr{Cchar})::Cvoid
    s
end

to_svg(a::CArray; size::Integer=0) = take_string() do out
    @ccall $(sym(:ca_array_to_svg))(out::Ptr{Ptr{Cchar}}, a.h::Ptr{Cvoid}, size::Int32)::Int32
end

mutable struct Graph
    h::Ptr{Cvoid}
    Graph(h) = finalizer(close, new(h))
end

function Base.close(g::Graph)
    if g.h != C_NULL
        @ccall $(sym(:ca_graph_free))(g.h::Ptr{Cvoid})::Cvoid
        g.h = C_NULL
    end
    nothing
end

function graph(a::CArray)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_array_graph))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid})::Int32)
    Graph(out[])
end

# -- building graphs by hand: dask's custom array functions ---------------------------------------

"""
    Key(name, i, j, ...)

A task key: dask's `(name, i, j, ...)`, block indices 0-based as in dask.
"""
struct Key
    name::String
    index::Vector{Int64}
end
Key(name::AbstractString, index::Integer...) = Key(String(name), Int64[index...])
Base.show(io::IO, k::Key) = print(io, "('", k.name, "'", join(", $i" for i in k.index), ")")

"An empty task graph."
function Graph()
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_graph_new))(out::Ptr{Ptr{Cvoid}})::Int32)
    Graph(out[])
end

"A copy sharing `g`'s (immutable) layers."
function Base.copy(g::Graph)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_graph_copy))(out::Ptr{Ptr{Cvoid}}, g.h::Ptr{Cvoid})::Int32)
    Graph(out[])
end

words(p::Ptr, n::Integer) = (UInt64(UInt(p)), UInt64(n), UInt64(0), UInt64(0))

# A Julia value as a ca_arg_t; `keep` holds what its pointers point into (GC.@preserve it).
carg(::Nothing, keep) = CaArg(CA_ARG_NONE, 0, (0, 0, 0, 0))
carg(x::Integer, keep) = CaArg(CA_ARG_INT64, 0, (reinterpret(UInt64, Int64(x)), 0, 0, 0))
carg(x::AbstractFloat, keep) = CaArg(CA_ARG_FLOAT64, 0, (reinterpret(UInt64, Float64(x)), 0, 0, 0))
function carg(x::AbstractString, keep)
    s = String(x)
    occursin('\0', s) && throw(ChunkArrayError(CA_EINVAL, "CA_EINVAL", "string argument $(repr(s)) contains a NUL byte"))
    push!(keep, s)
    CaArg(CA_ARG_STRING, 0, words(pointer(s), sizeof(s)))
end
carg(x::Vector{UInt8}, keep) = (push!(keep, x); CaArg(CA_ARG_BYTES, 0, words(pointer(x), length(x))))
function carg(x::Tuple{Vararg{Integer}}, keep)
    v = Int64[x...]
    push!(keep, v)
    CaArg(CA_ARG_TUPLE, 0, words(pointer(v), length(v)))
end
function carg(k::Key, keep)
    push!(keep, k.name, k.index)
    CaArg(CA_ARG_KEY, 0, (UInt64(UInt(pointer(k.name))), UInt64(UInt(pointer(k.index))), UInt64(length(k.index)), 0))
end
function carg(x::AbstractVector, keep)
    items = CaArg[carg(i, keep) for i in x]
    push!(keep, items)
    CaArg(CA_ARG_LIST, 0, words(pointer(items), length(items)))
end

function ckey(k::Key)
    occursin('\0', k.name) && throw(ChunkArrayError(CA_EINVAL, "CA_EINVAL", "key name $(repr(k.name)) contains a NUL byte"))
    CaKey(pointer(k.name), pointer(k.index), length(k.index))
end

"""
    add_task!(g, key, kernel, args...)

Add the task `key = (kernel, args...)` to the layer `key.name` of `g`. Arguments: integers (int64),
floats (float64), strings, `Vector{UInt8}` (bytes), tuples of integers, vectors (lists),
`nothing`, and a `Key`: a reference to another task, whose result the kernel receives as an array.
Throws `ChunkArrayError` CA_EEXISTS for a duplicate key, CA_EINVAL for an index count that differs
from the layer's.
"""
function add_task!(g::Graph, key::Key, kernel::AbstractString, args...)
    keep = Any[]
    cargs = CaArg[carg(a, keep) for a in args]
    k = Ref(ckey(key))
    GC.@preserve key keep cargs begin
        check(@ccall $(sym(:ca_graph_add_task))(g.h::Ptr{Cvoid}, k::Ptr{CaKey}, kernel::Cstring,
                                                (isempty(cargs) ? C_NULL : pointer(cargs))::Ptr{CaArg},
                                                length(cargs)::Csize_t)::Int32)
    end
    g
end

"Add every layer of `other` to `g`."
Base.merge!(g::Graph, other::Graph) =
    (check(@ccall $(sym(:ca_graph_merge))(g.h::Ptr{Cvoid}, other.h::Ptr{Cvoid})::Int32); g)

function Base.haskey(g::Graph, key::Key)
    k = Ref(ckey(key))
    GC.@preserve key (@ccall $(sym(:ca_graph_has_key))(g.h::Ptr{Cvoid}, k::Ptr{CaKey})::Cint) != 0
end

num_tasks(g::Graph) = @ccall $(sym(:ca_graph_num_tasks))(g.h::Ptr{Cvoid})::Int64

"The layers' names."
function layers(g::Graph)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_graph_layers))(out::Ptr{Ptr{Cvoid}}, g.h::Ptr{Cvoid})::Int32)
    try
        n = @ccall $(sym(:ca_keylist_size))(out[]::Ptr{Cvoid})::Csize_t
        map(0:Int(n)-1) do i
            k = Ref(CaKey(C_NULL, C_NULL, 0))
            check(@ccall $(sym(:ca_keylist_get))(out[]::Ptr{Cvoid}, i::Csize_t, k::Ptr{CaKey})::Int32)
            unsafe_string(k[].name)
        end
    finally
        @ccall $(sym(:ca_keylist_free))(out[]::Ptr{Cvoid})::Cvoid
    end
end

"""
    CArray(g::Graph, name, chunks, T)

The seed's constructor, dask's `Array(graph, name, chunks, dtype)`: an array over the tasks
`(name, i, j, ...)` of `g`, one per block of `chunks` (a vector of block sizes per dimension), with
element type `T`. Throws CA_ENOTFOUND naming the first key of the chunk grid missing from `g`,
CA_EINVAL for negative block sizes.
"""
function CArray(g::Graph, name::AbstractString, chunks::AbstractVector, ::Type{T}) where {T}
    with_chunks([Int64.(c) for c in chunks]) do cc
        newarray() do out
            @ccall $(sym(:ca_array_new))(out::Ptr{Ptr{Cvoid}}, g.h::Ptr{Cvoid}, name::Cstring, cc::Ptr{CaChunks},
                                         dtype_code(T)::Int32)::Int32
        end
    end
end

"Rechunk to explicit block sizes per dimension (`[[2, 3, 4]]`), which must sum to the size."
rechunk_to(a::CArray, chunks::AbstractVector) = with_chunks([Int64.(c) for c in chunks]) do cc
    newarray() do out
        @ccall $(sym(:ca_array_rechunk))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, cc::Ptr{CaChunks})::Int32
    end
end

to_dot(g::Graph) = take_string() do out
    @ccall $(sym(:ca_graph_to_dot))(out::Ptr{Ptr{Cchar}}, g.h::Ptr{Cvoid}, C_NULL::Ptr{Cvoid}, 0::Csize_t)::Int32
end

unsupported(f) = throw(ChunkArrayError(-13, "CA_EUNSUPPORTED", "$f is not in the loaded library"))

# Graph files (format.h): ca_save / ca_load, used when the library has them.
struct CaSaveOptions    # ca_save_options_t
    struct_size::UInt32
    context::Ptr{Cvoid}
    path::Cstring
    graph::Ptr{Cvoid}
    arrays::Ptr{Ptr{Cvoid}}
    narrays::Csize_t
end

struct CaLoadOptions    # ca_load_options_t
    struct_size::UInt32
    path::Cstring
    data::Ptr{Cvoid}
    size::Csize_t
end

function save_file(path::AbstractString, graph::Ptr{Cvoid}, arrays::Vector{Ptr{Cvoid}})
    has_function(:ca_save) || unsupported(:ca_save)
    GC.@preserve path arrays begin
        o = Ref(CaSaveOptions(sizeof(CaSaveOptions), C_NULL, Base.unsafe_convert(Cstring, path), graph,
                              isempty(arrays) ? C_NULL : pointer(arrays), length(arrays)))
        check(@ccall $(sym(:ca_save))(C_NULL::Ptr{Ptr{Cvoid}}, C_NULL::Ptr{Csize_t}, o::Ptr{CaSaveOptions})::Int32)
    end
end

save_graph(g::Graph, path::AbstractString) = save_file(path, g.h, Ptr{Cvoid}[])
save_array(a::CArray, path::AbstractString) = save_file(path, C_NULL, Ptr{Cvoid}[a.h])

function load_options(path::AbstractString)
    Ref(CaLoadOptions(sizeof(CaLoadOptions), Base.unsafe_convert(Cstring, path), C_NULL, 0))
end

function load_graph(path::AbstractString)
    has_function(:ca_load) || unsupported(:ca_load)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    GC.@preserve path begin
        o = load_options(path)
        check(@ccall $(sym(:ca_load))(out::Ptr{Ptr{Cvoid}}, C_NULL::Ptr{Ptr{Ptr{Cvoid}}}, C_NULL::Ptr{Csize_t},
                                      o::Ptr{CaLoadOptions})::Int32)
    end
    Graph(out[])
end

"The one array of a file saved with save_array (ca_load; an error if the file holds none or several)."
function load_array(path::AbstractString)
    has_function(:ca_load) || unsupported(:ca_load)
    list = Ref{Ptr{Ptr{Cvoid}}}(C_NULL)
    n = Ref{Csize_t}(0)
    GC.@preserve path begin
        o = load_options(path)
        check(@ccall $(sym(:ca_load))(C_NULL::Ptr{Ptr{Cvoid}}, list::Ptr{Ptr{Ptr{Cvoid}}}, n::Ptr{Csize_t},
                                      o::Ptr{CaLoadOptions})::Int32)
    end
    hs = [unsafe_load(list[], i) for i in 1:n[]]
    a = n[] == 1 ? CArray(@ccall $(sym(:ca_array_retain))(hs[1]::Ptr{Cvoid})::Ptr{Cvoid}) : nothing
    @ccall $(sym(:ca_array_free_many))(list[]::Ptr{Ptr{Cvoid}}, n[]::Csize_t)::Cvoid
    n[] == 0 && throw(ChunkArrayError(-3, "CA_ENOTFOUND", "'$path' holds no array (a graph file?)"))
    n[] == 1 || throw(ChunkArrayError(-1, "CA_EINVAL", "'$path' holds $(n[]) arrays"))
    a
end

# ---------------------------------------------------------------------------------------------
# Issue 16: named elementwise functions, order statistics and NumPy's routines (routines.h)
# ---------------------------------------------------------------------------------------------
# Axes follow the module's convention: `dims` are Julia's 1-based dimensions of size(a) (which is
# the C shape). Positions the library returns (argsort, searchsorted, digitize, nonzero, argwhere,
# flatnonzero, unique's index/inverse, tril/triu indices) are NumPy's 0-based values.

# Elementwise functions Julia's Base already names: methods for CArray.
for (f, op) in ((:cbrt, CA_OP_CBRT), (:exp2, CA_OP_EXP2), (:expm1, CA_OP_EXPM1), (:log1p, CA_OP_LOG1P),
                (:log2, CA_OP_LOG2), (:log10, CA_OP_LOG10), (:tan, CA_OP_TAN), (:asin, CA_OP_ARCSIN),
                (:acos, CA_OP_ARCCOS), (:atan, CA_OP_ARCTAN), (:sinh, CA_OP_SINH), (:cosh, CA_OP_COSH),
                (:asinh, CA_OP_ARCSINH), (:acosh, CA_OP_ARCCOSH), (:atanh, CA_OP_ARCTANH),
                (:deg2rad, CA_OP_DEG2RAD), (:rad2deg, CA_OP_RAD2DEG), (:trunc, CA_OP_TRUNC),
                (:signbit, CA_OP_SIGNBIT), (:isinf, CA_OP_ISINF), (:isfinite, CA_OP_ISFINITE),
                (:conj, CA_OP_CONJ), (:real, CA_OP_REAL), (:imag, CA_OP_IMAG), (:angle, CA_OP_ANGLE),
                (:sinc, CA_OP_SINC), (:inv, CA_OP_RECIPROCAL), (:~, CA_OP_INVERT), (:isreal, CA_OP_ISREAL),
                (:+, CA_OP_POSITIVE))
    @eval Base.$f(a::CArray) = unary($op, a)
end
for (f, op) in ((:hypot, CA_OP_HYPOT), (:copysign, CA_OP_COPYSIGN), (:atan, CA_OP_ARCTAN2), (:rem, CA_OP_FMOD),
                (:mod, CA_OP_MOD), (:fld, CA_OP_FLOORDIV), (:ldexp, CA_OP_LDEXP), (:<<, CA_OP_LEFT_SHIFT),
                (:>>, CA_OP_RIGHT_SHIFT), (:&, CA_OP_BITAND), (:|, CA_OP_BITOR), (:xor, CA_OP_BITXOR))
    @eval Base.$f(a::CArray, b::CArray) = binary($op, a, b)
end
Base.frexp(a::CArray) = (unary(CA_OP_FREXP_MANTISSA, a), unary(CA_OP_FREXP_EXPONENT, a))
Base.modf(a::CArray) = (unary(CA_OP_MODF_FRACTION, a), unary(CA_OP_TRUNC, a))
Base.fldmod(a::CArray, b::CArray) = (binary(CA_OP_FLOORDIV, a, b), binary(CA_OP_MOD, a, b))

# NumPy's names (also for the ones Base has under another name).
for (f, op) in ((:fabs, CA_OP_FABS), (:spacing, CA_OP_SPACING), (:i0, CA_OP_I0), (:positive, CA_OP_POSITIVE),
                (:negative, CA_OP_NEG), (:isneginf, CA_OP_ISNEGINF), (:isposinf, CA_OP_ISPOSINF),
                (:iscomplex, CA_OP_ISCOMPLEX), (:reciprocal, CA_OP_RECIPROCAL), (:fix, CA_OP_TRUNC),
                (:rint, CA_OP_ROUND), (:radians, CA_OP_DEG2RAD), (:degrees, CA_OP_RAD2DEG),
                (:bitwise_not, CA_OP_INVERT), (:invert, CA_OP_INVERT), (:arcsin, CA_OP_ARCSIN),
                (:arccos, CA_OP_ARCCOS), (:arctan, CA_OP_ARCTAN), (:arcsinh, CA_OP_ARCSINH),
                (:arccosh, CA_OP_ARCCOSH), (:arctanh, CA_OP_ARCTANH), (:logical_not, CA_OP_NOT),
                (:square, CA_OP_SQUARE))
    @eval $f(a::CArray) = unary($op, a)
end
for (f, op) in ((:fmax, CA_OP_FMAX), (:fmin, CA_OP_FMIN), (:fmod, CA_OP_FMOD), (:float_power, CA_OP_FLOAT_POWER),
                (:logaddexp, CA_OP_LOGADDEXP), (:logaddexp2, CA_OP_LOGADDEXP2), (:nextafter, CA_OP_NEXTAFTER),
                (:left_shift, CA_OP_LEFT_SHIFT), (:right_shift, CA_OP_RIGHT_SHIFT), (:arctan2, CA_OP_ARCTAN2),
                (:remainder, CA_OP_MOD), (:floor_divide, CA_OP_FLOORDIV), (:logical_and, CA_OP_AND),
                (:logical_or, CA_OP_OR), (:logical_xor, CA_OP_XOR))
    @eval $f(a::CArray, b::CArray) = binary($op, a, b)
end
"np.divmod(a, b): (a // b, a % b) with NumPy's floor semantics (Base.fldmod)."
divmod(a::CArray, b::CArray) = fldmod(a, b)

"np.isclose(a, b; rtol, atol, equal_nan): a lazy Bool array of the broadcast shape."
isclose(a::CArray, b::CArray; rtol::Real=1e-5, atol::Real=1e-8, equal_nan::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_isclose))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, b.h::Ptr{Cvoid}, Float64(rtol)::Cdouble,
                                     Float64(atol)::Cdouble, Cint(equal_nan)::Cint)::Int32
end
"np.allclose as dask: a lazy 0-d Bool array, all(isclose(a, b; ...))."
allclose(a::CArray, b::CArray; kw...) = reduce_op(CA_RED_ALL, isclose(a, b; kw...))

"np.nan_to_num(a; nan, posinf, neginf): `nothing` for the dtype's largest / most negative finite value."
function nan_to_num(a::CArray; nan::Real=0.0, posinf::Union{Nothing,Real}=nothing, neginf::Union{Nothing,Real}=nothing)
    p = Ref(Float64(something(posinf, 0.0)))
    n = Ref(Float64(something(neginf, 0.0)))
    newarray() do out
        GC.@preserve p n begin
            @ccall $(sym(:ca_array_nan_to_num))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Float64(nan)::Cdouble,
                (posinf === nothing ? C_NULL : Base.unsafe_convert(Ptr{Float64}, p))::Ptr{Cdouble},
                (neginf === nothing ? C_NULL : Base.unsafe_convert(Ptr{Float64}, n))::Ptr{Cdouble})::Int32
        end
    end
end

# -- order statistics ------------------------------------------------------------------------------

struct CaQuantileOptions  # ca_quantile_options_t
    struct_size::UInt32
    method::Int32
    keepdims::Int32
    skip_nan::Int32
    dtype::Int32
end

const QUANTILE_METHODS = Dict(:linear => 0, :lower => 1, :higher => 2, :nearest => 3, :midpoint => 4)

axes0(dims) = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]

function quantile_raw(a::CArray, q::Vector{Float64}, scalar::Bool, dims, method::Symbol, keepdims::Bool,
                      skip_nan::Bool, T)
    haskey(QUANTILE_METHODS, method) ||
        throw(ChunkArrayError(-1, "CA_EINVAL", "quantile: unknown method $method (linear, lower, higher, nearest, midpoint)"))
    ax = axes0(dims)
    o = Ref(CaQuantileOptions(sizeof(CaQuantileOptions), QUANTILE_METHODS[method], keepdims, skip_nan,
                              T === nothing ? 0 : dtype_code(T)))
    newarray() do out
        GC.@preserve q ax begin
            @ccall $(sym(:ca_array_quantile))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, pointer(q)::Ptr{Cdouble},
                length(q)::Csize_t, Cint(scalar)::Cint, (isempty(ax) ? C_NULL : pointer(ax))::Ptr{Int32},
                length(ax)::Int32, o::Ptr{CaQuantileOptions})::Int32
        end
    end
end

"""
    quantile(a, q; dims=:, method=:linear, keepdims=false, skipnan=false, eltype=nothing)

np.quantile, exact: `q` a number in [0, 1] (no q axis) or a vector (the result's first axis is q's).
The reduced dims become one chunk each, as dask's median. `eltype`: Float16/32/64 (or a's for
:lower/:higher/:nearest); `nothing` is NumPy's (Float64 for :linear/:midpoint).
"""
quantile(a::CArray, q::Real; dims=:, method::Symbol=:linear, keepdims::Bool=false, skipnan::Bool=false,
         eltype=nothing) = quantile_raw(a, [Float64(q)], true, dims, method, keepdims, skipnan, eltype)
quantile(a::CArray, q::AbstractVector; dims=:, method::Symbol=:linear, keepdims::Bool=false, skipnan::Bool=false,
         eltype=nothing) = quantile_raw(a, Float64.(collect(q)), false, dims, method, keepdims, skipnan, eltype)
"np.percentile: quantile of p / 100 (p a number or a vector)."
percentile(a::CArray, p; kw...) = quantile(a, p isa Real ? p / 100 : collect(p) ./ 100; kw...)
"np.nanquantile: quantile ignoring NaN."
nanquantile(a::CArray, q; kw...) = quantile(a, q; kw..., skipnan=true)
"np.nanpercentile: percentile ignoring NaN."
nanpercentile(a::CArray, p; kw...) = percentile(a, p; kw..., skipnan=true)
median_type(a::CArray) = Base.eltype(a) in (Float16, Float32) ? Base.eltype(a) : Float64
"np.median(a; dims, keepdims): Float16/Float32 stay, other types give Float64."
median(a::CArray; dims=:, keepdims::Bool=false) =
    quantile_raw(a, [0.5], true, dims, :linear, keepdims, false, median_type(a))
"np.nanmedian(a; dims, keepdims): NaNs ignored."
nanmedian(a::CArray; dims=:, keepdims::Bool=false) =
    quantile_raw(a, [0.5], true, dims, :linear, keepdims, true, median_type(a))

# -- creation --------------------------------------------------------------------------------------

struct CaLikeOptions      # ca_like_options_t
    struct_size::UInt32
    dtype::Int32
    ndim::Int32
    shape::Ptr{Int64}
    chunks::Ptr{CaChunks}
    limit::Int64
end

function like(f::Symbol, a::CArray, value, eltype, shape, chunks, limit)
    shp = shape === nothing ? Int64[] : Int64[shape...]
    ch = chunks === nothing ? Vector{Int64}[] : [Int64.(c) for c in chunks]
    with_chunks(ch) do cc
        GC.@preserve shp cc begin
            o = Ref(CaLikeOptions(sizeof(CaLikeOptions), eltype === nothing ? 0 : dtype_code(eltype),
                                  shape === nothing ? -1 : length(shp), isempty(shp) ? C_NULL : pointer(shp),
                                  chunks === nothing ? C_NULL : Base.unsafe_convert(Ptr{CaChunks}, cc), limit))
            newarray() do out
                if f === :empty
                    @ccall $(sym(:ca_array_empty_like))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, o::Ptr{CaLikeOptions})::Int32
                elseif f === :zeros
                    @ccall $(sym(:ca_array_zeros_like))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, o::Ptr{CaLikeOptions})::Int32
                elseif f === :ones
                    @ccall $(sym(:ca_array_ones_like))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, o::Ptr{CaLikeOptions})::Int32
                else
                    @ccall $(sym(:ca_array_full_like))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, scalar(Float64(value))::CaScalar,
                                                       o::Ptr{CaLikeOptions})::Int32
                end
            end
        end
    end
end
"dask's empty_like(a; eltype, shape, chunks, limit): `nothing` keeps a's; contents unspecified."
empty_like(a::CArray; eltype=nothing, shape=nothing, chunks=nothing, limit::Integer=0) =
    like(:empty, a, 0, eltype, shape, chunks, limit)
"dask's zeros_like (see empty_like)."
zeros_like(a::CArray; eltype=nothing, shape=nothing, chunks=nothing, limit::Integer=0) =
    like(:zeros, a, 0, eltype, shape, chunks, limit)
"dask's ones_like (see empty_like)."
ones_like(a::CArray; eltype=nothing, shape=nothing, chunks=nothing, limit::Integer=0) =
    like(:ones, a, 0, eltype, shape, chunks, limit)
"dask's full_like(a, value): value cast to the result's type as NumPy's unsafe cast (integers truncate)."
full_like(a::CArray, value::Real; eltype=nothing, shape=nothing, chunks=nothing, limit::Integer=0) =
    like(:full, a, value, eltype, shape, chunks, limit)

"np.indices(dims, T) with dask's chunks ((1,)*ndim, chunks...): size (ndim, dims...), 0-based values."
function indices(::Type{T}, dims::Tuple; chunks=0) where {T}
    shp = Int64[dims...]
    with_chunks(normalize_chunks(shp, chunks, T)) do cc
        newarray() do out
            @ccall $(sym(:ca_array_indices))(out::Ptr{Ptr{Cvoid}}, length(shp)::Int32,
                (isempty(shp) ? C_NULL : pointer(shp))::Ptr{Int64}, cc::Ptr{CaChunks}, dtype_code(T)::Int32)::Int32
        end
    end
end

"Runs a C call filling `n` output handles; all wrapped, or none on failure."
function many(f, n::Integer)
    outs = fill(C_NULL, max(n, 1))
    GC.@preserve outs check(f(pointer(outs)))
    [CArray(outs[i]) for i in 1:n]
end

"np.meshgrid(arrays...; indexing=:xy|:ij, sparse) with dask's chunks."
function meshgrid(arrays::CArray...; indexing::Symbol=:xy, sparse::Bool=false)
    indexing in (:xy, :ij) || throw(ChunkArrayError(-1, "CA_EINVAL", "meshgrid: indexing must be :xy or :ij"))
    hs = Ptr{Cvoid}[a.h for a in arrays]
    GC.@preserve arrays hs begin
        many(length(hs)) do outs
            @ccall $(sym(:ca_array_meshgrid))(outs::Ptr{Ptr{Cvoid}}, pointer(hs)::Ptr{Ptr{Cvoid}}, length(hs)::Csize_t,
                                              (indexing === :ij ? 1 : 0)::Int32, Cint(sparse)::Cint)::Int32
        end
    end
end

"np.broadcast_arrays(arrays...) with dask's chunks."
function broadcast_arrays(arrays::CArray...)
    hs = Ptr{Cvoid}[a.h for a in arrays]
    GC.@preserve arrays hs begin
        many(length(hs)) do outs
            @ccall $(sym(:ca_array_broadcast_arrays))(outs::Ptr{Ptr{Cvoid}}, pointer(hs)::Ptr{Ptr{Cvoid}},
                                                      length(hs)::Csize_t)::Int32
        end
    end
end

"np.tril(a, k): elements above the k-th diagonal of the last two dims set to zero."
tril(a::CArray, k::Integer=0) = newarray() do out
    @ccall $(sym(:ca_array_tril))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int64(k)::Int64)::Int32
end
"np.triu(a, k): elements below the k-th diagonal set to zero."
triu(a::CArray, k::Integer=0) = newarray() do out
    @ccall $(sym(:ca_array_triu))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int64(k)::Int64)::Int32
end

function tri_indices(upper::Bool, n, k, m, ch)
    r, c = Ref{Ptr{Cvoid}}(C_NULL), Ref{Ptr{Cvoid}}(C_NULL)
    with_chunks(ch) do cc
        if upper
            check(@ccall $(sym(:ca_array_triu_indices))(r::Ptr{Ptr{Cvoid}}, c::Ptr{Ptr{Cvoid}}, Int64(n)::Int64,
                                                        Int64(k)::Int64, Int64(m)::Int64, cc::Ptr{CaChunks})::Int32)
        else
            check(@ccall $(sym(:ca_array_tril_indices))(r::Ptr{Ptr{Cvoid}}, c::Ptr{Ptr{Cvoid}}, Int64(n)::Int64,
                                                        Int64(k)::Int64, Int64(m)::Int64, cc::Ptr{CaChunks})::Int32)
        end
    end
    (CArray(r[]), CArray(c[]))
end
"np.tril_indices(n, k, m) as dask: (rows, cols), 0-based Int64, blocks of unknown size."
tril_indices(n::Integer, k::Integer=0, m::Integer=n; chunks=0) =
    tri_indices(false, n, k, m, normalize_chunks(Int64[n, m], chunks, Bool))
"np.triu_indices(n, k, m) (see tril_indices)."
triu_indices(n::Integer, k::Integer=0, m::Integer=n; chunks=0) =
    tri_indices(true, n, k, m, normalize_chunks(Int64[n, m], chunks, Bool))
"np.tril_indices_from(a, k): a 2-d; its size and chunks."
tril_indices_from(a::CArray, k::Integer=0) = ndims(a) == 2 ? tri_indices(false, size(a)[1], k, size(a)[2], chunks(a)) :
    throw(ChunkArrayError(-1, "CA_EINVAL", "tril_indices_from: the input must be 2-d"))
"np.triu_indices_from(a, k): a 2-d."
triu_indices_from(a::CArray, k::Integer=0) = ndims(a) == 2 ? tri_indices(true, size(a)[1], k, size(a)[2], chunks(a)) :
    throw(ChunkArrayError(-1, "CA_EINVAL", "triu_indices_from: the input must be 2-d"))

"np.diagonal(a, offset, dim1, dim2) with dask's chunks: the diagonal is the last dim."
diagonal(a::CArray; offset::Integer=0, dims=(1, 2)) = newarray() do out
    @ccall $(sym(:ca_array_diagonal))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int64(offset)::Int64,
                                      Int32(dims[1] - 1)::Int32, Int32(dims[2] - 1)::Int32)::Int32
end

# -- sorting, sets, searching ------------------------------------------------------------------------

"np.sort along `dims` (stable, NaNs last; rev: descending with NaNs first); that dim becomes one chunk."
Base.sort(a::CArray; dims::Integer=1, rev::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_sort))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int32(dims - 1)::Int32, Cint(rev)::Cint)::Int32
end
"np.argsort(kind='stable') along `dims`: 0-based Int64 positions."
argsort(a::CArray; dims::Integer=1, rev::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_argsort))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int32(dims - 1)::Int32, Cint(rev)::Cint)::Int32
end

"""
    unique_all(a; index=false, inverse=false, counts=false, distinct_nan=false)

np.unique(a, return_index, return_inverse, return_counts): a NamedTuple (values, index, inverse,
counts), `nothing` for what was not asked for; positions are 0-based.
"""
function unique_all(a::CArray; index::Bool=false, inverse::Bool=false, counts::Bool=false, distinct_nan::Bool=false)
    outs = fill(C_NULL, 4)
    GC.@preserve outs begin
        p(i, want) = want ? pointer(outs, i) : Ptr{Ptr{Cvoid}}(C_NULL)
        check(@ccall $(sym(:ca_array_unique))(pointer(outs, 1)::Ptr{Ptr{Cvoid}}, p(2, index)::Ptr{Ptr{Cvoid}},
                                              p(3, inverse)::Ptr{Ptr{Cvoid}}, p(4, counts)::Ptr{Ptr{Cvoid}},
                                              a.h::Ptr{Cvoid}, UInt32(distinct_nan)::UInt32)::Int32)
    end
    w(h) = h == C_NULL ? nothing : CArray(h)
    (values=CArray(outs[1]), index=w(outs[2]), inverse=w(outs[3]), counts=w(outs[4]))
end
"np.unique(a): the sorted unique values of the flattened array."
Base.unique(a::CArray) = unique_all(a).values

"np.isin(a, test; invert): Bool with a's chunks."
isin(a::CArray, test::CArray; invert::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_isin))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, test.h::Ptr{Cvoid}, Cint(invert)::Cint)::Int32
end
"np.union1d(a, b)."
union1d(a::CArray, b::CArray) = newarray() do out
    @ccall $(sym(:ca_array_union1d))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, b.h::Ptr{Cvoid})::Int32
end
"np.searchsorted(a, v; side=:left|:right, sorter): 0-based insertion positions with v's chunks."
function Base.searchsorted(a::CArray, v::CArray; side::Symbol=:left, sorter::Union{Nothing,CArray}=nothing)
    side in (:left, :right) || throw(ChunkArrayError(-1, "CA_EINVAL", "searchsorted: side must be :left or :right"))
    newarray() do out
        @ccall $(sym(:ca_array_searchsorted))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, v.h::Ptr{Cvoid},
                                              (side === :right ? 1 : 0)::Int32,
                                              (sorter === nothing ? C_NULL : sorter.h)::Ptr{Cvoid})::Int32
    end
end
"np.digitize(x, bins; right): Int64 bin indices with x's chunks (bins checked when computed)."
digitize(x::CArray, bins::CArray; right::Bool=false) = newarray() do out
    @ccall $(sym(:ca_array_digitize))(out::Ptr{Ptr{Cvoid}}, x.h::Ptr{Cvoid}, bins.h::Ptr{Cvoid}, Cint(right)::Cint)::Int32
end
"np.nonzero(a): one 0-based Int64 index array per dim."
function nonzero(a::CArray)
    ndims(a) == 0 && throw(ChunkArrayError(-1, "CA_EINVAL", "nonzero: a 0-d array has no dims to index"))
    many(ndims(a)) do outs
        @ccall $(sym(:ca_array_nonzero))(outs::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid})::Int32
    end
end
"np.flatnonzero(a): 0-based positions in the raveled (C order) array."
flatnonzero(a::CArray) = newarray() do out
    @ccall $(sym(:ca_array_flatnonzero))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid})::Int32
end
"np.argwhere(a): (unknown, ndims) 0-based indices of the nonzero elements."
argwhere(a::CArray) = newarray() do out
    @ccall $(sym(:ca_array_argwhere))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid})::Int32
end

# -- manipulation ------------------------------------------------------------------------------------

"np.roll(a, shifts; dims): dims=: rolls the flattened (C order) array by one shift."
function roll(a::CArray, shifts; dims=:)
    sh = Int64[shifts...]
    ax = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]
    dims === Colon() || length(ax) == length(sh) ||
        throw(ChunkArrayError(-1, "CA_EINVAL", "roll: $(length(sh)) shifts for $(length(ax)) dims"))
    newarray() do out
        GC.@preserve sh ax begin
            @ccall $(sym(:ca_array_roll))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, pointer(sh)::Ptr{Int64},
                (dims === Colon() ? C_NULL : pointer(ax))::Ptr{Int32}, length(sh)::Int32)::Int32
        end
    end
end
"np.rot90(a, k, axes=(dims[1]-1, dims[2]-1))."
rot90(a::CArray, k::Integer=1; dims=(1, 2)) = newarray() do out
    @ccall $(sym(:ca_array_rot90))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int64(k)::Int64, Int32(dims[1] - 1)::Int32,
                                   Int32(dims[2] - 1)::Int32)::Int32
end
"np.rollaxis(a, dim - 1, start - 1): dim moved before `start` (1-based)."
rollaxis(a::CArray, dim::Integer, start::Integer=1) = newarray() do out
    @ccall $(sym(:ca_array_rollaxis))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int32(dim - 1)::Int32,
                                      Int32(start - 1)::Int32)::Int32
end

"dask's take(a, indices; dims): a[..., indices, ...] along `dims` (indices 0-based as NumPy's, may be negative)."
function take(a::CArray, indices::AbstractVector{<:Integer}; dims::Integer=1)
    ix = Int64.(collect(indices))
    newarray() do out
        GC.@preserve ix begin
            @ccall $(sym(:ca_array_take))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid},
                (isempty(ix) ? C_NULL : pointer(ix))::Ptr{Int64}, length(ix)::Int64, Int32(dims - 1)::Int32)::Int32
        end
    end
end

"np.einsum(subscripts, operands...; eltype) as dask; `eltype` nothing: the operands' promotion."
function einsum(subscripts::AbstractString, operands::CArray...; eltype=nothing)
    hs = Ptr{Cvoid}[o.h for o in operands]
    newarray() do out
        GC.@preserve operands hs begin
            @ccall $(sym(:ca_linalg_einsum))(out::Ptr{Ptr{Cvoid}}, subscripts::Cstring, pointer(hs)::Ptr{Ptr{Cvoid}},
                                             length(hs)::Csize_t, (eltype === nothing ? 0 : dtype_code(eltype))::Int32)::Int32
        end
    end
end

"True when every block size of `a` is known (false after unique, nonzero, ... until compute_chunk_sizes)."
chunks_known(a::CArray) = (@ccall $(sym(:ca_array_chunks_known))(a.h::Ptr{Cvoid})::Cint) != 0

"dask's compute_chunk_sizes(): the same array with known chunks (runs the graph keeping only block shapes)."
function compute_chunk_sizes(a::CArray, ctx::Context; cancel::Union{Nothing,CancelToken}=nothing)
    o = compute_options(cancel)
    GC.@preserve cancel begin
        newarray() do out
            @ccall $(sym(:ca_array_compute_chunk_sizes))(out::Ptr{Ptr{Cvoid}}, ctx.h::Ptr{Cvoid}, a.h::Ptr{Cvoid},
                                                         o::Ptr{CaComputeOptions})::Int32
        end
    end
end

# -- insert, delete, choose, select, coarsen, bincount (routines.h) -------------------------------

"np.insert(a, positions, values; dims): values placed before the 0-based positions (0..extent) along `dims`."
function insert(a::CArray, positions::AbstractVector{<:Integer}, values::CArray; dims::Integer=1)
    p = Int64.(collect(positions))
    newarray() do out
        GC.@preserve p begin
            @ccall $(sym(:ca_array_insert))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, (isempty(p) ? C_NULL : pointer(p))::Ptr{Int64},
                                            length(p)::Csize_t, values.h::Ptr{Cvoid}, Int32(dims - 1)::Int32)::Int32
        end
    end
end

"np.delete(a, positions; dims): the elements at the 0-based positions along `dims` removed."
function delete(a::CArray, positions::AbstractVector{<:Integer}; dims::Integer=1)
    p = Int64.(collect(positions))
    newarray() do out
        GC.@preserve p begin
            @ccall $(sym(:ca_array_delete))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, (isempty(p) ? C_NULL : pointer(p))::Ptr{Int64},
                                            length(p)::Csize_t, Int32(dims - 1)::Int32)::Int32
        end
    end
end

const CHOOSE_MODES = Dict(:raise => 0, :wrap => 1, :clip => 2)

"np.choose(a, choices...; mode=:raise|:wrap|:clip): element i is choices[a[i] + 1][i] (a's values 0-based)."
function choose(a::CArray, choices::CArray...; mode::Symbol=:raise)
    haskey(CHOOSE_MODES, mode) || throw(ChunkArrayError(-1, "CA_EINVAL", "choose: mode must be :raise, :wrap or :clip"))
    hs = Ptr{Cvoid}[c.h for c in choices]
    newarray() do out
        GC.@preserve choices hs begin
            @ccall $(sym(:ca_array_choose))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, pointer(hs)::Ptr{Ptr{Cvoid}},
                                            length(hs)::Csize_t, Int32(CHOOSE_MODES[mode])::Int32)::Int32
        end
    end
end

"np.select(conditions, choices, default): where the first true condition is, its choice; else `default`."
function select(conditions::AbstractVector{CArray}, choices::AbstractVector{CArray}, default::Number=0)
    length(conditions) == length(choices) ||
        throw(ChunkArrayError(-1, "CA_EINVAL", "select: $(length(conditions)) conditions for $(length(choices)) choices"))
    cs = Ptr{Cvoid}[c.h for c in conditions]
    hs = Ptr{Cvoid}[c.h for c in choices]
    newarray() do out
        GC.@preserve conditions choices cs hs begin
            @ccall $(sym(:ca_array_select))(out::Ptr{Ptr{Cvoid}}, pointer(cs)::Ptr{Ptr{Cvoid}}, pointer(hs)::Ptr{Ptr{Cvoid}},
                                            length(hs)::Csize_t, scalar(default)::CaScalar)::Int32
        end
    end
end

"dask's coarsen(op, a, factors; trim_excess): the CA_RED_* `op` over windows of `factors` (one per dim)."
function coarsen(op::Integer, a::CArray, factors; trim_excess::Bool=false)
    f = Int64[factors...]
    length(f) == ndims(a) || throw(ChunkArrayError(-1, "CA_EINVAL", "coarsen: $(length(f)) factors for $(ndims(a)) dims"))
    newarray() do out
        GC.@preserve f begin
            @ccall $(sym(:ca_array_coarsen))(out::Ptr{Ptr{Cvoid}}, Int32(op)::Int32, a.h::Ptr{Cvoid},
                                             (isempty(f) ? C_NULL : pointer(f))::Ptr{Int64}, Cint(trim_excess)::Cint)::Int32
        end
    end
end

"""
    bincount(x, length; weights=nothing, split_every=0)

np.bincount with a result of `length` elements (NumPy's is max(maximum(x) + 1, minlength): compute
it first): Int64 counts of each value 0..length-1 in the 1-d bool/integer `x`, or with `weights`
(x's shape, real) their Float64 sums. One block (dask's tree reduction, `split_every` blocks per
node; 0: dask's default). A value outside [0, length) fails the compute.
"""
function bincount(x::CArray, length::Integer; weights::Union{Nothing,CArray}=nothing, split_every::Integer=0)
    w = weights === nothing ? C_NULL : weights.h
    newarray() do out
        GC.@preserve weights begin
            @ccall $(sym(:ca_array_bincount))(out::Ptr{Ptr{Cvoid}}, x.h::Ptr{Cvoid}, w::Ptr{Cvoid}, Int64(length)::Int64,
                                              Int32(split_every)::Int32)::Int32
        end
    end
end

"""
    bincount_minlength(x, minlength=0; weights=nothing, split_every=0)

np.bincount(x, weights, minlength) with NumPy's length, max(maximum(x) + 1, minlength), found by the
one pass that counts (CA_BINCOUNT_AT_LEAST): the length is unknown until computed (dask's nan
chunk; `compute_chunk_sizes` measures it). A negative value fails the compute.
"""
function bincount_minlength(x::CArray, minlength::Integer=0; weights::Union{Nothing,CArray}=nothing,
                            split_every::Integer=0)
    minlength >= 0 || throw(ChunkArrayError(-1, "CA_EINVAL", "bincount: minlength $minlength is negative"))
    bincount(x, -1 - Int64(minlength); weights=weights, split_every=split_every)
end

# One dimension's ca_histogram_bins_t: an integer number of bins over a range, or a CArray of edges.
function _histogram_bins(b, r, i)
    b isa CArray && return CaHistogramBins(0, 0.0, 0.0, b.h)
    r === nothing && throw(ChunkArrayError(-1, "CA_EINVAL",
                                           "histogram: bins[$i] is a number of bins and needs a range (lo, hi)"))
    CaHistogramBins(Int64(b), Float64(r[1]), Float64(r[2]), C_NULL)
end

function _histogramdd(samples::AbstractVector{CArray}, bins::AbstractVector, ranges, weights, density::Bool,
                      mode::Integer, split_every::Integer)
    d = length(samples)
    length(bins) == d || throw(ChunkArrayError(-1, "CA_EINVAL", "histogramdd: $(length(bins)) bins for $d samples"))
    rs = ranges === nothing ? fill(nothing, d) : ranges
    length(rs) == d || throw(ChunkArrayError(-1, "CA_EINVAL", "histogramdd: $(length(rs)) ranges for $d samples"))
    bs = CaHistogramBins[_histogram_bins(bins[i], rs[i], i - 1) for i in 1:d]
    hs = Ptr{Cvoid}[s.h for s in samples]
    o = Ref(CaHistogramOptions(sizeof(CaHistogramOptions), weights === nothing ? C_NULL : weights.h,
                               Int32(density), Int32(mode), Int32(split_every)))
    hist = Ref{Ptr{Cvoid}}(C_NULL)
    edges = GC.@preserve samples bins weights hs bs o begin
        many(d) do outs
            @ccall $(sym(:ca_array_histogramdd))(hist::Ptr{Ptr{Cvoid}}, outs::Ptr{Ptr{Cvoid}}, pointer(hs)::Ptr{Ptr{Cvoid}},
                                                 d::Csize_t, pointer(bs)::Ptr{CaHistogramBins},
                                                 o::Ptr{CaHistogramOptions})::Int32
        end
    end
    CArray(hist[]), edges
end

"""
    histogram(a, bins; range=nothing, weights=nothing, density=false, split_every=0) -> (hist, edges)

np.histogram(a, bins, range, weights=, density=) with dask's scheme (ca_array_histogramdd): `bins`
an integer (with `range = (lo, hi)`, required as dask) or a CArray of increasing edges. One block:
Int64 counts, the weights' element type with weights, Float64 with density; the edges (NumPy's for
a number of bins, the given array otherwise). Values outside the edges and NaNs are ignored.
"""
function histogram(a::CArray, bins; range=nothing, weights::Union{Nothing,CArray}=nothing, density::Bool=false,
                   split_every::Integer=0)
    h, e = _histogramdd(CArray[a], Any[bins], range === nothing ? nothing : Any[range], weights, density, 0,
                        split_every)
    h, e[1]
end

"""
    histogramdd(samples, bins; range=nothing, weights=nothing, density=false, split_every=0) -> (hist, edges)

np.histogramdd of the samples (CArrays of one shape; two: np.histogram2d): per dimension an integer
number of bins (with `range[i] = (lo, hi)`) or a CArray of edges. Float64 result of one block, one
edges array per dimension.
"""
function histogramdd(samples::AbstractVector{CArray}, bins::AbstractVector; range=nothing,
                     weights::Union{Nothing,CArray}=nothing, density::Bool=false, split_every::Integer=0)
    _histogramdd(samples, bins, range, weights, density, 1, split_every)
end

"""
    ravel_multi_index(coords, dims; modes=nothing, order=:C)

np.ravel_multi_index(coords, dims, mode, order): the Int64 flat index (0-based, as NumPy's) of each
coordinate tuple, the coordinate arrays (integer element types) broadcast together. `modes`: nothing
(raise for every dimension) or one of :raise, :wrap, :clip per dimension; `order` :C or :F. A
coordinate out of range in a :raise dimension fails the compute.
"""
function ravel_multi_index(coords::AbstractVector{CArray}, dims::AbstractVector{<:Integer};
                           modes::Union{Nothing,AbstractVector{Symbol}}=nothing, order::Symbol=:C)
    order in (:C, :F) || throw(ChunkArrayError(-1, "CA_EINVAL", "ravel_multi_index: order must be :C or :F"))
    length(dims) == length(coords) ||
        throw(ChunkArrayError(-1, "CA_EINVAL", "ravel_multi_index: $(length(coords)) coordinate arrays for $(length(dims)) dims"))
    hs = Ptr{Cvoid}[c.h for c in coords]
    ds = Int64[d for d in dims]
    ms = modes === nothing ? Int32[] : Int32[Int32(CHOOSE_MODES[m]) for m in modes]
    modes === nothing || length(ms) == length(coords) ||
        throw(ChunkArrayError(-1, "CA_EINVAL", "ravel_multi_index: $(length(ms)) modes for $(length(coords)) dims"))
    mp = isempty(ms) ? Ptr{Int32}(C_NULL) : pointer(ms)
    newarray() do out
        GC.@preserve coords hs ds ms begin
            @ccall $(sym(:ca_array_ravel_multi_index))(out::Ptr{Ptr{Cvoid}}, pointer(hs)::Ptr{Ptr{Cvoid}},
                                                       length(hs)::Csize_t, pointer(ds)::Ptr{Int64}, mp::Ptr{Int32},
                                                       Cint(order === :F)::Cint)::Int32
        end
    end
end

"""
    unravel_index(indices, dims; order=:C)

np.unravel_index(indices, dims, order): one Int64 array of (0-based) coordinates per dimension, with
the indices' chunks. An index outside [0, prod(dims)) fails the compute.
"""
function unravel_index(indices::CArray, dims::AbstractVector{<:Integer}; order::Symbol=:C)
    order in (:C, :F) || throw(ChunkArrayError(-1, "CA_EINVAL", "unravel_index: order must be :C or :F"))
    ds = Int64[d for d in dims]
    GC.@preserve indices ds begin
        many(length(ds)) do outs
            @ccall $(sym(:ca_array_unravel_index))(outs::Ptr{Ptr{Cvoid}}, indices.h::Ptr{Cvoid}, pointer(ds)::Ptr{Int64},
                                                   length(ds)::Csize_t, Cint(order === :F)::Cint)::Int32
        end
    end
end

# ---------------------------------------------------------------------------------------------
# fft.h: dask.array.fft. Every transformed dim must be one chunk (dask's error otherwise); dims are
# Julia's 1-based dimensions of size(a), NumPy's `axis=-1` is `dims=ndims(a)`.
# ---------------------------------------------------------------------------------------------

struct CaFftOptions       # ca_fft_options_t
    struct_size::UInt32
    naxes::Int32
    axes::Ptr{Int32}
    ns::Int32
    s::Ptr{Int64}
    norm::Int32
end

"""
    FFT

numpy.fft / dask.array.fft over the C library's fft.h: `fft ifft rfft irfft hfft ihfft` (one dim,
`n`), `fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn` (several dims, `s`), the general
`transform(a, kind; dims, s, norm)`, `fftfreq rfftfreq fftshift ifftshift` and `backend()`.
`norm` is `:backward` (NumPy's default), `:ortho` or `:forward`. Results are ComplexF64, or Float64
for irfft*/hfft; the transformed dims become one chunk each of the output length, the others keep
their chunks.
"""
module FFT

using ..ChunkArray: CArray, CaChunks, CaFftOptions, ChunkArrayError, newarray, normalize_chunks, sym, with_chunks

const KINDS = Dict(:fft => 0, :ifft => 1, :rfft => 2, :irfft => 3, :hfft => 4, :ihfft => 5)
const NORMS = Dict(:backward => 0, :ortho => 1, :forward => 2)

"""
    transform(a, kind; dims=nothing, s=nothing, norm=:backward)

The DFT `kind` (:fft, :ifft, :rfft, :irfft, :hfft, :ihfft) of `a` over `dims` (1-based; `nothing`:
dask's default, the last dim for :hfft/:ihfft, else every dim or the first length(s) with `s`), each
transformed dim truncated or zero-padded to `s` (`nothing`: the input's lengths).
"""
function transform(a::CArray, kind::Symbol; dims=nothing, s=nothing, norm::Symbol=:backward)
    haskey(KINDS, kind) || throw(ChunkArrayError(-1, "CA_EINVAL", "fft: unknown kind $kind (fft, ifft, rfft, irfft, hfft, ihfft)"))
    haskey(NORMS, norm) || throw(ChunkArrayError(-1, "CA_EINVAL", "fft: unknown norm $norm (backward, ortho, forward)"))
    ax = dims === nothing ? Int32[] : Int32[d - 1 for d in dims]
    ss = s === nothing ? Int64[] : Int64[s...]
    GC.@preserve ax ss begin
        o = Ref(CaFftOptions(sizeof(CaFftOptions), dims === nothing ? -1 : length(ax),
                             isempty(ax) ? C_NULL : pointer(ax), s === nothing ? -1 : length(ss),
                             isempty(ss) ? C_NULL : pointer(ss), NORMS[norm]))
        newarray() do out
            @ccall $(sym(:ca_fft_transform))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, Int32(KINDS[kind])::Int32,
                                             o::Ptr{CaFftOptions})::Int32
        end
    end
end

for k in (:fft, :ifft, :rfft, :irfft, :hfft, :ihfft)
    doc = "    $k(a, n=nothing; dims=ndims(a), norm=:backward)\n\nnp.fft.$k along one dim (default the last) with `n` points (`nothing`: NumPy's default)."
    @eval begin
        @doc $doc $k(a::CArray, n::Union{Nothing,Integer}=nothing; dims::Integer=ndims(a), norm::Symbol=:backward) =
            transform(a, $(QuoteNode(k)); dims=(dims,), s=n === nothing ? nothing : (n,), norm)
    end
end
for (k, base) in ((:fft2, :fft), (:ifft2, :ifft), (:rfft2, :rfft), (:irfft2, :irfft))
    doc = "    $k(a, s=nothing; dims=(ndims(a) - 1, ndims(a)), norm=:backward)\n\nnp.fft.$k: the last two dims by default."
    @eval begin
        @doc $doc $k(a::CArray, s=nothing; dims=(ndims(a) - 1, ndims(a)), norm::Symbol=:backward) =
            transform(a, $(QuoteNode(base)); dims, s, norm)
    end
end
for (k, base) in ((:fftn, :fft), (:ifftn, :ifft), (:rfftn, :rfft), (:irfftn, :irfft))
    doc = "    $k(a, s=nothing; dims=nothing, norm=:backward)\n\ndask's $k: every dim by default (the first length(s) with `s`)."
    @eval begin
        @doc $doc $k(a::CArray, s=nothing; dims=nothing, norm::Symbol=:backward) = transform(a, $(QuoteNode(base)); dims, s, norm)
    end
end

"np.fft.fftfreq(n, d): Float64 sample frequencies in chunks of `chunks` (-1: one chunk)."
function fftfreq(n::Integer, d::Real=1.0; chunks=-1)
    n >= 1 || throw(ChunkArrayError(-1, "CA_EINVAL", "fftfreq: n must be at least 1, got $n"))
    with_chunks(normalize_chunks((n,), (chunks,), Float64)) do cc
        newarray() do out
            @ccall $(sym(:ca_fft_fftfreq))(out::Ptr{Ptr{Cvoid}}, Int64(n)::Int64, Float64(d)::Cdouble,
                                           cc::Ptr{CaChunks})::Int32
        end
    end
end

"np.fft.rfftfreq(n, d): the n÷2+1 non-negative frequencies, Float64, in chunks of `chunks`."
function rfftfreq(n::Integer, d::Real=1.0; chunks=-1)
    n >= 1 || throw(ChunkArrayError(-1, "CA_EINVAL", "rfftfreq: n must be at least 1, got $n"))
    with_chunks(normalize_chunks((n ÷ 2 + 1,), (chunks,), Float64)) do cc
        newarray() do out
            @ccall $(sym(:ca_fft_rfftfreq))(out::Ptr{Ptr{Cvoid}}, Int64(n)::Int64, Float64(d)::Cdouble,
                                            cc::Ptr{CaChunks})::Int32
        end
    end
end

"dask's fftshift(a, axes): the zero frequency moved to the centre of each of `dims` (`nothing`: all)."
function fftshift(a::CArray; dims=nothing)
    ax = dims === nothing ? Int32[] : Int32[d - 1 for d in dims]
    newarray() do out
        GC.@preserve ax begin
            @ccall $(sym(:ca_fft_fftshift))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, (isempty(ax) ? C_NULL : pointer(ax))::Ptr{Int32},
                                            Int32(dims === nothing ? -1 : length(ax))::Int32)::Int32
        end
    end
end

"dask's ifftshift(a, axes): the inverse of fftshift."
function ifftshift(a::CArray; dims=nothing)
    ax = dims === nothing ? Int32[] : Int32[d - 1 for d in dims]
    newarray() do out
        GC.@preserve ax begin
            @ccall $(sym(:ca_fft_ifftshift))(out::Ptr{Ptr{Cvoid}}, a.h::Ptr{Cvoid}, (isempty(ax) ? C_NULL : pointer(ax))::Ptr{Int32},
                                             Int32(dims === nothing ? -1 : length(ax))::Int32)::Int32
        end
    end
end

"The FFT backend of the loaded library: \"kissfft\" or \"fftw3\"."
backend() = unsafe_string(@ccall $(sym(:ca_fft_backend))()::Cstring)

end # module FFT

# ---------------------------------------------------------------------------------------------
# masked.h: numpy.ma / dask.array.ma. Dims are Julia's 1-based dimensions of size(a).
# ---------------------------------------------------------------------------------------------

"""
    MA

Masked arrays (numpy.ma / dask.array.ma) over the C library's masked.h: a `MaskedCArray` is a lazy
data array, a Bool mask of the same shape and chunks (true = masked) and a fill value.
`masked_array(data, mask; fill_value)`, `masked_equal masked_not_equal masked_greater
masked_greater_equal masked_less masked_less_equal masked_inside masked_outside masked_invalid
masked_values masked_where fix_invalid filled getdata getmaskarray fill_value`, `unary(op, m)` and
`binary(op, a, b)` with numpy.ma's domains (op a `CA_OP_*` code), `reduce_op(op, m; dims, keepdims,
ddof)` skipping masked elements, `count`, `average`, and `compute(m, ctx)`, which computes data and
mask in one pass and returns `(data = ..., mask = ...)`.
"""
module MA

using ..ChunkArray: CArray, CaReduceOptions, CaScalar, ChunkArrayError, Context, block_to_array, check, newarray,
                    scalar, sym

"A lazy masked array; `close` frees it (a finalizer does too)."
mutable struct MaskedCArray
    h::Ptr{Cvoid}
    function MaskedCArray(h::Ptr{Cvoid})
        m = new(h)
        finalizer(close, m)
    end
end

function Base.close(m::MaskedCArray)
    if m.h != C_NULL
        @ccall $(sym(:ca_masked_free))(m.h::Ptr{Cvoid})::Cvoid
        m.h = C_NULL
    end
    nothing
end

function newmasked(f)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    check(f(out))
    MaskedCArray(out[])
end

fillref(v) = v === nothing ? C_NULL : Ref(scalar(v))

"numpy.ma.masked_array(data, mask; fill_value): `mask` nothing = nothing masked."
function masked_array(data::CArray, mask::Union{Nothing,CArray}=nothing; fill_value=nothing)
    f = fillref(fill_value)
    newmasked() do out
        @ccall $(sym(:ca_masked_new))(out::Ptr{Ptr{Cvoid}}, data.h::Ptr{Cvoid},
                                      (mask === nothing ? C_NULL : mask.h)::Ptr{Cvoid}, f::Ptr{CaScalar})::Int32
    end
end

"numpy.ma.getdata"
getdata(m::MaskedCArray) = newarray() do out
    @ccall $(sym(:ca_masked_data))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid})::Int32
end
"numpy.ma.getmaskarray"
getmaskarray(m::MaskedCArray) = newarray() do out
    @ccall $(sym(:ca_masked_mask))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid})::Int32
end

"The fill value in effect (as Float64)."
function fill_value(m::MaskedCArray)
    s = Ref(CaScalar(0, 0, 0.0, 0.0, 0))
    check(@ccall $(sym(:ca_masked_fill_value))(s::Ptr{CaScalar}, m.h::Ptr{Cvoid})::Int32)
    s[].re
end

"numpy.ma.filled(m, fill_value)"
function filled(m::MaskedCArray, v=nothing)
    f = fillref(v)
    newarray() do out
        @ccall $(sym(:ca_masked_filled))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid}, f::Ptr{CaScalar})::Int32
    end
end

compare(m::MaskedCArray, test::Integer, v1, v2=0) = newmasked() do out
    @ccall $(sym(:ca_masked_compare))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid}, Int32(test)::Int32, scalar(v1)::CaScalar,
                                      scalar(v2)::CaScalar)::Int32
end
"numpy.ma.masked_equal"
masked_equal(m::MaskedCArray, v) = compare(m, 0, v)
"numpy.ma.masked_not_equal"
masked_not_equal(m::MaskedCArray, v) = compare(m, 1, v)
"numpy.ma.masked_greater"
masked_greater(m::MaskedCArray, v) = compare(m, 2, v)
"numpy.ma.masked_greater_equal"
masked_greater_equal(m::MaskedCArray, v) = compare(m, 3, v)
"numpy.ma.masked_less"
masked_less(m::MaskedCArray, v) = compare(m, 4, v)
"numpy.ma.masked_less_equal"
masked_less_equal(m::MaskedCArray, v) = compare(m, 5, v)
"numpy.ma.masked_inside"
masked_inside(m::MaskedCArray, v1, v2) = compare(m, 6, v1, v2)
"numpy.ma.masked_outside"
masked_outside(m::MaskedCArray, v1, v2) = compare(m, 7, v1, v2)

"numpy.ma.masked_invalid"
masked_invalid(m::MaskedCArray) = newmasked() do out
    @ccall $(sym(:ca_masked_invalid))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid})::Int32
end
"numpy.ma.masked_values(m, v; rtol, atol)"
masked_values(m::MaskedCArray, v; rtol::Real=1e-5, atol::Real=1e-8) = newmasked() do out
    @ccall $(sym(:ca_masked_values))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid}, scalar(v)::CaScalar, Float64(rtol)::Cdouble,
                                     Float64(atol)::Cdouble)::Int32
end
"numpy.ma.masked_where(cond, m)"
masked_where(cond::CArray, m::MaskedCArray) = newmasked() do out
    @ccall $(sym(:ca_masked_where))(out::Ptr{Ptr{Cvoid}}, cond.h::Ptr{Cvoid}, m.h::Ptr{Cvoid})::Int32
end
"numpy.ma.fix_invalid(m; fill_value)"
function fix_invalid(m::MaskedCArray; fill_value=nothing)
    f = fillref(fill_value)
    newmasked() do out
        @ccall $(sym(:ca_masked_fix_invalid))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid}, f::Ptr{CaScalar})::Int32
    end
end

"numpy.ma's unary ufunc `op` (a CA_OP_* code) with its domain."
unary(op::Integer, m::MaskedCArray) = newmasked() do out
    @ccall $(sym(:ca_masked_unary))(out::Ptr{Ptr{Cvoid}}, Int32(op)::Int32, m.h::Ptr{Cvoid})::Int32
end
"numpy.ma's binary ufunc `op` of two masked arrays, or of a masked array and a number."
binary(op::Integer, a::MaskedCArray, b::MaskedCArray) = newmasked() do out
    @ccall $(sym(:ca_masked_binary))(out::Ptr{Ptr{Cvoid}}, Int32(op)::Int32, a.h::Ptr{Cvoid}, b.h::Ptr{Cvoid})::Int32
end
binary(op::Integer, a::MaskedCArray, b::Number, scalar_first::Bool=false) = newmasked() do out
    @ccall $(sym(:ca_masked_binary_scalar))(out::Ptr{Ptr{Cvoid}}, Int32(op)::Int32, a.h::Ptr{Cvoid},
                                            scalar(b)::CaScalar, Cint(scalar_first)::Cint)::Int32
end

"A reduction (CA_RED_SUM ... CA_RED_ALL) over `dims` skipping masked elements."
function reduce_op(op::Integer, m::MaskedCArray; dims=:, keepdims::Bool=false, ddof::Integer=0)
    axes = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]
    o = Ref(CaReduceOptions(sizeof(CaReduceOptions), 0, ddof, 0))
    newmasked() do out
        GC.@preserve axes begin
            @ccall $(sym(:ca_masked_reduce))(out::Ptr{Ptr{Cvoid}}, Int32(op)::Int32, m.h::Ptr{Cvoid},
                                             (isempty(axes) ? C_NULL : pointer(axes))::Ptr{Int32},
                                             length(axes)::Int32, Cint(keepdims)::Cint, o::Ptr{CaReduceOptions})::Int32
        end
    end
end

"numpy.ma.count over `dims`: Int64 counts of unmasked elements."
function count(m::MaskedCArray; dims=:, keepdims::Bool=false)
    axes = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]
    newarray() do out
        GC.@preserve axes begin
            @ccall $(sym(:ca_masked_count))(out::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid},
                                            (isempty(axes) ? C_NULL : pointer(axes))::Ptr{Int32}, length(axes)::Int32,
                                            Cint(keepdims)::Cint, Int32(0)::Int32)::Int32
        end
    end
end

"numpy.ma.average(m; dims, weights, returned=true): (average, sum of weights)."
function average(m::MaskedCArray; dims=:, weights::Union{Nothing,MaskedCArray}=nothing, keepdims::Bool=false)
    axes = dims === Colon() ? Int32[] : Int32[d - 1 for d in dims]
    out, scl = Ref{Ptr{Cvoid}}(C_NULL), Ref{Ptr{Cvoid}}(C_NULL)
    GC.@preserve axes weights begin
        check(@ccall $(sym(:ca_masked_average))(out::Ptr{Ptr{Cvoid}}, scl::Ptr{Ptr{Cvoid}}, m.h::Ptr{Cvoid},
                                                (weights === nothing ? C_NULL : weights.h)::Ptr{Cvoid},
                                                (isempty(axes) ? C_NULL : pointer(axes))::Ptr{Int32},
                                                length(axes)::Int32, Cint(keepdims)::Cint)::Int32)
    end
    (MaskedCArray(out[]), MaskedCArray(scl[]))
end

"Compute data and mask in one pass: `(data = ..., mask = ...)`."
function compute(m::MaskedCArray, ctx::Context)
    d, k = Ref{Ptr{Cvoid}}(C_NULL), Ref{Ptr{Cvoid}}(C_NULL)
    check(@ccall $(sym(:ca_masked_compute))(d::Ptr{Ptr{Cvoid}}, k::Ptr{Ptr{Cvoid}}, ctx.h::Ptr{Cvoid}, m.h::Ptr{Cvoid},
                                            C_NULL::Ptr{Cvoid})::Int32)
    try
        (data = block_to_array(d[]), mask = block_to_array(k[]))
    finally
        @ccall $(sym(:ca_block_free))(d[]::Ptr{Cvoid})::Cvoid
        @ccall $(sym(:ca_block_free))(k[]::Ptr{Cvoid})::Cvoid
    end
end

end # module MA

end # module
