"""ctypes declarations of chunkarray's C ABI (include/chunkarray/*.h).

The shared library is found at run time: $CHUNKARRAY_LIB if set, else ``libchunkarray.so.1`` on the
loader's search path.
"""
import ctypes
import ctypes.util
import os
import threading

c_status = ctypes.c_int32
c_dtype = ctypes.c_int32
c_i64p = ctypes.POINTER(ctypes.c_int64)
c_i32p = ctypes.POINTER(ctypes.c_int32)
c_vp = ctypes.c_void_p
c_char_p = ctypes.c_char_p

CA_OK = 0
STATUS_NAMES = {
    0: "CA_OK", -1: "CA_EINVAL", -2: "CA_ENOMEM", -3: "CA_ENOTFOUND", -4: "CA_ECYCLE",
    -5: "CA_EKERNEL", -6: "CA_EIO", -7: "CA_EFORMAT", -8: "CA_ECANCELED", -9: "CA_EINTERNAL",
    -10: "CA_EEXISTS", -11: "CA_ETYPE", -12: "CA_EVERSION", -13: "CA_EUNSUPPORTED",
}
CA_EINVAL, CA_EKERNEL = -1, -5

# dtypes (common.h)
DTYPE_NAMES = {
    1: "bool", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "uint8", 7: "uint16", 8: "uint32",
    9: "uint64", 10: "float32", 11: "float64", 12: "complex64", 13: "complex128", 14: "uint8",
}
CA_BOOL, CA_INT64, CA_FLOAT64, CA_COMPLEX128, CA_RAW = 1, 5, 11, 13, 14
CA_UINT64 = 9
CA_FLOAT16, CA_DATETIME64, CA_TIMEDELTA64, CA_BYTES, CA_UNICODE = 15, 16, 17, 18, 19
CA_SCALAR_TYPED = 1

# argument kinds (kernel.h)
ARG_NONE, ARG_INT64, ARG_FLOAT64, ARG_STRING, ARG_BYTES, ARG_TUPLE, ARG_SLICE, ARG_KEY, ARG_BLOCK, \
    ARG_LIST, ARG_INDEXED = range(11)
SLICE_START, SLICE_STOP, SLICE_STEP = 1, 2, 4

CHUNKS_AUTO, CHUNKS_WHOLE, CHUNKS_EXPLICIT = 0, -1, -2
BUFFER_COPY = 0
BUFFER_UNIQUE_NAME = 2


class Key(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("index", c_i64p), ("nindex", ctypes.c_int32)]


class _Bytes(ctypes.Structure):
    _fields_ = [("data", c_vp), ("len", ctypes.c_size_t)]


class _Tuple(ctypes.Structure):
    _fields_ = [("items", c_i64p), ("len", ctypes.c_size_t)]


SLICE_START, SLICE_STOP, SLICE_STEP = 1, 2, 4


class Slice(ctypes.Structure):
    _fields_ = [("start", ctypes.c_int64), ("stop", ctypes.c_int64), ("step", ctypes.c_int64),
                ("flags", ctypes.c_uint32)]


class Arg(ctypes.Structure):
    pass


class _List(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(Arg)), ("len", ctypes.c_size_t)]


class _Indexed(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("index", c_char_p)]


class _ArgU(ctypes.Union):
    _fields_ = [("i64", ctypes.c_int64), ("f64", ctypes.c_double), ("bytes", _Bytes), ("tuple", _Tuple),
                ("slice", Slice), ("key", Key), ("block", c_vp), ("list", _List), ("indexed", _Indexed)]


Arg._fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("u", _ArgU)]


class Chunks(ctypes.Structure):
    _fields_ = [("ndim", ctypes.c_int32), ("numblocks", c_i64p), ("sizes", c_i64p)]


class DimChunks(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int64), ("sizes", c_i64p), ("nsizes", ctypes.c_int64)]


class Scalar(ctypes.Structure):
    _fields_ = [("kind", c_dtype), ("flags", ctypes.c_int32), ("re", ctypes.c_double),
                ("im", ctypes.c_double), ("i64", ctypes.c_int64)]


class LikeOptions(ctypes.Structure):
    """ca_like_options_t (routines.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", c_dtype), ("ndim", ctypes.c_int32), ("shape", c_i64p),
                ("chunks", ctypes.POINTER(Chunks)), ("limit", ctypes.c_int64)]


class HistogramBins(ctypes.Structure):
    """ca_histogram_bins_t (routines.h)."""
    _fields_ = [("nbins", ctypes.c_int64), ("lo", ctypes.c_double), ("hi", ctypes.c_double), ("edges", c_vp)]


class HistogramOptions(ctypes.Structure):
    """ca_histogram_options_t (routines.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("weights", c_vp), ("density", ctypes.c_int32),
                ("mode", ctypes.c_int32), ("split_every", ctypes.c_int32)]


class FftOptions(ctypes.Structure):
    """ca_fft_options_t (fft.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("naxes", ctypes.c_int32), ("axes", ctypes.POINTER(ctypes.c_int32)),
                ("ns", ctypes.c_int32), ("s", c_i64p), ("norm", ctypes.c_int32)]


class ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("num_threads", ctypes.c_int32),
                ("memory_limit", ctypes.c_int64), ("chunk_size", ctypes.c_int64),
                ("builtin_kernels", ctypes.c_int32)]


FREE_FN = ctypes.CFUNCTYPE(None, c_vp)


class BufferOptions(ctypes.Structure):
    """ca_buffer_options_t (array.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("strides", c_i64p),
                ("release", FREE_FN), ("user_data", c_vp)]



class KernelOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("version", ctypes.c_int32), ("user_data", c_vp),
                ("free_user_data", FREE_FN)]


class SaveOptions(ctypes.Structure):
    """ca_save_options_t (format.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("context", c_vp), ("path", c_char_p), ("graph", c_vp),
                ("arrays", ctypes.POINTER(c_vp)), ("narrays", ctypes.c_size_t)]


class LoadOptions(ctypes.Structure):
    """ca_load_options_t (format.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("path", c_char_p), ("data", c_vp), ("size", ctypes.c_size_t)]


class ReduceOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("split_every", ctypes.c_int32), ("ddof", ctypes.c_int32),
                ("dtype", c_dtype)]


class QuantileOptions(ctypes.Structure):
    """ca_quantile_options_t (array.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("method", ctypes.c_int32), ("keepdims", ctypes.c_int32),
                ("skip_nan", ctypes.c_int32), ("dtype", c_dtype)]


class ScanOptions(ctypes.Structure):
    """ca_scan_options_t (array.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", c_dtype)]


class ReductionOptions(ctypes.Structure):
    """ca_reduction_options_t (array.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("split_every", ctypes.c_int32), ("combine", c_char_p),
                ("dtype", c_dtype)]


class RandomOptions(ctypes.Structure):
    """ca_random_options_t (array.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("reserved", ctypes.c_uint32), ("seed", ctypes.c_uint64),
                ("p0", ctypes.c_double), ("p1", ctypes.c_double), ("p2", ctypes.c_double)]


class ArrayArg(ctypes.Structure):
    _fields_ = [("array", c_vp), ("index", c_char_p), ("literal", Arg)]


class BlockwiseArrayOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("new_axes", c_char_p), ("new_axes_sizes", c_i64p),
                ("chunks", ctypes.POINTER(Chunks)), ("concatenate", ctypes.c_int32),
                ("align_arrays", ctypes.c_int32), ("name", c_char_p)]


class MapBlocksOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", c_dtype), ("chunks", ctypes.POINTER(Chunks)),
                ("drop_axis", c_i32p), ("ndrop_axis", ctypes.c_int32), ("new_axis", c_i32p),
                ("nnew_axis", ctypes.c_int32), ("block_info", ctypes.c_int32), ("name", c_char_p)]


class ZarrOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("chunks", c_i64p), ("compressor", c_char_p),
                ("level", ctypes.c_int32), ("blosc_cname", c_char_p), ("blosc_shuffle", ctypes.c_int32),
                ("attrs_json", c_char_p), ("overwrite", ctypes.c_int32), ("order", ctypes.c_char),
                ("dimension_separator", ctypes.c_char), ("has_fill_value", ctypes.c_int32),
                ("fill_value", ctypes.c_double)]


class Hdf5Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("chunks", c_i64p), ("contiguous", ctypes.c_int32),
                ("gzip_level", ctypes.c_int32), ("shuffle", ctypes.c_int32), ("overwrite", ctypes.c_int32)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, c_vp)


class ComputeOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("progress", PROGRESS_FN), ("progress_user_data", c_vp),
                ("progress_interval_us", ctypes.c_int64), ("cancel", c_vp)]


class Index(ctypes.Structure):
    """ca_index_t (slicing.h)."""
    _fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("i", ctypes.c_int64),
                ("slice", Slice),
                ("indices", c_i64p), ("bools", ctypes.POINTER(ctypes.c_uint8)), ("nindices", ctypes.c_int64),
                ("array", c_vp)]


IDX_INT, IDX_SLICE, IDX_NEWAXIS, IDX_ELLIPSIS, IDX_ARRAY, IDX_BOOL, IDX_MASK, IDX_INDEX_ARRAY = range(8)
INDEX_NUMPY, INDEX_VECTORIZED, INDEX_OUTER = 0, 1, 2


class IndexOptions(ctypes.Structure):
    """ca_index_options_t (slicing.h)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("mode", ctypes.c_int32),
                ("ndims", ctypes.POINTER(ctypes.c_int32)), ("shapes", ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)))]


CHUNK_UNKNOWN = -1
PAD_CONSTANT, PAD_EDGE, PAD_REFLECT = 0, 1, 2
BOUNDARY_NONE, BOUNDARY_REFLECT, BOUNDARY_PERIODIC, BOUNDARY_NEAREST, BOUNDARY_CONSTANT = range(5)


class Boundary(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("value", ctypes.c_double)]


class OverlapOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("depth_after", c_i64p), ("allow_rechunk", ctypes.c_int32)]


class MapOverlapOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", c_dtype), ("trim", ctypes.c_int32),
                ("chunks", ctypes.POINTER(Chunks)), ("allow_rechunk", ctypes.c_int32),
                ("align_arrays", ctypes.c_int32), ("depth_after", c_i64p), ("block_info", ctypes.c_int32),
                ("name", c_char_p)]


class GufuncOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("output_dtypes", ctypes.POINTER(c_dtype)),
                ("axes", c_i32p), ("axes_counts", c_i32p), ("naxes_args", ctypes.c_int32),
                ("has_axis", ctypes.c_int32), ("axis", ctypes.c_int32), ("keepdims", ctypes.c_int32),
                ("output_size_names", ctypes.POINTER(c_char_p)), ("output_sizes", c_i64p),
                ("noutput_sizes", ctypes.c_int32), ("allow_rechunk", ctypes.c_int32),
                ("extra", ctypes.POINTER(Arg)), ("nextra", ctypes.c_size_t), ("name", c_char_p)]


def overlap_options(**kw):
    """CA_OVERLAP_OPTIONS_INIT with fields overridden."""
    o = OverlapOptions(ctypes.sizeof(OverlapOptions), None, 1)
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def map_overlap_options(**kw):
    """CA_MAP_OVERLAP_OPTIONS_INIT with fields overridden."""
    o = MapOverlapOptions(ctypes.sizeof(MapOverlapOptions), 0, 1, None, 1, 1, None, 0, None)
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def gufunc_options(**kw):
    """CA_GUFUNC_OPTIONS_INIT with fields overridden."""
    o = GufuncOptions(ctypes.sizeof(GufuncOptions), None, None, None, 0, 0, 0, 0, None, None, 0, 0, None, 0, None)
    for k, v in kw.items():
        setattr(o, k, v)
    return o


KERNEL_FN = ctypes.CFUNCTYPE(c_status, ctypes.POINTER(c_vp), ctypes.POINTER(Arg), ctypes.c_size_t, c_vp, c_vp)

# name: (restype, argtypes). Every function the bindings use; the Julia module's check reads the
# headers, not this table.
_PROTOS = {
    "ca_version_number": (ctypes.c_int32, []),
    "ca_version_string": (c_char_p, []),
    "ca_abi_version": (ctypes.c_int32, []),
    "ca_status_str": (c_char_p, [c_status]),
    "ca_last_error_message": (c_char_p, []),
    "ca_last_error_code": (c_status, []),
    "ca_clear_error": (None, []),
    "ca_dtype_size": (ctypes.c_size_t, [c_dtype]),
    "ca_dtype_name": (c_char_p, [c_dtype]),
    "ca_dtype_from_name": (c_status, [ctypes.POINTER(c_dtype), c_char_p]),
    "ca_dtype_promote": (c_status, [ctypes.POINTER(c_dtype), c_dtype, c_dtype]),
    "ca_dtype_promote_std": (c_status, [ctypes.POINTER(c_dtype), c_dtype, c_dtype]),
    "ca_dtype_make": (c_status, [ctypes.POINTER(c_dtype), ctypes.c_int32, ctypes.c_int64]),
    "ca_dtype_kind": (ctypes.c_int32, [c_dtype]),
    "ca_dtype_param": (ctypes.c_int64, [c_dtype]),
    # block.h
    "ca_block_new": (c_status, [ctypes.POINTER(c_vp), c_dtype, ctypes.c_int32, c_i64p]),
    "ca_block_retain": (c_vp, [c_vp]),
    "ca_block_free": (None, [c_vp]),
    "ca_block_dtype": (c_dtype, [c_vp]),
    "ca_block_ndim": (ctypes.c_int32, [c_vp]),
    "ca_block_shape": (c_i64p, [c_vp]),
    "ca_block_size": (ctypes.c_int64, [c_vp]),
    "ca_block_nbytes": (ctypes.c_size_t, [c_vp]),
    "ca_block_data": (c_vp, [c_vp]),
    # kernel.h / context.h
    "ca_kernel_set_error": (None, [c_vp, c_char_p]),
    "ca_kernel_key_name": (c_char_p, [c_vp]),
    "ca_kernel_key_index": (c_i64p, [c_vp, c_i32p]),
    "ca_kernel_cancelled": (ctypes.c_int, [c_vp]),
    "ca_context_new": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(ContextOptions)]),
    "ca_context_free": (None, [c_vp]),
    "ca_context_num_threads": (ctypes.c_int32, [c_vp]),
    "ca_context_set_config": (c_status, [c_vp, c_char_p, c_char_p]),
    "ca_context_get_config": (c_status, [ctypes.POINTER(c_char_p), c_vp, c_char_p]),
    "ca_context_register": (c_status, [c_vp, c_char_p, KERNEL_FN, ctypes.POINTER(KernelOptions)]),
    "ca_context_register_ffi": (c_status, [c_vp, c_char_p, c_vp, c_char_p, ctypes.POINTER(KernelOptions)]),
    "ca_context_remove_kernel": (c_status, [c_vp, c_char_p]),
    "ca_context_num_kernels": (ctypes.c_int64, [c_vp]),
    # graph.h
    "ca_keylist_size": (ctypes.c_size_t, [c_vp]),
    "ca_keylist_get": (c_status, [c_vp, ctypes.c_size_t, ctypes.POINTER(Key)]),
    "ca_keylist_free": (None, [c_vp]),
    "ca_graph_new": (c_status, [ctypes.POINTER(c_vp)]),
    "ca_graph_free": (None, [c_vp]),
    "ca_graph_add_task": (c_status, [c_vp, ctypes.POINTER(Key), c_char_p, ctypes.POINTER(Arg), ctypes.c_size_t]),
    "ca_graph_merge": (c_status, [c_vp, c_vp]),
    "ca_graph_has_key": (ctypes.c_int, [c_vp, ctypes.POINTER(Key)]),
    "ca_graph_num_tasks": (ctypes.c_int64, [c_vp]),
    "ca_graph_num_layers": (ctypes.c_int64, [c_vp]),
    "ca_graph_layers": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_graph_kernel_names": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    # array.h
    "ca_chunkset_ndim": (ctypes.c_int32, [c_vp]),
    "ca_chunkset_sizes": (c_i64p, [c_vp, ctypes.c_int32, c_i64p]),
    "ca_chunkset_free": (None, [c_vp]),
    "ca_normalize_chunks": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(DimChunks), ctypes.c_int32,
                                       c_i64p, c_dtype, ctypes.c_int64]),
    "ca_normalize_chunks_spec": (c_status, [ctypes.POINTER(c_vp), c_vp, c_char_p, ctypes.c_int32, c_i64p, c_dtype]),
    "ca_array_new": (c_status, [ctypes.POINTER(c_vp), c_vp, c_char_p, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_retain": (c_vp, [c_vp]),
    "ca_array_free": (None, [c_vp]),
    "ca_array_ndim": (ctypes.c_int32, [c_vp]),
    "ca_array_shape": (c_i64p, [c_vp]),
    "ca_array_size": (ctypes.c_int64, [c_vp]),
    "ca_array_nbytes": (ctypes.c_int64, [c_vp]),
    "ca_array_dtype": (c_dtype, [c_vp]),
    "ca_array_name": (c_char_p, [c_vp]),
    "ca_array_numblocks": (c_i64p, [c_vp]),
    "ca_array_chunks": (c_i64p, [c_vp, ctypes.c_int32, c_i64p]),
    "ca_array_graph": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_array_meta": (c_char_p, [c_vp]),
    "ca_array_from_buffer": (c_status, [ctypes.POINTER(c_vp), c_vp, c_dtype, ctypes.c_int32, c_i64p,
                                        ctypes.POINTER(Chunks), ctypes.POINTER(BufferOptions)]),
    "ca_array_full": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype,
                                 ctypes.c_double, ctypes.c_double]),
    "ca_array_full_int64": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype,
                                       ctypes.c_int64]),
    "ca_array_full_uint64": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks),
                                        c_dtype, ctypes.c_uint64]),
    "ca_array_zeros": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_ones": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_empty": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_arange": (c_status, [ctypes.POINTER(c_vp), ctypes.c_double, ctypes.c_double, ctypes.c_double,
                                   ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_linspace": (c_status, [ctypes.POINTER(c_vp), ctypes.c_double, ctypes.c_double, ctypes.c_int64,
                                     ctypes.c_int, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_eye": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_tri": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_diag": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64]),
    "ca_array_random": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, ctypes.c_int32, c_i64p,
                                   ctypes.POINTER(Chunks), c_dtype, ctypes.POINTER(RandomOptions)]),
    "ca_array_random_params": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, ctypes.c_int32, c_i64p,
                                          ctypes.POINTER(Chunks), c_dtype, ctypes.POINTER(c_vp), ctypes.c_int32,
                                          ctypes.POINTER(RandomOptions)]),
    "ca_array_random_multinomial": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.POINTER(ctypes.c_double),
                                               ctypes.c_int64, ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks),
                                               ctypes.c_uint64]),
    "ca_array_unary": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp]),
    "ca_array_binary": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_vp]),
    "ca_array_binary_scalar": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, Scalar, ctypes.c_int]),
    "ca_array_binary_std": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_vp]),
    "ca_array_binary_scalar_std": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, Scalar, ctypes.c_int]),
    "ca_array_where": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, c_vp, Scalar, Scalar]),
    "ca_array_clip": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int, Scalar, ctypes.c_int, Scalar]),
    "ca_array_astype": (c_status, [ctypes.POINTER(c_vp), c_vp, c_dtype]),
    "ca_array_round": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32]),
    "ca_array_quantile": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(ctypes.c_double), ctypes.c_size_t,
                                     ctypes.c_int, c_i32p, ctypes.c_int32, ctypes.POINTER(QuantileOptions)]),
    "ca_array_isclose": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_double, ctypes.c_double,
                                    ctypes.c_int]),
    "ca_array_nan_to_num": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_double,
                                       ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]),
    "ca_array_reduce": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_i32p, ctypes.c_int32,
                                   ctypes.c_int, ctypes.POINTER(ReduceOptions)]),
    "ca_array_scan": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, ctypes.c_int32,
                                 ctypes.POINTER(ScanOptions)]),
    "ca_array_reduction": (c_status, [ctypes.POINTER(c_vp), c_vp, c_char_p, c_char_p, c_i32p,
                                      ctypes.c_int32, ctypes.c_int, ctypes.POINTER(ReductionOptions)]),
    "ca_array_blockwise": (c_status, [ctypes.POINTER(c_vp), c_char_p, c_char_p, ctypes.POINTER(ArrayArg),
                                      ctypes.c_size_t, c_dtype, ctypes.POINTER(BlockwiseArrayOptions)]),
    "ca_array_map_blocks": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(c_vp), ctypes.c_size_t,
                                       ctypes.POINTER(Arg), ctypes.c_size_t, ctypes.POINTER(MapBlocksOptions)]),
    "ca_array_rechunk": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Chunks)]),
    "ca_unify_chunks": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_char_p),
                                   ctypes.c_size_t]),
    "ca_array_compute": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.POINTER(ComputeOptions)]),
    "ca_array_compute_into": (c_status, [c_vp, c_vp, c_vp, ctypes.c_size_t, ctypes.POINTER(ComputeOptions)]),
    "ca_array_compute_many": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(c_vp), ctypes.c_size_t,
                                         ctypes.POINTER(ComputeOptions)]),
    "ca_array_persist": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.POINTER(ComputeOptions)]),
    "ca_string_free": (None, [c_vp]),
    "ca_array_to_svg": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32]),
    "ca_graph_to_dot": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Key), ctypes.c_size_t]),
    # io.h
    "ca_array_from_zarr": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(Chunks)]),
    "ca_array_to_zarr": (c_status, [c_vp, c_vp, c_char_p, ctypes.POINTER(ZarrOptions), ctypes.POINTER(ComputeOptions)]),
    "ca_array_from_npy": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(Chunks)]),
    "ca_array_to_npy": (c_status, [c_vp, c_vp, c_char_p, ctypes.POINTER(ComputeOptions)]),
    "ca_array_to_npy_stack": (c_status, [c_vp, c_vp, c_char_p, ctypes.c_int32, ctypes.POINTER(ComputeOptions)]),
    "ca_array_from_npy_stack": (c_status, [ctypes.POINTER(c_vp), c_char_p]),
    "ca_array_from_hdf5": (c_status, [ctypes.POINTER(c_vp), c_char_p, c_char_p, c_char_p]),
    "ca_array_to_hdf5": (c_status, [c_vp, c_vp, c_char_p, c_char_p, ctypes.POINTER(Hdf5Options),
                                    ctypes.POINTER(ComputeOptions)]),
    # slicing.h
    "ca_array_getitem": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Index), ctypes.c_size_t]),
    "ca_array_take": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_int64, ctypes.c_int32]),
    "ca_array_take_array": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int32]),
    "ca_array_mask_select": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_array_mask_select_axis": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int32]),
    "ca_array_chunks_known": (ctypes.c_int, [c_vp]),
    "ca_array_compute_chunk_sizes": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.POINTER(ComputeOptions)]),
    "ca_array_index": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Index), ctypes.c_size_t,
                                  ctypes.POINTER(IndexOptions)]),
    "ca_array_vindex": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(c_i64p), ctypes.c_int32, ctypes.c_int64]),
    "ca_array_setitem": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Index), ctypes.c_size_t, c_vp]),
    "ca_array_setitem_scalar": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Index), ctypes.c_size_t, Scalar]),
    "ca_array_mask_set": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, Scalar]),
    # shape.h
    "ca_array_reshape": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, c_i64p]),
    "ca_array_ravel": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_array_transpose": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p]),
    "ca_array_moveaxis": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, c_i32p, ctypes.c_int32]),
    "ca_array_swapaxes": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, ctypes.c_int32]),
    "ca_array_squeeze": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32]),
    "ca_array_expand_dims": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32]),
    "ca_array_broadcast_to": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks)]),
    "ca_array_concatenate": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t, ctypes.c_int32]),
    "ca_array_stack": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t, ctypes.c_int32]),
    "ca_array_block": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t, ctypes.c_int32, c_i64p,
                                  ctypes.c_size_t]),
    "ca_array_repeat": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64, ctypes.c_int32]),
    "ca_array_tile": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_int32]),
    "ca_array_pad": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, c_i64p, ctypes.c_int32, Scalar]),
    "ca_array_flip": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32]),
    # routines.h
    "ca_array_empty_like": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(LikeOptions)]),
    "ca_array_zeros_like": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(LikeOptions)]),
    "ca_array_ones_like": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(LikeOptions)]),
    "ca_array_full_like": (c_status, [ctypes.POINTER(c_vp), c_vp, Scalar, ctypes.POINTER(LikeOptions)]),
    "ca_array_indices": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_i64p, ctypes.POINTER(Chunks), c_dtype]),
    "ca_array_meshgrid": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t, ctypes.c_int32,
                                     ctypes.c_int]),
    "ca_array_broadcast_arrays": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t]),
    "ca_array_tril": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64]),
    "ca_array_triu": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64]),
    "ca_array_tril_indices": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_int64, ctypes.POINTER(Chunks)]),
    "ca_array_triu_indices": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_int64, ctypes.POINTER(Chunks)]),
    "ca_array_diagonal": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32]),
    "ca_array_sort": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, ctypes.c_int]),
    "ca_array_argsort": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, ctypes.c_int]),
    "ca_array_unique": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp),
                                   ctypes.POINTER(c_vp), c_vp, ctypes.c_uint32]),
    "ca_array_isin": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int]),
    "ca_array_union1d": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_array_searchsorted": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int32, c_vp]),
    "ca_array_digitize": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int]),
    "ca_array_argwhere": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_array_nonzero": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_array_flatnonzero": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_array_roll": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, c_i32p, ctypes.c_int32]),
    "ca_array_rot90": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32]),
    "ca_array_rollaxis": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, ctypes.c_int32]),
    "ca_array_insert": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_size_t, c_vp, ctypes.c_int32]),
    "ca_array_delete": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_size_t, ctypes.c_int32]),
    "ca_array_choose": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(c_vp), ctypes.c_size_t, ctypes.c_int32]),
    "ca_array_select": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t,
                                   Scalar]),
    "ca_array_coarsen": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_i64p, ctypes.c_int]),
    "ca_array_bincount": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int64, ctypes.c_int32]),
    "ca_array_histogramdd": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp),
                                         ctypes.c_size_t, ctypes.POINTER(HistogramBins),
                                         ctypes.POINTER(HistogramOptions)]),
    "ca_array_ravel_multi_index": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.c_size_t, c_i64p,
                                              c_i32p, ctypes.c_int]),
    "ca_array_unravel_index": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_size_t, ctypes.c_int]),
    # linalg.h
    "ca_linalg_matmul": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_linalg_dot": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_linalg_tensordot": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, c_i32p, c_i32p, ctypes.c_int32, ctypes.c_int32]),
    "ca_linalg_outer": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_linalg_einsum": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(c_vp), ctypes.c_size_t, c_dtype]),
    "ca_linalg_qr": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp]),
    "ca_linalg_svd": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp]),
    "ca_linalg_solve": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_linalg_inv": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_linalg_lu": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp]),
    "ca_linalg_cholesky": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int]),
    "ca_linalg_solve_triangular": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.c_int]),
    "ca_linalg_lstsq": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp, c_vp]),
    # fft.h
    "ca_fft_transform": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, ctypes.POINTER(FftOptions)]),
    "ca_fft_fftfreq": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_double, ctypes.POINTER(Chunks)]),
    "ca_fft_rfftfreq": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int64, ctypes.c_double, ctypes.POINTER(Chunks)]),
    "ca_fft_fftshift": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32]),
    "ca_fft_ifftshift": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32]),
    "ca_fft_backend": (c_char_p, []),
    "ca_linalg_norm": (c_status, [ctypes.POINTER(c_vp), c_vp, c_char_p, c_i32p, ctypes.c_int32, ctypes.c_int]),
    # overlap.h
    "ca_array_overlap": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.POINTER(Boundary), ctypes.POINTER(OverlapOptions)]),
    "ca_array_trim_internal": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.POINTER(Boundary),
                                          ctypes.POINTER(OverlapOptions)]),
    "ca_array_sliding_window_view": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i64p, ctypes.c_size_t,
                                                ctypes.POINTER(ctypes.c_int32)]),
    "ca_array_map_overlap": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(c_vp), ctypes.c_size_t, c_i64p,
                                        ctypes.POINTER(Boundary), ctypes.POINTER(Arg), ctypes.c_size_t,
                                        ctypes.POINTER(MapOverlapOptions)]),
    # gufunc.h
    "ca_gufunc_signature_parse": (c_status, [c_char_p, c_i32p, c_i32p]),
    "ca_array_apply_gufunc": (c_status, [ctypes.POINTER(c_vp), ctypes.c_size_t, c_char_p, c_char_p, ctypes.POINTER(c_vp),
                                         ctypes.c_size_t, ctypes.POINTER(GufuncOptions)]),
    # store.h
    "ca_array_rechunk_spec": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, c_char_p]),
    # format.h
    "ca_save": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(SaveOptions)]),
    "ca_load": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(ctypes.POINTER(c_vp)), ctypes.POINTER(ctypes.c_size_t),
                           ctypes.POINTER(LoadOptions)]),
    "ca_array_free_many": (None, [ctypes.POINTER(c_vp), ctypes.c_size_t]),
    "ca_buffer_free": (None, [c_vp]),
    "ca_format_version": (ctypes.c_int32, []),
    "ca_graph_copy": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    # masked.h
    "ca_masked_new": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp, ctypes.POINTER(Scalar)]),
    "ca_masked_retain": (c_vp, [c_vp]),
    "ca_masked_free": (None, [c_vp]),
    "ca_masked_data": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_masked_mask": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_masked_fill_value": (c_status, [ctypes.POINTER(Scalar), c_vp]),
    "ca_masked_is_nomask": (ctypes.c_int, [c_vp]),
    "ca_masked_set_fill_value": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Scalar)]),
    "ca_masked_filled": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Scalar)]),
    "ca_masked_where": (c_status, [ctypes.POINTER(c_vp), c_vp, c_vp]),
    "ca_masked_compare": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.c_int32, Scalar, Scalar]),
    "ca_masked_invalid": (c_status, [ctypes.POINTER(c_vp), c_vp]),
    "ca_masked_values": (c_status, [ctypes.POINTER(c_vp), c_vp, Scalar, ctypes.c_double, ctypes.c_double]),
    "ca_masked_fix_invalid": (c_status, [ctypes.POINTER(c_vp), c_vp, ctypes.POINTER(Scalar)]),
    "ca_masked_unary": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp]),
    "ca_masked_binary": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_vp]),
    "ca_masked_binary_scalar": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, Scalar, ctypes.c_int]),
    "ca_masked_reduce": (c_status, [ctypes.POINTER(c_vp), ctypes.c_int32, c_vp, c_i32p, ctypes.c_int32, ctypes.c_int,
                                    ctypes.POINTER(ReduceOptions)]),
    "ca_masked_count": (c_status, [ctypes.POINTER(c_vp), c_vp, c_i32p, ctypes.c_int32, ctypes.c_int, ctypes.c_int32]),
    "ca_masked_average": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp, c_vp, c_i32p, ctypes.c_int32,
                                     ctypes.c_int]),
    "ca_masked_compute": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(c_vp), c_vp, c_vp,
                                     ctypes.POINTER(ComputeOptions)]),
    "ca_masked_from_zarr": (c_status, [ctypes.POINTER(c_vp), c_char_p, ctypes.POINTER(Chunks)]),
    "ca_masked_to_zarr": (c_status, [c_vp, c_vp, c_char_p, ctypes.POINTER(ZarrOptions), ctypes.POINTER(ComputeOptions)]),
    "ca_masked_save": (c_status, [ctypes.POINTER(c_vp), ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(c_vp),
                                  ctypes.c_size_t, ctypes.POINTER(SaveOptions)]),
    "ca_masked_load": (c_status, [ctypes.POINTER(ctypes.POINTER(c_vp)), ctypes.POINTER(ctypes.c_size_t),
                                  ctypes.POINTER(LoadOptions)]),
    "ca_masked_free_many": (None, [ctypes.POINTER(c_vp), ctypes.c_size_t]),
}

# Functions of later library versions: declared when the loaded library has them (None otherwise).
_OPTIONAL = {
    # format.h: saves recording the kernel versions of a context, and what a graph records
    "ca_graph_kernel_version": (c_status, [c_i32p, c_vp, c_char_p]),
}


class _Lib:
    """The loaded library: attribute access gives the prototyped C functions."""

    def __init__(self, path):
        self.path = path
        _promote_libstdcxx()
        self.cdll = ctypes.CDLL(path)  # CDLL releases the GIL around every call
        for name, (res, args) in _PROTOS.items():
            f = getattr(self.cdll, name)
            f.restype = res
            f.argtypes = args
            setattr(self, name, f)
        for name, (res, args) in _OPTIONAL.items():
            f = getattr(self.cdll, name, None)
            if f is not None:
                f.restype = res
                f.argtypes = args
            setattr(self, name, f)

    def has(self, name):
        return getattr(self, name, None) is not None


def _promote_libstdcxx():
    """Make libstdc++'s operator new/delete global before loading libchunkarray.

    libchunkarray links libmimalloc.so.2 (which exports operator new/delete) ahead of libstdc++. Loaded
    with dlopen into a process where libstdc++ is already loaded privately (by another extension
    module), the library's own operator new/delete would bind to mimalloc while libstdc++'s internal
    allocations use glibc malloc, and freeing one with the other crashes. With libstdc++ in the global
    scope, both bind to the same operator new/delete.
    """
    name = ctypes.util.find_library("stdc++") or "libstdc++.so.6"
    try:
        ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        pass


def library_path():
    p = os.environ.get("CHUNKARRAY_LIB")
    if p:
        return p
    return ctypes.util.find_library("chunkarray") or "libchunkarray.so.1"


_lib = None
_lib_lock = threading.Lock()


def lib():
    global _lib
    if _lib is None:
        with _lib_lock:
            if _lib is None:
                _lib = _Lib(library_path())
    return _lib
