//! Raw C ABI of libchunkarray (include/chunkarray/*.h), declared by hand and resolved with
//! dlopen/dlsym at run time.
#![allow(non_camel_case_types, dead_code)]

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Once;

pub type ca_status_t = i32;
pub type ca_dtype_t = i32;

// dtypes that carry a parameter (common.h): bits 0..7 the kind, the bits above the unit of a
// datetime64/timedelta64 or the length of a bytes/unicode dtype.
pub const CA_FLOAT16: ca_dtype_t = 15;
pub const CA_DATETIME64: ca_dtype_t = 16;
pub const CA_TIMEDELTA64: ca_dtype_t = 17;
pub const CA_BYTES: ca_dtype_t = 18;
pub const CA_UNICODE: ca_dtype_t = 19;
pub const CA_DTYPE_KIND_BITS: u32 = 8;
pub const CA_DTYPE_KIND_MASK: ca_dtype_t = 0xff;
pub const CA_UNIT_Y: i32 = 1;
pub const CA_UNIT_M: i32 = 2;
pub const CA_UNIT_W: i32 = 3;
pub const CA_UNIT_D: i32 = 4;
pub const CA_UNIT_H: i32 = 5;
pub const CA_UNIT_MIN: i32 = 6;
pub const CA_UNIT_S: i32 = 7;
pub const CA_UNIT_MS: i32 = 8;
pub const CA_UNIT_US: i32 = 9;
pub const CA_UNIT_NS: i32 = 10;
pub const CA_UNIT_PS: i32 = 11;
pub const CA_UNIT_FS: i32 = 12;
pub const CA_UNIT_AS: i32 = 13;
/// CA_DTYPE_MAKE: a parametric dtype (unchecked; ca_dtype_make checks).
pub const fn ca_dtype_make_unchecked(kind: ca_dtype_t, param: i32) -> ca_dtype_t {
    kind | (param << CA_DTYPE_KIND_BITS)
}

pub const CA_OK: i32 = 0;
pub const CA_EINVAL: i32 = -1;
pub const CA_ENOMEM: i32 = -2;
pub const CA_ENOTFOUND: i32 = -3;
pub const CA_ECYCLE: i32 = -4;
pub const CA_EKERNEL: i32 = -5;
pub const CA_EIO: i32 = -6;
pub const CA_EFORMAT: i32 = -7;
pub const CA_ECANCELED: i32 = -8;
pub const CA_EINTERNAL: i32 = -9;
pub const CA_EEXISTS: i32 = -10;
pub const CA_ETYPE: i32 = -11;
pub const CA_EVERSION: i32 = -12;
pub const CA_EUNSUPPORTED: i32 = -13;

pub const CA_ARG_NONE: i32 = 0;
pub const CA_ARG_INT64: i32 = 1;
pub const CA_ARG_FLOAT64: i32 = 2;
pub const CA_ARG_STRING: i32 = 3;
pub const CA_ARG_BYTES: i32 = 4;
pub const CA_ARG_TUPLE: i32 = 5;
pub const CA_ARG_SLICE: i32 = 6;
pub const CA_ARG_KEY: i32 = 7;
pub const CA_ARG_BLOCK: i32 = 8;
pub const CA_ARG_LIST: i32 = 9;

pub const CA_CHUNKS_AUTO: i64 = 0;
pub const CA_CHUNKS_WHOLE: i64 = -1;
pub const CA_CHUNKS_EXPLICIT: i64 = -2;

#[repr(C)]
pub struct ca_opaque {
    _private: [u8; 0],
}
pub type ca_block_t = ca_opaque;
pub type ca_array_t = ca_opaque;
pub type ca_graph_t = ca_opaque;
pub type ca_context_t = ca_opaque;
pub type ca_kernel_ctx_t = ca_opaque;
pub type ca_chunkset_t = ca_opaque;
pub type ca_keylist_t = ca_opaque;
pub type ca_cancel_t = ca_opaque;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_key_t {
    pub name: *const c_char,
    pub index: *const i64,
    pub nindex: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_bytes_t {
    pub data: *const c_void,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_tuple_t {
    pub items: *const i64,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_slice_t {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_list_t {
    pub items: *const ca_arg_t,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_indexed_t {
    pub name: *const c_char,
    pub index: *const c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union ca_arg_u {
    pub i64_: i64,
    pub f64_: f64,
    pub bytes: ca_bytes_t,
    pub tuple: ca_tuple_t,
    pub slice: ca_slice_t,
    pub key: ca_key_t,
    pub block: *const ca_block_t,
    pub list: ca_list_t,
    pub indexed: ca_indexed_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_arg_t {
    pub kind: i32,
    pub reserved: i32,
    pub u: ca_arg_u,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_chunks_t {
    pub ndim: i32,
    pub numblocks: *const i64,
    pub sizes: *const i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_dimchunks_t {
    pub size: i64,
    pub sizes: *const i64,
    pub nsizes: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ca_scalar_t {
    pub kind: ca_dtype_t,
    pub reserved: i32,
    pub re: f64,
    pub im: f64,
    pub i64_: i64,
}

#[repr(C)]
pub struct ca_context_options_t {
    pub struct_size: u32,
    pub num_threads: i32,
    pub memory_limit: i64,
    pub chunk_size: i64,
    pub builtin_kernels: i32,
}

pub type ca_kernel_fn = unsafe extern "C" fn(
    out: *mut *mut ca_block_t,
    args: *const ca_arg_t,
    nargs: usize,
    kctx: *mut ca_kernel_ctx_t,
    user_data: *mut c_void,
) -> ca_status_t;

#[repr(C)]
pub struct ca_kernel_options_t {
    pub struct_size: u32,
    pub version: i32,
    pub user_data: *mut c_void,
    pub free_user_data: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// ca_save_options_t (format.h).
#[repr(C)]
pub struct ca_save_options_t {
    pub struct_size: u32,
    pub context: *const ca_context_t,
    pub path: *const c_char,
    pub graph: *const ca_graph_t,
    pub arrays: *const *const ca_array_t,
    pub narrays: usize,
}

/// ca_load_options_t (format.h).
#[repr(C)]
pub struct ca_load_options_t {
    pub struct_size: u32,
    pub path: *const c_char,
    pub data: *const c_void,
    pub size: usize,
}

#[repr(C)]
pub struct ca_reduce_options_t {
    pub struct_size: u32,
    pub split_every: i32,
    pub ddof: i32,
    pub dtype: ca_dtype_t,
}

/// ca_buffer_options_t (array.h).
#[repr(C)]
pub struct ca_buffer_options_t {
    pub struct_size: u32,
    pub flags: u32,
    pub strides: *const i64,
    pub release: Option<unsafe extern "C" fn(*mut c_void)>,
    pub user_data: *mut c_void,
}

/// ca_random_options_t (array.h).
#[repr(C)]
pub struct ca_random_options_t {
    pub struct_size: u32,
    pub reserved: u32,
    pub seed: u64,
    pub p0: f64,
    pub p1: f64,
    pub p2: f64,
}

/// ca_scan_options_t (array.h).
#[repr(C)]
pub struct ca_scan_options_t {
    pub struct_size: u32,
    pub dtype: ca_dtype_t,
}

/// ca_hdf5_options_t (io.h).
#[repr(C)]
pub struct ca_hdf5_options_t {
    pub struct_size: u32,
    pub chunks: *const i64,
    pub contiguous: i32,
    pub gzip_level: i32,
    pub shuffle: i32,
    pub overwrite: i32,
}

/// ca_like_options_t (routines.h).
#[repr(C)]
pub struct ca_like_options_t {
    pub struct_size: u32,
    pub dtype: ca_dtype_t,
    pub ndim: i32,
    pub shape: *const i64,
    pub chunks: *const ca_chunks_t,
    pub limit: i64,
}

/// ca_histogram_bins_t (routines.h).
#[repr(C)]
pub struct ca_histogram_bins_t {
    pub nbins: i64,
    pub lo: f64,
    pub hi: f64,
    pub edges: *const ca_array_t,
}

/// ca_histogram_options_t (routines.h).
#[repr(C)]
pub struct ca_histogram_options_t {
    pub struct_size: u32,
    pub weights: *const ca_array_t,
    pub density: i32,
    pub mode: i32,
    pub split_every: i32,
}

/// ca_histogram_mode_t values (routines.h).
pub const CA_HISTOGRAM_1D: i32 = 0;
pub const CA_HISTOGRAM_DD: i32 = 1;

/// ca_quantile_options_t (array.h).
#[repr(C)]
pub struct ca_quantile_options_t {
    pub struct_size: u32,
    pub method: i32,
    pub keepdims: i32,
    pub skip_nan: i32,
    pub dtype: ca_dtype_t,
}

pub const CA_MESHGRID_XY: i32 = 0;
pub const CA_MESHGRID_IJ: i32 = 1;
pub const CA_SIDE_LEFT: i32 = 0;
pub const CA_SIDE_RIGHT: i32 = 1;
pub const CA_UNIQUE_DISTINCT_NAN: u32 = 1;
pub const CA_QUANTILE_LINEAR: i32 = 0;
pub const CA_QUANTILE_LOWER: i32 = 1;
pub const CA_QUANTILE_HIGHER: i32 = 2;
pub const CA_QUANTILE_NEAREST: i32 = 3;
pub const CA_QUANTILE_MIDPOINT: i32 = 4;
pub const CA_CHOOSE_RAISE: i32 = 0;
pub const CA_CHOOSE_WRAP: i32 = 1;
pub const CA_CHOOSE_CLIP: i32 = 2;

pub const CA_FFT_FFT: i32 = 0;
pub const CA_FFT_IFFT: i32 = 1;
pub const CA_FFT_RFFT: i32 = 2;
pub const CA_FFT_IRFFT: i32 = 3;
pub const CA_FFT_HFFT: i32 = 4;
pub const CA_FFT_IHFFT: i32 = 5;
pub const CA_FFT_NORM_BACKWARD: i32 = 0;
pub const CA_FFT_NORM_ORTHO: i32 = 1;
pub const CA_FFT_NORM_FORWARD: i32 = 2;

#[repr(C)]
pub struct ca_map_blocks_options_t {
    pub struct_size: u32,
    pub dtype: ca_dtype_t,
    pub chunks: *const ca_chunks_t,
    pub drop_axis: *const i32,
    pub ndrop_axis: i32,
    pub new_axis: *const i32,
    pub nnew_axis: i32,
    pub block_info: i32,
    pub name: *const c_char,
}

/// `ca_fft_options_t` (fft.h).
#[repr(C)]
pub struct ca_fft_options_t {
    pub struct_size: u32,
    pub naxes: i32,
    pub axes: *const i32,
    pub ns: i32,
    pub s: *const i64,
    pub norm: i32,
}

pub type ca_progress_fn = unsafe extern "C" fn(done: i64, total: i64, user_data: *mut c_void);

#[repr(C)]
pub struct ca_compute_options_t {
    pub struct_size: u32,
    pub progress: Option<ca_progress_fn>,
    pub progress_user_data: *mut c_void,
    pub progress_interval_us: i64,
    pub cancel: *const c_void,
}

type P = *mut ca_opaque;
type CP = *const ca_opaque;
type S = ca_status_t;

macro_rules! api {
    (
        required { $( $name:ident : fn( $( $arg:ty ),* ) -> $ret:ty ; )* }
        optional { $( $oname:ident : fn( $( $oarg:ty ),* ) -> $oret:ty ; )* }
    ) => {
        /// Every C function the bindings call; optional ones are None when the loaded library lacks them.
        pub struct Api {
            $( pub $name: unsafe extern "C" fn( $( $arg ),* ) -> $ret, )*
            $( pub $oname: Option<unsafe extern "C" fn( $( $oarg ),* ) -> $oret>, )*
        }

        impl Api {
            unsafe fn load(h: *mut c_void) -> Result<Api, String> {
                Ok(Api {
                    $( $name: {
                        let p = sym(h, stringify!($name));
                        if p.is_null() {
                            return Err(format!("libchunkarray has no symbol {}", stringify!($name)));
                        }
                        std::mem::transmute::<*mut c_void, unsafe extern "C" fn( $( $arg ),* ) -> $ret>(p)
                    }, )*
                    $( $oname: {
                        let p = sym(h, stringify!($oname));
                        if p.is_null() { None } else {
                            Some(std::mem::transmute::<*mut c_void, unsafe extern "C" fn( $( $oarg ),* ) -> $oret>(p))
                        }
                    }, )*
                })
            }
        }
    };
}

api! {
    required {
        ca_version_number: fn() -> i32;
        ca_version_string: fn() -> *const c_char;
        ca_abi_version: fn() -> i32;
        ca_status_str: fn(S) -> *const c_char;
        ca_last_error_message: fn() -> *const c_char;
        ca_dtype_size: fn(ca_dtype_t) -> usize;
        ca_dtype_name: fn(ca_dtype_t) -> *const c_char;
        ca_dtype_make: fn(*mut ca_dtype_t, i32, i64) -> S;
        ca_dtype_kind: fn(ca_dtype_t) -> i32;
        ca_dtype_param: fn(ca_dtype_t) -> i64;
        ca_dtype_promote_std: fn(*mut ca_dtype_t, ca_dtype_t, ca_dtype_t) -> S;
        ca_block_new: fn(*mut P, ca_dtype_t, i32, *const i64) -> S;
        ca_block_retain: fn(CP) -> P;
        ca_block_free: fn(CP) -> ();
        ca_block_dtype: fn(CP) -> ca_dtype_t;
        ca_block_ndim: fn(CP) -> i32;
        ca_block_shape: fn(CP) -> *const i64;
        ca_block_size: fn(CP) -> i64;
        ca_block_nbytes: fn(CP) -> usize;
        ca_block_data: fn(CP) -> *mut c_void;
        ca_kernel_set_error: fn(P, *const c_char) -> ();
        ca_kernel_key_index: fn(CP, *mut i32) -> *const i64;
        ca_context_new: fn(*mut P, *const ca_context_options_t) -> S;
        ca_context_free: fn(P) -> ();
        ca_context_num_threads: fn(CP) -> i32;
        ca_context_set_config: fn(P, *const c_char, *const c_char) -> S;
        ca_context_register: fn(P, *const c_char, ca_kernel_fn, *const ca_kernel_options_t) -> S;
        ca_context_num_kernels: fn(CP) -> i64;
        ca_graph_new: fn(*mut P) -> S;
        ca_graph_copy: fn(*mut P, CP) -> S;
        ca_graph_free: fn(P) -> ();
        ca_graph_add_task: fn(P, *const ca_key_t, *const c_char, *const ca_arg_t, usize) -> S;
        ca_graph_merge: fn(P, CP) -> S;
        ca_graph_has_key: fn(CP, *const ca_key_t) -> c_int;
        ca_graph_layers: fn(*mut P, CP) -> S;
        ca_keylist_size: fn(CP) -> usize;
        ca_keylist_get: fn(CP, usize, *mut ca_key_t) -> S;
        ca_keylist_free: fn(P) -> ();
        ca_cancel_new: fn(*mut P) -> S;
        ca_cancel_request: fn(P) -> ();
        ca_cancel_requested: fn(CP) -> c_int;
        ca_cancel_reset: fn(P) -> ();
        ca_cancel_free: fn(P) -> ();
        ca_block_new_zeroed: fn(*mut P, ca_dtype_t, i32, *const i64) -> S;
        ca_graph_num_tasks: fn(CP) -> i64;
        ca_graph_num_layers: fn(CP) -> i64;
        ca_chunkset_ndim: fn(CP) -> i32;
        ca_chunkset_sizes: fn(CP, i32, *mut i64) -> *const i64;
        ca_chunkset_free: fn(P) -> ();
        ca_normalize_chunks: fn(*mut P, CP, *const ca_dimchunks_t, i32, *const i64, ca_dtype_t, i64) -> S;
        ca_array_new: fn(*mut P, CP, *const c_char, *const ca_chunks_t, ca_dtype_t) -> S;
        ca_array_retain: fn(CP) -> P;
        ca_array_free: fn(CP) -> ();
        ca_array_ndim: fn(CP) -> i32;
        ca_array_shape: fn(CP) -> *const i64;
        ca_array_size: fn(CP) -> i64;
        ca_array_nbytes: fn(CP) -> i64;
        ca_array_dtype: fn(CP) -> ca_dtype_t;
        ca_array_name: fn(CP) -> *const c_char;
        ca_array_chunks: fn(CP, i32, *mut i64) -> *const i64;
        ca_array_graph: fn(*mut P, CP) -> S;
        ca_array_from_buffer: fn(*mut P, *const c_void, ca_dtype_t, i32, *const i64, *const ca_chunks_t,
                                 *const ca_buffer_options_t) -> S;
        ca_array_full: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t, f64, f64) -> S;
        ca_array_full_int64: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t, i64) -> S;
        ca_array_full_uint64: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t, u64) -> S;
        ca_array_zeros: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t) -> S;
        ca_array_ones: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t) -> S;
        ca_array_arange: fn(*mut P, f64, f64, f64, *const ca_chunks_t, ca_dtype_t) -> S;
        ca_array_random: fn(*mut P, i32, i32, *const i64, *const ca_chunks_t, ca_dtype_t,
                            *const ca_random_options_t) -> S;
        ca_array_random_params: fn(*mut P, i32, i32, *const i64, *const ca_chunks_t, ca_dtype_t, *const CP, i32,
                                   *const ca_random_options_t) -> S;
        ca_array_unary: fn(*mut P, i32, CP) -> S;
        ca_array_binary: fn(*mut P, i32, CP, CP) -> S;
        ca_array_binary_scalar: fn(*mut P, i32, CP, ca_scalar_t, c_int) -> S;
        ca_array_binary_std: fn(*mut P, i32, CP, CP) -> S;
        ca_array_binary_scalar_std: fn(*mut P, i32, CP, ca_scalar_t, c_int) -> S;
        ca_array_where: fn(*mut P, CP, CP, CP, ca_scalar_t, ca_scalar_t) -> S;
        ca_array_astype: fn(*mut P, CP, ca_dtype_t) -> S;
        ca_array_reduce: fn(*mut P, i32, CP, *const i32, i32, c_int, *const ca_reduce_options_t) -> S;
        ca_array_scan: fn(*mut P, i32, CP, i32, *const ca_scan_options_t) -> S;
        ca_array_map_blocks: fn(*mut P, *const c_char, *const CP, usize, *const ca_arg_t, usize,
                                *const ca_map_blocks_options_t) -> S;
        ca_array_rechunk: fn(*mut P, CP, *const ca_chunks_t) -> S;
        ca_array_compute: fn(*mut P, P, CP, *const ca_compute_options_t) -> S;
        ca_array_compute_many: fn(*mut P, P, *const CP, usize, *const ca_compute_options_t) -> S;
        ca_array_persist: fn(*mut P, P, CP, *const ca_compute_options_t) -> S;
        ca_string_free: fn(*mut c_char) -> ();
        ca_array_to_svg: fn(*mut *mut c_char, CP, i32) -> S;
        ca_graph_to_dot: fn(*mut *mut c_char, CP, *const ca_key_t, usize) -> S;
        ca_array_to_npy: fn(P, CP, *const c_char, *const ca_compute_options_t) -> S;
        ca_array_from_npy: fn(*mut P, *const c_char, *const ca_chunks_t) -> S;
        ca_array_to_npy_stack: fn(P, CP, *const c_char, i32, *const ca_compute_options_t) -> S;
        ca_array_from_npy_stack: fn(*mut P, *const c_char) -> S;
        ca_array_from_hdf5: fn(*mut P, *const c_char, *const c_char, *const c_char) -> S;
        ca_array_to_hdf5: fn(P, CP, *const c_char, *const c_char, *const ca_hdf5_options_t,
                             *const ca_compute_options_t) -> S;
        // elementwise extras (array.h)
        ca_array_isclose: fn(*mut P, CP, CP, f64, f64, c_int) -> S;
        ca_array_nan_to_num: fn(*mut P, CP, f64, *const f64, *const f64) -> S;
        ca_array_quantile: fn(*mut P, CP, *const f64, usize, c_int, *const i32, i32,
                              *const ca_quantile_options_t) -> S;
        // routines.h
        ca_array_empty_like: fn(*mut P, CP, *const ca_like_options_t) -> S;
        ca_array_zeros_like: fn(*mut P, CP, *const ca_like_options_t) -> S;
        ca_array_ones_like: fn(*mut P, CP, *const ca_like_options_t) -> S;
        ca_array_full_like: fn(*mut P, CP, ca_scalar_t, *const ca_like_options_t) -> S;
        ca_array_indices: fn(*mut P, i32, *const i64, *const ca_chunks_t, ca_dtype_t) -> S;
        ca_array_meshgrid: fn(*mut P, *const CP, usize, i32, c_int) -> S;
        ca_array_broadcast_arrays: fn(*mut P, *const CP, usize) -> S;
        ca_array_tril: fn(*mut P, CP, i64) -> S;
        ca_array_triu: fn(*mut P, CP, i64) -> S;
        ca_array_tril_indices: fn(*mut P, *mut P, i64, i64, i64, *const ca_chunks_t) -> S;
        ca_array_triu_indices: fn(*mut P, *mut P, i64, i64, i64, *const ca_chunks_t) -> S;
        ca_array_diagonal: fn(*mut P, CP, i64, i32, i32) -> S;
        ca_array_sort: fn(*mut P, CP, i32, c_int) -> S;
        ca_array_argsort: fn(*mut P, CP, i32, c_int) -> S;
        ca_array_unique: fn(*mut P, *mut P, *mut P, *mut P, CP, u32) -> S;
        ca_array_isin: fn(*mut P, CP, CP, c_int) -> S;
        ca_array_union1d: fn(*mut P, CP, CP) -> S;
        ca_array_searchsorted: fn(*mut P, CP, CP, i32, CP) -> S;
        ca_array_digitize: fn(*mut P, CP, CP, c_int) -> S;
        ca_array_argwhere: fn(*mut P, CP) -> S;
        ca_array_nonzero: fn(*mut P, CP) -> S;
        ca_array_flatnonzero: fn(*mut P, CP) -> S;
        ca_array_roll: fn(*mut P, CP, *const i64, *const i32, i32) -> S;
        ca_array_rot90: fn(*mut P, CP, i64, i32, i32) -> S;
        ca_array_rollaxis: fn(*mut P, CP, i32, i32) -> S;
        // slicing.h, linalg.h
        ca_array_take: fn(*mut P, CP, *const i64, i64, i32) -> S;
        ca_array_chunks_known: fn(CP) -> c_int;
        ca_array_compute_chunk_sizes: fn(*mut P, P, CP, *const ca_compute_options_t) -> S;
        ca_linalg_einsum: fn(*mut P, *const c_char, *const CP, usize, ca_dtype_t) -> S;
        // routines.h: insert, delete, choose, select, coarsen, bincount
        ca_array_insert: fn(*mut P, CP, *const i64, usize, CP, i32) -> S;
        ca_array_delete: fn(*mut P, CP, *const i64, usize, i32) -> S;
        ca_array_choose: fn(*mut P, CP, *const CP, usize, i32) -> S;
        ca_array_select: fn(*mut P, *const CP, *const CP, usize, ca_scalar_t) -> S;
        ca_array_coarsen: fn(*mut P, i32, CP, *const i64, c_int) -> S;
        ca_array_bincount: fn(*mut P, CP, CP, i64, i32) -> S;
        ca_array_histogramdd: fn(*mut P, *mut P, *const CP, usize, *const ca_histogram_bins_t,
                                 *const ca_histogram_options_t) -> S;
        ca_array_ravel_multi_index: fn(*mut P, *const CP, usize, *const i64, *const i32, c_int) -> S;
        ca_array_unravel_index: fn(*mut P, CP, *const i64, usize, c_int) -> S;
        // fft.h
        ca_fft_transform: fn(*mut P, CP, i32, *const ca_fft_options_t) -> S;
        ca_fft_fftfreq: fn(*mut P, i64, f64, *const ca_chunks_t) -> S;
        ca_fft_rfftfreq: fn(*mut P, i64, f64, *const ca_chunks_t) -> S;
        ca_fft_fftshift: fn(*mut P, CP, *const i32, i32) -> S;
        ca_fft_ifftshift: fn(*mut P, CP, *const i32, i32) -> S;
        ca_fft_backend: fn() -> *const c_char;
        // masked.h
        ca_masked_new: fn(*mut P, CP, CP, *const ca_scalar_t) -> S;
        ca_masked_retain: fn(CP) -> P;
        ca_masked_free: fn(CP) -> ();
        ca_masked_data: fn(*mut P, CP) -> S;
        ca_masked_mask: fn(*mut P, CP) -> S;
        ca_masked_fill_value: fn(*mut ca_scalar_t, CP) -> S;
        ca_masked_filled: fn(*mut P, CP, *const ca_scalar_t) -> S;
        ca_masked_where: fn(*mut P, CP, CP) -> S;
        ca_masked_compare: fn(*mut P, CP, i32, ca_scalar_t, ca_scalar_t) -> S;
        ca_masked_invalid: fn(*mut P, CP) -> S;
        ca_masked_values: fn(*mut P, CP, ca_scalar_t, f64, f64) -> S;
        ca_masked_unary: fn(*mut P, i32, CP) -> S;
        ca_masked_binary: fn(*mut P, i32, CP, CP) -> S;
        ca_masked_binary_scalar: fn(*mut P, i32, CP, ca_scalar_t, c_int) -> S;
        ca_masked_reduce: fn(*mut P, i32, CP, *const i32, i32, c_int, *const ca_reduce_options_t) -> S;
        ca_masked_count: fn(*mut P, CP, *const i32, i32, c_int, i32) -> S;
        ca_masked_average: fn(*mut P, *mut P, CP, CP, *const i32, i32, c_int) -> S;
        ca_masked_compute: fn(*mut P, *mut P, P, CP, *const ca_compute_options_t) -> S;
    }
    optional {
        ca_save: fn(*mut *mut c_void, *mut usize, *const ca_save_options_t) -> S;
        ca_load: fn(*mut P, *mut *mut P, *mut usize, *const ca_load_options_t) -> S;
        ca_array_free_many: fn(*mut P, usize) -> ();
        ca_graph_kernel_version: fn(*mut i32, CP, *const c_char) -> S;
    }
}

pub const RTLD_NOW: c_int = 2;
pub const RTLD_GLOBAL: c_int = 0x100;

#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

unsafe fn sym(h: *mut c_void, name: &str) -> *mut c_void {
    let c = CString::new(name).unwrap();
    dlsym(h, c.as_ptr())
}

static INIT: Once = Once::new();
static mut API: Option<Result<&'static Api, String>> = None;

/// The library path: $CHUNKARRAY_LIB, else "libchunkarray.so.1" on the loader's search path.
pub fn library_path() -> String {
    std::env::var("CHUNKARRAY_LIB").unwrap_or_else(|_| "libchunkarray.so.1".to_string())
}

/// Load the library once (thread safe) and resolve every symbol.
pub fn api() -> Result<&'static Api, String> {
    unsafe {
        INIT.call_once(|| {
            // libstdc++ first, in the global scope: libchunkarray links libmimalloc (which also
            // exports operator new/delete) ahead of libstdc++; in a process that already has a
            // private libstdc++ the two would mix allocators.
            let cxx = CString::new("libstdc++.so.6").unwrap();
            dlopen(cxx.as_ptr(), RTLD_NOW | RTLD_GLOBAL);
            let path = library_path();
            let cpath = CString::new(path.clone()).unwrap();
            let h = dlopen(cpath.as_ptr(), RTLD_NOW);
            let r = if h.is_null() {
                let e = dlerror();
                let msg = if e.is_null() { String::new() } else { CStr::from_ptr(e).to_string_lossy().into_owned() };
                Err(format!("cannot load {}: {}", path, msg))
            } else {
                Api::load(h).map(|a| &*Box::leak(Box::new(a)))
            };
            *std::ptr::addr_of_mut!(API) = Some(r);
        });
        (*std::ptr::addr_of!(API)).clone().unwrap()
    }
}
