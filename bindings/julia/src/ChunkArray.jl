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
       czeros, cones, cfull, crandom, cumsum_axis, has_function, Graph, Key, add_task!, layers, rechunk_to,
       CancelToken, cancel!, iscancelled

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

end # module
