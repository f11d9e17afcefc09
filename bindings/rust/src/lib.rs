//! Safe Rust bindings to chunkarray, dask.array's design behind a C ABI.
//!
//! The shared library is loaded at run time with dlopen (`$CHUNKARRAY_LIB`, else `libchunkarray.so.1`).
//! Handles are owned values freed on Drop; every fallible call returns `Result<_, Error>` carrying
//! a [`Status`] and the library's message (read on the calling thread right after the call). The
//! arithmetic operators (`&a + &b`, `a * 2.0`, `-&a`) return the array and panic if the library
//! refuses the operation, as ndarray's do on a shape mismatch; `try_add` and friends return the
//! `Result`. A custom array is a [`Graph`] of tasks plus [`Array::new`] (see examples/custom_array.rs).
//! Kernels can be Rust closures; a panic inside one is caught at the C boundary and becomes a
//! `CA_EKERNEL` error of the compute.
//!
//! ```no_run
//! use chunkarray::{Array, Context, DType};
//! let ctx = Context::new(-1).unwrap();
//! let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4], &[2]).unwrap();
//! let y = x.mul_scalar(2.0).unwrap().sum(&[], false).unwrap();
//! assert_eq!(y.compute_vec::<f64>(&ctx).unwrap(), vec![20.0]);
//! ```

#![warn(missing_docs)]

#[allow(missing_docs)] // generated: the C names are the documentation (include/chunkarray/array.h)
pub mod codes;
#[allow(missing_docs)] // the raw C ABI, one declaration per header function
pub mod sys;

mod elementwise;
pub mod fft;
pub mod masked;
mod routines;
pub use routines::{ChooseMode, HistogramBins, HistogramOptions, Indexing, LikeOptions, QuantileMethod, QuantileOptions, Scalar, Side, Unique, UniqueOptions};

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use sys::*;

/// The class of a failed call: the C API's `CA_E*` status codes as an enum.
///
/// `Status::from_code` maps a code the library returns; a code this binding does not know (a newer
/// library) becomes `Status::Unknown(code)` rather than being lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// `CA_EINVAL`: an argument is invalid (NULL handle, bad shape, bad axis, ...).
    InvalidArgument,
    /// `CA_ENOMEM`: an allocation failed, or a memory limit would be exceeded.
    OutOfMemory,
    /// `CA_ENOTFOUND`: a key, kernel, layer, file or symbol does not exist.
    NotFound,
    /// `CA_ECYCLE`: the task graph has a cycle.
    Cycle,
    /// `CA_EKERNEL`: a kernel returned an error (the message is the kernel's).
    Kernel,
    /// `CA_EIO`: reading or writing a file failed.
    Io,
    /// `CA_EFORMAT`: a file or buffer is corrupt, truncated or of an unknown format.
    Format,
    /// `CA_ECANCELED`: the computation was cancelled.
    Canceled,
    /// `CA_EINTERNAL`: a bug in chunkarray.
    Internal,
    /// `CA_EEXISTS`: a key, layer or kernel of that name already exists.
    Exists,
    /// `CA_ETYPE`: wrong dtype or wrong argument kind.
    Type,
    /// `CA_EVERSION`: a file, plugin or binding of an incompatible version.
    Version,
    /// `CA_EUNSUPPORTED`: a valid request this build does not implement.
    Unsupported,
    /// A status code this binding does not know.
    Unknown(i32),
}

impl Status {
    const TABLE: [(Status, i32, &'static str); 13] = [
        (Status::InvalidArgument, CA_EINVAL, "CA_EINVAL"),
        (Status::OutOfMemory, CA_ENOMEM, "CA_ENOMEM"),
        (Status::NotFound, CA_ENOTFOUND, "CA_ENOTFOUND"),
        (Status::Cycle, CA_ECYCLE, "CA_ECYCLE"),
        (Status::Kernel, CA_EKERNEL, "CA_EKERNEL"),
        (Status::Io, CA_EIO, "CA_EIO"),
        (Status::Format, CA_EFORMAT, "CA_EFORMAT"),
        (Status::Canceled, CA_ECANCELED, "CA_ECANCELED"),
        (Status::Internal, CA_EINTERNAL, "CA_EINTERNAL"),
        (Status::Exists, CA_EEXISTS, "CA_EEXISTS"),
        (Status::Type, CA_ETYPE, "CA_ETYPE"),
        (Status::Version, CA_EVERSION, "CA_EVERSION"),
        (Status::Unsupported, CA_EUNSUPPORTED, "CA_EUNSUPPORTED"),
    ];

    /// The status of a C status code (`CA_OK` is not an error: it maps to `Unknown(0)`).
    pub fn from_code(code: i32) -> Status {
        Status::TABLE.iter().find(|e| e.1 == code).map_or(Status::Unknown(code), |e| e.0)
    }

    /// The C status code (`CA_EINVAL` is -1, ...).
    pub fn code(self) -> i32 {
        match self {
            Status::Unknown(c) => c,
            s => Status::TABLE.iter().find(|e| e.0 == s).map_or(0, |e| e.1),
        }
    }

    /// The C name of the code ("CA_EINVAL", ...; "CA_E?" for an unknown code).
    pub fn name(self) -> &'static str {
        Status::TABLE.iter().find(|e| e.0 == self).map_or("CA_E?", |e| e.2)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Unknown(c) => write!(f, "CA_E? ({})", c),
            s => f.write_str(s.name()),
        }
    }
}

/// A failed chunkarray call: its [`Status`] and the library's message, which names the offending
/// argument and value ("chunks along axis 1 sum to 23, shape is 24").
///
/// Displays as `CA_EINVAL: <message>`. The message is read on the thread of the failing call, right
/// after it, as the C API requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    /// An error of `status` with `message` (for kernels and code built on this crate).
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }
    /// The class of the failure.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The library's message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The status's C name ("CA_EINVAL", ...).
    pub fn code(&self) -> &'static str {
        self.status.name()
    }
    fn raw(code: i32, message: impl Into<String>) -> Error {
        Error::new(Status::from_code(code), message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    /// An I/O error of the program around the library (writing a result file, ...) as `Status::Io`.
    fn from(e: std::io::Error) -> Error {
        Error::new(Status::Io, e.to_string())
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::Other, e)
    }
}

/// `Result<T, chunkarray::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

fn lib() -> Result<&'static Api> {
    api().map_err(|m| Error::raw(CA_ENOTFOUND, m))
}

unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// Turn a status into a Result, reading the message on this thread at once.
fn check(st: i32) -> Result<()> {
    if st == CA_OK {
        return Ok(());
    }
    let l = lib()?;
    Err(Error::raw(st, unsafe { cstr((l.ca_last_error_message)()) }))
}

fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::raw(CA_EINVAL, format!("string {:?} contains a NUL byte", s)))
}

/// The loaded library's version string ("0.1.0").
pub fn version() -> Result<String> {
    let l = lib()?;
    Ok(unsafe { cstr((l.ca_version_string)()) })
}

/// The loaded library's CA_VERSION_NUMBER and ABI version.
pub fn version_number() -> Result<(i32, i32)> {
    let l = lib()?;
    Ok(unsafe { ((l.ca_version_number)(), (l.ca_abi_version)()) })
}

/// True if the loaded library has the optional function `name` (`ca_save`, `ca_load`,
/// `ca_graph_kernel_version`); every other function the crate calls is required when it loads.
pub fn has_function(name: &str) -> bool {
    match lib() {
        Ok(l) => match name {
            "ca_save" => l.ca_save.is_some(),
            "ca_load" => l.ca_load.is_some(),
            "ca_graph_kernel_version" => l.ca_graph_kernel_version.is_some(),
            _ => false,
        },
        Err(_) => false,
    }
}

// ------------------------------------------------------------------------------------------------
// dtypes
// ------------------------------------------------------------------------------------------------

/// NumPy's dtypes, with chunkarray's stable codes. The parametric ones carry their unit or length
/// (`CA_DTYPE_MAKE` in common.h): `DateTime64(TimeUnit::Ns)` is NumPy's `<M8[ns]`, `Unicode(8)` is `<U8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// NumPy's `bool` (`CA_BOOL`)
    Bool,
    /// NumPy's `int8` (`CA_INT8`)
    Int8,
    /// NumPy's `int16` (`CA_INT16`)
    Int16,
    /// NumPy's `int32` (`CA_INT32`)
    Int32,
    /// NumPy's `int64` (`CA_INT64`)
    Int64,
    /// NumPy's `uint8` (`CA_UINT8`)
    UInt8,
    /// NumPy's `uint16` (`CA_UINT16`)
    UInt16,
    /// NumPy's `uint32` (`CA_UINT32`)
    UInt32,
    /// NumPy's `uint64` (`CA_UINT64`)
    UInt64,
    /// NumPy's `float32` (`CA_FLOAT32`)
    Float32,
    /// NumPy's `float64` (`CA_FLOAT64`)
    Float64,
    /// NumPy's `complex64` (`CA_COMPLEX64`)
    Complex64,
    /// NumPy's `complex128` (`CA_COMPLEX128`)
    Complex128,
    /// untyped bytes (`CA_RAW`)
    Raw,
    /// NumPy's `float16` (`CA_FLOAT16`; no Rust element type: read its bits as `u16` blocks)
    Float16,
    /// NumPy's `datetime64[unit]` (`CA_DATETIME64`; int64 counts of the unit since the epoch)
    DateTime64(TimeUnit),
    /// NumPy's `timedelta64[unit]` (`CA_TIMEDELTA64`; int64 counts of the unit)
    TimeDelta64(TimeUnit),
    /// NumPy's `S<n>`: `n` bytes (`CA_BYTES`)
    Bytes(u32),
    /// NumPy's `U<n>`: `n` UCS-4 characters (`CA_UNICODE`)
    Unicode(u32),
}

/// The unit of a datetime64 / timedelta64 dtype (`CA_UNIT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeUnit {
    /// years ("Y")
    Y,
    /// months ("M")
    M,
    /// weeks ("W")
    W,
    /// days ("D")
    D,
    /// hours ("h")
    H,
    /// minutes ("m")
    Min,
    /// seconds ("s")
    S,
    /// milliseconds ("ms")
    Ms,
    /// microseconds ("us")
    Us,
    /// nanoseconds ("ns")
    Ns,
    /// picoseconds ("ps")
    Ps,
    /// femtoseconds ("fs")
    Fs,
    /// attoseconds ("as")
    As,
}

const TIME_UNITS: [(i32, TimeUnit); 13] = [
    (1, TimeUnit::Y), (2, TimeUnit::M), (3, TimeUnit::W), (4, TimeUnit::D), (5, TimeUnit::H), (6, TimeUnit::Min),
    (7, TimeUnit::S), (8, TimeUnit::Ms), (9, TimeUnit::Us), (10, TimeUnit::Ns), (11, TimeUnit::Ps),
    (12, TimeUnit::Fs), (13, TimeUnit::As),
];

impl TimeUnit {
    /// The unit of a `CA_UNIT_*` code (None for a code this enum does not have).
    pub fn from_code(c: i32) -> Option<TimeUnit> {
        TIME_UNITS.iter().find(|(k, _)| *k == c).map(|(_, u)| *u)
    }
    /// The `CA_UNIT_*` code.
    pub fn code(self) -> i32 {
        TIME_UNITS.iter().find(|(_, u)| *u == self).map(|(k, _)| *k).unwrap_or(0)
    }
}

const KIND_BITS: u32 = 8;
const KIND_MASK: i32 = 0xff;

impl DType {
    /// The Python array API standard's promotion of two dtypes (`ca_dtype_promote_std`): no
    /// value-based casting, int8 with uint8 is int16, and `Status::Type` (naming both dtypes) where the
    /// standard has none (integer with float, bool with a number, int64 with uint64, float16).
    pub fn promote_std(self, other: DType) -> Result<DType> {
        let l = lib()?;
        let mut out: ca_dtype_t = 0;
        check(unsafe { (l.ca_dtype_promote_std)(&mut out, self.code(), other.code()) })?;
        DType::from_code(out).ok_or_else(|| Error::raw(CA_EINTERNAL, format!("unknown dtype code {}", out)))
    }
    /// The dtype of a C code (None for a code this binding does not know: a newer library's kinds, or a
    /// parametric kind without its unit or length).
    pub fn from_code(c: i32) -> Option<DType> {
        use DType::*;
        if c < 0 {
            return None;
        }
        let (kind, param) = (c & KIND_MASK, c >> KIND_BITS);
        if param != 0 && !(16..=19).contains(&kind) {
            return None;
        }
        Some(match kind {
            1 => Bool,
            2 => Int8,
            3 => Int16,
            4 => Int32,
            5 => Int64,
            6 => UInt8,
            7 => UInt16,
            8 => UInt32,
            9 => UInt64,
            10 => Float32,
            11 => Float64,
            12 => Complex64,
            13 => Complex128,
            14 => Raw,
            15 => Float16,
            16 => DateTime64(TimeUnit::from_code(param)?),
            17 => TimeDelta64(TimeUnit::from_code(param)?),
            18 if param > 0 => Bytes(param as u32),
            19 if param > 0 => Unicode(param as u32),
            _ => return None,
        })
    }
    /// The C code (`CA_FLOAT64` is 11, `datetime64[ns]` is `CA_DTYPE_MAKE(CA_DATETIME64, CA_UNIT_NS)`).
    pub fn code(self) -> i32 {
        use DType::*;
        let make = |kind: i32, param: i32| kind | (param << KIND_BITS);
        match self {
            Bool => 1,
            Int8 => 2,
            Int16 => 3,
            Int32 => 4,
            Int64 => 5,
            UInt8 => 6,
            UInt16 => 7,
            UInt32 => 8,
            UInt64 => 9,
            Float32 => 10,
            Float64 => 11,
            Complex64 => 12,
            Complex128 => 13,
            Raw => 14,
            Float16 => 15,
            DateTime64(u) => make(16, u.code()),
            TimeDelta64(u) => make(17, u.code()),
            Bytes(n) => make(18, n as i32),
            Unicode(n) => make(19, n as i32),
        }
    }
}

/// Rust element types with a chunkarray dtype (plain data: any bit pattern is a valid value).
pub trait Element: Copy + Send + Sync + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
}
macro_rules! element {
    ($($t:ty => $d:ident),*) => { $( impl Element for $t { const DTYPE: DType = DType::$d; } )* };
}
element!(i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8, u16 => UInt16, u32 => UInt32,
         u64 => UInt64, f32 => Float32, f64 => Float64);

// ------------------------------------------------------------------------------------------------
// Operators
// ------------------------------------------------------------------------------------------------

/// Elementwise binary operators (CA_OP_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum BinaryOp {
    /// `CA_OP_ADD`
    Add = codes::CA_OP_ADD,
    /// `CA_OP_SUB`
    Sub = codes::CA_OP_SUB,
    /// `CA_OP_MUL`
    Mul = codes::CA_OP_MUL,
    /// `CA_OP_DIV`
    Div = codes::CA_OP_DIV,
    /// `CA_OP_FLOORDIV`
    FloorDiv = codes::CA_OP_FLOORDIV,
    /// `CA_OP_MOD`
    Mod = codes::CA_OP_MOD,
    /// `CA_OP_POW`
    Pow = codes::CA_OP_POW,
    /// `CA_OP_EQ`
    Eq = codes::CA_OP_EQ,
    /// `CA_OP_NE`
    Ne = codes::CA_OP_NE,
    /// `CA_OP_LT`
    Lt = codes::CA_OP_LT,
    /// `CA_OP_LE`
    Le = codes::CA_OP_LE,
    /// `CA_OP_GT`
    Gt = codes::CA_OP_GT,
    /// `CA_OP_GE`
    Ge = codes::CA_OP_GE,
    /// `CA_OP_AND`
    And = codes::CA_OP_AND,
    /// `CA_OP_OR`
    Or = codes::CA_OP_OR,
    /// `CA_OP_XOR`
    Xor = codes::CA_OP_XOR,
    /// `CA_OP_MAXIMUM`
    Maximum = codes::CA_OP_MAXIMUM,
    /// `CA_OP_MINIMUM`
    Minimum = codes::CA_OP_MINIMUM,
    /// `CA_OP_ARCTAN2`
    Arctan2 = codes::CA_OP_ARCTAN2,
    /// `CA_OP_BITAND`
    BitAnd = codes::CA_OP_BITAND,
    /// `CA_OP_BITOR`
    BitOr = codes::CA_OP_BITOR,
    /// `CA_OP_BITXOR`
    BitXor = codes::CA_OP_BITXOR,
    /// `CA_OP_HYPOT`
    Hypot = codes::CA_OP_HYPOT,
    /// `CA_OP_FMAX`: maximum ignoring nan
    Fmax = codes::CA_OP_FMAX,
    /// `CA_OP_FMIN`: minimum ignoring nan
    Fmin = codes::CA_OP_FMIN,
    /// `CA_OP_FMOD`: C's remainder (the sign of the dividend)
    Fmod = codes::CA_OP_FMOD,
    /// `CA_OP_COPYSIGN`
    Copysign = codes::CA_OP_COPYSIGN,
    /// `CA_OP_FLOAT_POWER`: power in float64 (complex128 for complex operands)
    FloatPower = codes::CA_OP_FLOAT_POWER,
    /// `CA_OP_LDEXP`: `a * 2**b`
    Ldexp = codes::CA_OP_LDEXP,
    /// `CA_OP_LOGADDEXP`
    Logaddexp = codes::CA_OP_LOGADDEXP,
    /// `CA_OP_LOGADDEXP2`
    Logaddexp2 = codes::CA_OP_LOGADDEXP2,
    /// `CA_OP_NEXTAFTER`
    Nextafter = codes::CA_OP_NEXTAFTER,
    /// `CA_OP_LEFT_SHIFT`
    LeftShift = codes::CA_OP_LEFT_SHIFT,
    /// `CA_OP_RIGHT_SHIFT`
    RightShift = codes::CA_OP_RIGHT_SHIFT,
    /// `CA_OP_FLOORDIV_STD`: floor division with the array API standard's special cases (an infinity
    /// over a nonzero finite number is the signed infinity; a finite number over an infinity the signed
    /// zero); otherwise as `FloorDiv`
    FloorDivStd = codes::CA_OP_FLOORDIV_STD,
}

/// Elementwise unary operators (CA_OP_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum UnaryOp {
    /// `CA_OP_NEG`
    Neg = codes::CA_OP_NEG,
    /// `CA_OP_ABS`
    Abs = codes::CA_OP_ABS,
    /// `CA_OP_SIGN`
    Sign = codes::CA_OP_SIGN,
    /// `CA_OP_SQRT`
    Sqrt = codes::CA_OP_SQRT,
    /// `CA_OP_EXP`
    Exp = codes::CA_OP_EXP,
    /// `CA_OP_LOG`
    Log = codes::CA_OP_LOG,
    /// `CA_OP_SIN`
    Sin = codes::CA_OP_SIN,
    /// `CA_OP_COS`
    Cos = codes::CA_OP_COS,
    /// `CA_OP_TANH`
    Tanh = codes::CA_OP_TANH,
    /// `CA_OP_FLOOR`
    Floor = codes::CA_OP_FLOOR,
    /// `CA_OP_CEIL`
    Ceil = codes::CA_OP_CEIL,
    /// `CA_OP_ISNAN`
    IsNan = codes::CA_OP_ISNAN,
    /// `CA_OP_NOT`
    Not = codes::CA_OP_NOT,
    /// `CA_OP_SQUARE`
    Square = codes::CA_OP_SQUARE,
    /// `CA_OP_LOG1P`
    Log1p = codes::CA_OP_LOG1P,
    /// `CA_OP_EXPM1`
    Expm1 = codes::CA_OP_EXPM1,
    /// `CA_OP_TAN`
    Tan = codes::CA_OP_TAN,
    /// `CA_OP_ARCSIN`
    Arcsin = codes::CA_OP_ARCSIN,
    /// `CA_OP_ARCCOS`
    Arccos = codes::CA_OP_ARCCOS,
    /// `CA_OP_ARCTAN`
    Arctan = codes::CA_OP_ARCTAN,
    /// `CA_OP_SINH`
    Sinh = codes::CA_OP_SINH,
    /// `CA_OP_COSH`
    Cosh = codes::CA_OP_COSH,
    /// `CA_OP_ARCSINH`
    Arcsinh = codes::CA_OP_ARCSINH,
    /// `CA_OP_ARCCOSH`
    Arccosh = codes::CA_OP_ARCCOSH,
    /// `CA_OP_ARCTANH`
    Arctanh = codes::CA_OP_ARCTANH,
    /// `CA_OP_ROUND`: round half to even (np.rint)
    Rint = codes::CA_OP_ROUND,
    /// `CA_OP_ISINF`
    IsInf = codes::CA_OP_ISINF,
    /// `CA_OP_ISFINITE`
    IsFinite = codes::CA_OP_ISFINITE,
    /// `CA_OP_INVERT`: bitwise not (logical not for bool)
    Invert = codes::CA_OP_INVERT,
    /// `CA_OP_LOG10`
    Log10 = codes::CA_OP_LOG10,
    /// `CA_OP_LOG2`
    Log2 = codes::CA_OP_LOG2,
    /// `CA_OP_CONJ`
    Conj = codes::CA_OP_CONJ,
    /// `CA_OP_REAL`
    Real = codes::CA_OP_REAL,
    /// `CA_OP_IMAG`
    Imag = codes::CA_OP_IMAG,
    /// `CA_OP_TRUNC`: also np.fix
    Trunc = codes::CA_OP_TRUNC,
    /// `CA_OP_CBRT`
    Cbrt = codes::CA_OP_CBRT,
    /// `CA_OP_DEG2RAD`: also np.radians
    Deg2rad = codes::CA_OP_DEG2RAD,
    /// `CA_OP_RAD2DEG`: also np.degrees
    Rad2deg = codes::CA_OP_RAD2DEG,
    /// `CA_OP_EXP2`
    Exp2 = codes::CA_OP_EXP2,
    /// `CA_OP_FABS`
    Fabs = codes::CA_OP_FABS,
    /// `CA_OP_SPACING`
    Spacing = codes::CA_OP_SPACING,
    /// `CA_OP_SIGNBIT`
    Signbit = codes::CA_OP_SIGNBIT,
    /// `CA_OP_SINC`
    Sinc = codes::CA_OP_SINC,
    /// `CA_OP_I0`
    I0 = codes::CA_OP_I0,
    /// `CA_OP_RECIPROCAL`
    Reciprocal = codes::CA_OP_RECIPROCAL,
    /// `CA_OP_POSITIVE`
    Positive = codes::CA_OP_POSITIVE,
    /// `CA_OP_ANGLE`
    Angle = codes::CA_OP_ANGLE,
    /// `CA_OP_ISCOMPLEX`
    IsComplex = codes::CA_OP_ISCOMPLEX,
    /// `CA_OP_ISREAL`
    IsReal = codes::CA_OP_ISREAL,
    /// `CA_OP_ISNEGINF`
    IsNegInf = codes::CA_OP_ISNEGINF,
    /// `CA_OP_ISPOSINF`
    IsPosInf = codes::CA_OP_ISPOSINF,
    /// `CA_OP_NAN_TO_NUM`: nan to 0, infinities to the dtype's extremes
    NanToNum = codes::CA_OP_NAN_TO_NUM,
    /// `CA_OP_FREXP_MANTISSA`: `np.frexp(x)[0]`
    FrexpMantissa = codes::CA_OP_FREXP_MANTISSA,
    /// `CA_OP_FREXP_EXPONENT`: `np.frexp(x)[1]` (int32)
    FrexpExponent = codes::CA_OP_FREXP_EXPONENT,
    /// `CA_OP_MODF_FRACTION`: `np.modf(x)[0]`
    ModfFraction = codes::CA_OP_MODF_FRACTION,
}

/// Builtin reductions (CA_RED_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Reduction {
    /// `CA_RED_SUM`
    Sum = codes::CA_RED_SUM,
    /// `CA_RED_PROD`
    Prod = codes::CA_RED_PROD,
    /// `CA_RED_MEAN`
    Mean = codes::CA_RED_MEAN,
    /// `CA_RED_VAR`
    Var = codes::CA_RED_VAR,
    /// `CA_RED_STD`
    Std = codes::CA_RED_STD,
    /// `CA_RED_MIN`
    Min = codes::CA_RED_MIN,
    /// `CA_RED_MAX`
    Max = codes::CA_RED_MAX,
    /// `CA_RED_ARGMIN`
    ArgMin = codes::CA_RED_ARGMIN,
    /// `CA_RED_ARGMAX`
    ArgMax = codes::CA_RED_ARGMAX,
    /// `CA_RED_ANY`
    Any = codes::CA_RED_ANY,
    /// `CA_RED_ALL`
    All = codes::CA_RED_ALL,
    /// `CA_RED_NANSUM`
    NanSum = codes::CA_RED_NANSUM,
    /// `CA_RED_NANMEAN`
    NanMean = codes::CA_RED_NANMEAN,
}

/// Scans along an axis (CA_SCAN_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Scan {
    /// `CA_SCAN_CUMSUM`
    CumSum = codes::CA_SCAN_CUMSUM,
    /// `CA_SCAN_CUMPROD`
    CumProd = codes::CA_SCAN_CUMPROD,
}

fn scalar_f64(v: f64) -> ca_scalar_t {
    ca_scalar_t { kind: DType::Float64.code(), reserved: 0, re: v, im: 0.0, i64_: 0 }
}

fn scalar_i64(v: i64) -> ca_scalar_t {
    ca_scalar_t { kind: DType::Int64.code(), reserved: 0, re: v as f64, im: 0.0, i64_: v }
}

// ------------------------------------------------------------------------------------------------
// Context
// ------------------------------------------------------------------------------------------------

/// Worker threads, configuration and the kernel registry. Shareable between threads.
pub struct Context {
    h: *mut ca_context_t,
}

unsafe impl Send for Context {}
unsafe impl Sync for Context {}

/// What a Rust kernel gets: its arguments (blocks and literals) and the running task's block index.
pub struct KernelArgs<'a> {
    /// The task's arguments in order; a task's key references arrive as `Value::Block`.
    pub args: Vec<Value<'a>>,
    /// The block index of the task's key (`(name, i, j)` gives `[i, j]`).
    pub block_index: Vec<i64>,
}

/// A kernel argument.
#[derive(Debug)]
pub enum Value<'a> {
    /// Python's None.
    None,
    /// An int64 literal.
    Int(i64),
    /// A float64 literal.
    Float(f64),
    /// A string (invalid UTF-8 reads as "").
    Str(&'a str),
    /// Bytes.
    Bytes(&'a [u8]),
    /// A tuple of int64.
    Tuple(&'a [i64]),
    /// Another task's result (a key reference) or an input block.
    Block(BlockRef<'a>),
    /// Nested arguments.
    List(Vec<Value<'a>>),
    /// A kind this binding does not decode (the `CA_ARG_*` code).
    Other(i32),
}

impl<'a> Value<'a> {
    /// The block, if this argument is one.
    pub fn block(&self) -> Option<&BlockRef<'a>> {
        match self {
            Value::Block(b) => Some(b),
            _ => None,
        }
    }
    /// A numeric literal as f64 (ints converted).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(f) => Some(f),
            Value::Int(i) => Some(i as f64),
            _ => None,
        }
    }
}

/// The error a kernel returns: any error type (`?` on `chunkarray::Error`, `std::io::Error`, ...) or a
/// message (`Err("negative size".into())`).
pub type KernelError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a kernel closure returns: the block it made, or an error that fails the compute with
/// `Status::Kernel` and the error's text.
pub type KernelResult = std::result::Result<Block, KernelError>;

type KernelBox = Box<dyn Fn(&KernelArgs<'_>) -> KernelResult + Send + Sync + 'static>;

struct KernelData {
    name: String,
    f: KernelBox,
}

unsafe fn value_of<'a>(a: &'a ca_arg_t) -> Value<'a> {
    match a.kind {
        CA_ARG_NONE => Value::None,
        CA_ARG_INT64 => Value::Int(a.u.i64_),
        CA_ARG_FLOAT64 => Value::Float(a.u.f64_),
        CA_ARG_STRING | CA_ARG_BYTES => {
            let b = a.u.bytes;
            let s: &[u8] = if b.len == 0 { &[] } else { std::slice::from_raw_parts(b.data as *const u8, b.len) };
            if a.kind == CA_ARG_STRING {
                Value::Str(std::str::from_utf8(s).unwrap_or(""))
            } else {
                Value::Bytes(s)
            }
        }
        CA_ARG_TUPLE => {
            let t = a.u.tuple;
            Value::Tuple(if t.len == 0 { &[] } else { std::slice::from_raw_parts(t.items, t.len) })
        }
        CA_ARG_BLOCK => Value::Block(BlockRef { h: a.u.block, _p: std::marker::PhantomData }),
        CA_ARG_LIST => {
            let l = a.u.list;
            let items = if l.len == 0 { &[][..] } else { std::slice::from_raw_parts(l.items, l.len) };
            Value::List(items.iter().map(|i| value_of(i)).collect())
        }
        k => Value::Other(k),
    }
}

unsafe extern "C" fn kernel_trampoline(
    out: *mut *mut ca_block_t,
    args: *const ca_arg_t,
    nargs: usize,
    kctx: *mut ca_kernel_ctx_t,
    user_data: *mut c_void,
) -> i32 {
    let data = &*(user_data as *const KernelData);
    let l = match api() {
        Ok(l) => l,
        Err(_) => return CA_EKERNEL,
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let raw = if nargs == 0 { &[][..] } else { std::slice::from_raw_parts(args, nargs) };
        let mut n: i32 = 0;
        let ip = (l.ca_kernel_key_index)(kctx as *const _, &mut n);
        let block_index =
            if ip.is_null() || n <= 0 { Vec::new() } else { std::slice::from_raw_parts(ip, n as usize).to_vec() };
        let ka = KernelArgs { args: raw.iter().map(|a| value_of(a)).collect(), block_index };
        (data.f)(&ka)
    }));
    let msg = match result {
        Ok(Ok(block)) => {
            *out = block.into_raw();
            return CA_OK;
        }
        Ok(Err(m)) => format!("kernel '{}': {}", data.name, m),
        Err(panic) => {
            let p = if let Some(s) = panic.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = panic.downcast_ref::<String>() {
                s.clone()
            } else {
                "unknown panic payload".to_string()
            };
            format!("kernel '{}' panicked: {}", data.name, p)
        }
    };
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    (l.ca_kernel_set_error)(kctx, c.as_ptr());
    CA_EKERNEL
}

unsafe extern "C" fn kernel_free(user_data: *mut c_void) {
    drop(Box::from_raw(user_data as *mut KernelData));
}

impl Context {
    /// A context with `num_threads` workers (-1: one per core, 0: synchronous).
    pub fn new(num_threads: i32) -> Result<Context> {
        let l = lib()?;
        let o = ca_context_options_t {
            struct_size: std::mem::size_of::<ca_context_options_t>() as u32,
            num_threads,
            memory_limit: 0,
            chunk_size: 0,
            builtin_kernels: 1,
        };
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_context_new)(&mut h, &o) })?;
        Ok(Context { h })
    }

    /// The number of worker threads (0: synchronous).
    pub fn num_threads(&self) -> i32 {
        lib().map(|l| unsafe { (l.ca_context_num_threads)(self.h) }).unwrap_or(-1)
    }

    /// Set a configuration value ("array.chunk-size", "memory-limit", "num-threads", ...).
    pub fn set_config(&self, key: &str, value: &str) -> Result<()> {
        let l = lib()?;
        let (k, v) = (cstring(key)?, cstring(value)?);
        check(unsafe { (l.ca_context_set_config)(self.h, k.as_ptr(), v.as_ptr()) })
    }

    /// Register a Rust closure (or function) as kernel `name`. It runs concurrently on worker
    /// threads; a panic or an `Err` fails the compute with `Status::Kernel` and the error's text.
    /// The closure is dropped when the context is (or at once if registration fails).
    pub fn register_kernel<F>(&self, name: &str, f: F) -> Result<()>
    where
        F: Fn(&KernelArgs<'_>) -> KernelResult + Send + Sync + 'static,
    {
        let l = lib()?;
        let cname = cstring(name)?;
        let data = Box::into_raw(Box::new(KernelData { name: name.to_string(), f: Box::new(f) }));
        let o = ca_kernel_options_t {
            struct_size: std::mem::size_of::<ca_kernel_options_t>() as u32,
            version: 1,
            user_data: data as *mut c_void,
            free_user_data: Some(kernel_free),
        };
        // free_user_data runs exactly once, also when registration fails.
        check(unsafe { (l.ca_context_register)(self.h, cname.as_ptr(), kernel_trampoline, &o) })
    }

    /// The number of kernels registered (builtin ones included).
    pub fn num_kernels(&self) -> i64 {
        lib().map(|l| unsafe { (l.ca_context_num_kernels)(self.h) }).unwrap_or(0)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_context_free)(self.h) }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Blocks
// ------------------------------------------------------------------------------------------------

/// A borrowed block (a kernel's input): valid during the kernel call.
#[derive(Debug)]
pub struct BlockRef<'a> {
    h: *const ca_block_t,
    _p: std::marker::PhantomData<&'a ()>,
}

unsafe fn block_shape(h: *const ca_block_t) -> Vec<i64> {
    let l = api().unwrap();
    let nd = (l.ca_block_ndim)(h);
    let p = (l.ca_block_shape)(h);
    if nd <= 0 || p.is_null() {
        Vec::new()
    } else {
        std::slice::from_raw_parts(p, nd as usize).to_vec()
    }
}

unsafe fn block_slice<'a, T: Element>(h: *const ca_block_t) -> Option<&'a [T]> {
    let l = api().ok()?;
    if (l.ca_block_dtype)(h) != T::DTYPE.code() {
        return None;
    }
    let n = (l.ca_block_size)(h) as usize;
    if n == 0 {
        return Some(&[]);
    }
    Some(std::slice::from_raw_parts((l.ca_block_data)(h) as *const T, n))
}

impl<'a> BlockRef<'a> {
    /// The block's shape.
    pub fn shape(&self) -> Vec<i64> {
        unsafe { block_shape(self.h) }
    }
    /// The block's dtype (None for a dtype [`DType`] does not have).
    pub fn dtype(&self) -> Option<DType> {
        lib().ok().and_then(|l| DType::from_code(unsafe { (l.ca_block_dtype)(self.h) }))
    }
    /// The elements in C order, if the block's dtype is T.
    pub fn as_slice<T: Element>(&self) -> Option<&'a [T]> {
        unsafe { block_slice(self.h) }
    }
    /// A new owned reference to this block (a kernel may return its input unchanged).
    pub fn retain(&self) -> Block {
        let l = api().unwrap();
        Block { h: unsafe { (l.ca_block_retain)(self.h) } }
    }
}

/// An owned block (freed on Drop).
#[derive(Debug)]
pub struct Block {
    h: *mut ca_block_t,
}

unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Block {
    /// A new block of `shape` holding `data` (C order; data.len() must be the product of shape).
    pub fn from_vec<T: Element>(shape: &[i64], data: &[T]) -> Result<Block> {
        let l = lib()?;
        let n: i64 = shape.iter().product();
        if n as usize != data.len() {
            return Err(Error::raw(CA_EINVAL, format!("block of shape {:?} needs {} elements, got {}", shape, n,
                                                     data.len())));
        }
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_block_new)(&mut h, T::DTYPE.code(), shape.len() as i32, shape.as_ptr()) })?;
        if n > 0 {
            unsafe { ptr::copy_nonoverlapping(data.as_ptr(), (l.ca_block_data)(h) as *mut T, data.len()) };
        }
        Ok(Block { h })
    }
    /// A new block of `shape` filled with zeros.
    pub fn zeros(shape: &[i64], dtype: DType) -> Result<Block> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_block_new_zeroed)(&mut h, dtype.code(), shape.len() as i32, shape.as_ptr()) })?;
        Ok(Block { h })
    }
    /// The block's shape.
    pub fn shape(&self) -> Vec<i64> {
        unsafe { block_shape(self.h) }
    }
    /// The block's dtype (None for a dtype this enum does not have).
    pub fn dtype(&self) -> Option<DType> {
        lib().ok().and_then(|l| DType::from_code(unsafe { (l.ca_block_dtype)(self.h) }))
    }
    /// The elements in C order, if the block's dtype is T.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        unsafe { block_slice(self.h) }
    }
    /// The elements of a bool block in C order (None for another dtype).
    pub fn to_bools(&self) -> Option<Vec<bool>> {
        if self.dtype() != Some(DType::Bool) {
            return None;
        }
        let l = lib().ok()?;
        let n = unsafe { (l.ca_block_size)(self.h) } as usize;
        if n == 0 {
            return Some(Vec::new());
        }
        let p = unsafe { (l.ca_block_data)(self.h) } as *const u8;
        Some(unsafe { std::slice::from_raw_parts(p, n) }.iter().map(|&b| b != 0).collect())
    }
    fn into_raw(self) -> *mut ca_block_t {
        let h = self.h;
        std::mem::forget(self);
        h
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_block_free)(self.h) }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Arrays
// ------------------------------------------------------------------------------------------------

/// A task key: dask's `(name, i, j, ...)`. The key of block `(i, j)` of an array named `name` is
/// `Key::new(name, &[i, j])`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The layer's name (non-empty, no NUL byte).
    pub name: String,
    /// The block indices (all keys of a layer have as many).
    pub index: Vec<i64>,
}

impl Key {
    /// The key `(name, index...)`.
    pub fn new(name: impl Into<String>, index: &[i64]) -> Key {
        Key { name: name.into(), index: index.to_vec() }
    }
}

impl fmt::Display for Key {
    /// As dask prints it: `('name', 0, 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "('{}'", self.name)?;
        for i in &self.index {
            write!(f, ", {}", i)?;
        }
        f.write_str(")")
    }
}

/// One argument of a task (`Graph::add_task`) or an extra argument of `Array::map_blocks`: a
/// literal, or a reference to another task's result (`Arg::Key`, which the kernel receives as
/// [`Value::Block`]). The graph copies what it keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// Python's None.
    None,
    /// An int64 literal.
    Int(i64),
    /// A float64 literal.
    Float(f64),
    /// A UTF-8 string (no NUL byte).
    Str(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A tuple of int64 (a shape, an index).
    Tuple(Vec<i64>),
    /// A reference to the task `key`: the kernel gets that task's result block.
    Key(Key),
    /// Nested arguments (a Python list).
    List(Vec<Arg>),
}

impl Arg {
    /// `Arg::Key(Key::new(name, index))`: the result of task `(name, index...)`.
    pub fn key(name: impl Into<String>, index: &[i64]) -> Arg {
        Arg::Key(Key::new(name, index))
    }
    /// `Arg::Tuple(items.to_vec())`.
    pub fn tuple(items: &[i64]) -> Arg {
        Arg::Tuple(items.to_vec())
    }
}

impl From<i64> for Arg {
    fn from(v: i64) -> Arg {
        Arg::Int(v)
    }
}
impl From<f64> for Arg {
    fn from(v: f64) -> Arg {
        Arg::Float(v)
    }
}
impl From<&str> for Arg {
    fn from(v: &str) -> Arg {
        Arg::Str(v.to_string())
    }
}
impl From<String> for Arg {
    fn from(v: String) -> Arg {
        Arg::Str(v)
    }
}
impl From<Key> for Arg {
    fn from(k: Key) -> Arg {
        Arg::Key(k)
    }
}

/// The former name of [`Arg`] (map_blocks' extra arguments).
pub type Literal = Arg;

/// C copies of keys and arguments, alive as long as this value: the `ca_arg_t`s point into
/// `names`, `lists` and the borrowed `Arg`s.
struct RawArgs<'a> {
    args: Vec<ca_arg_t>,
    names: Vec<CString>,
    lists: Vec<Vec<ca_arg_t>>,
    _borrow: std::marker::PhantomData<&'a [Arg]>,
}

impl<'a> RawArgs<'a> {
    fn new(args: &'a [Arg]) -> Result<RawArgs<'a>> {
        let mut r = RawArgs { args: Vec::new(), names: Vec::new(), lists: Vec::new(), _borrow: std::marker::PhantomData };
        let v = args.iter().map(|a| r.conv(a)).collect::<Result<Vec<_>>>()?;
        r.args = v;
        Ok(r)
    }

    fn name(&mut self, name: &str) -> Result<*const c_char> {
        let c = cstring(name)?;
        let p = c.as_ptr();
        self.names.push(c); // the CString's buffer does not move with it
        Ok(p)
    }

    fn conv(&mut self, a: &'a Arg) -> Result<ca_arg_t> {
        let (kind, u) = match a {
            Arg::None => (CA_ARG_NONE, ca_arg_u { i64_: 0 }),
            Arg::Int(i) => (CA_ARG_INT64, ca_arg_u { i64_: *i }),
            Arg::Float(f) => (CA_ARG_FLOAT64, ca_arg_u { f64_: *f }),
            Arg::Str(s) => {
                if s.contains('\0') {
                    return Err(Error::raw(CA_EINVAL, format!("string argument {:?} contains a NUL byte", s)));
                }
                (CA_ARG_STRING, ca_arg_u { bytes: ca_bytes_t { data: s.as_ptr() as *const c_void, len: s.len() } })
            }
            Arg::Bytes(b) => (CA_ARG_BYTES, ca_arg_u { bytes: ca_bytes_t { data: b.as_ptr() as *const c_void, len: b.len() } }),
            Arg::Tuple(t) => (CA_ARG_TUPLE, ca_arg_u { tuple: ca_tuple_t { items: t.as_ptr(), len: t.len() } }),
            Arg::Key(k) => (CA_ARG_KEY, ca_arg_u { key: self.key(k)? }),
            Arg::List(items) => {
                let v = items.iter().map(|i| self.conv(i)).collect::<Result<Vec<_>>>()?;
                let list = ca_list_t { items: v.as_ptr(), len: v.len() };
                self.lists.push(v); // the Vec's buffer does not move with it
                (CA_ARG_LIST, ca_arg_u { list })
            }
        };
        Ok(ca_arg_t { kind, reserved: 0, u })
    }

    fn key(&mut self, k: &'a Key) -> Result<ca_key_t> {
        Ok(ca_key_t { name: self.name(&k.name)?, index: k.index.as_ptr(), nindex: k.index.len() as i32 })
    }
}

/// A lazy chunked N-d array (graph + name + chunks + dtype). Immutable; Clone shares it.
pub struct Array {
    h: *mut ca_array_t,
}

unsafe impl Send for Array {}
unsafe impl Sync for Array {}

impl Clone for Array {
    fn clone(&self) -> Array {
        let l = api().unwrap();
        Array { h: unsafe { (l.ca_array_retain)(self.h) } }
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_array_free)(self.h) }
        }
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array<{}, shape={:?}, dtype={:?}>", self.name(), self.shape(), self.dtype())
    }
}

/// Normalized chunks as the C struct wants them.
struct CChunks {
    numblocks: Vec<i64>,
    sizes: Vec<i64>,
}

impl CChunks {
    fn new(chunks: &[Vec<i64>]) -> CChunks {
        CChunks {
            numblocks: chunks.iter().map(|c| c.len() as i64).collect(),
            sizes: chunks.iter().flatten().copied().collect(),
        }
    }
    fn raw(&self) -> ca_chunks_t {
        ca_chunks_t { ndim: self.numblocks.len() as i32, numblocks: self.numblocks.as_ptr(), sizes: self.sizes.as_ptr() }
    }
}

/// dask's normalize_chunks with one block size per dimension (-1: whole dimension, 0: auto).
pub fn normalize_chunks(shape: &[i64], sizes: &[i64], dtype: DType) -> Result<Vec<Vec<i64>>> {
    let l = lib()?;
    if sizes.len() != shape.len() {
        return Err(Error::raw(CA_EINVAL, format!("chunks {:?} have {} dimensions, shape {:?} has {}", sizes,
                                                 sizes.len(), shape, shape.len())));
    }
    let spec: Vec<ca_dimchunks_t> =
        sizes.iter().map(|&s| ca_dimchunks_t { size: s, sizes: ptr::null(), nsizes: 0 }).collect();
    let mut cs = ptr::null_mut();
    check(unsafe {
        (l.ca_normalize_chunks)(&mut cs, ptr::null(), spec.as_ptr(), shape.len() as i32, shape.as_ptr(),
                                dtype.code(), 0)
    })?;
    let mut out = Vec::new();
    unsafe {
        for d in 0..(l.ca_chunkset_ndim)(cs) {
            let mut n = 0i64;
            let p = (l.ca_chunkset_sizes)(cs, d, &mut n);
            out.push(if n == 0 { Vec::new() } else { std::slice::from_raw_parts(p, n as usize).to_vec() });
        }
        (l.ca_chunkset_free)(cs);
    }
    Ok(out)
}

fn new_array(f: impl FnOnce(&mut *mut ca_array_t) -> i32) -> Result<Array> {
    let mut h = ptr::null_mut();
    check(f(&mut h))?;
    Ok(Array { h })
}

impl Array {
    /// The seed's constructor, dask's `Array(graph, name, chunks, dtype)`: an array over the tasks
    /// `(name, i, j, ...)` of `graph`, one per block of the chunk grid `chunks` (block sizes per
    /// dimension). The array shares the graph's layers; later changes to `graph` do not affect it.
    ///
    /// Errors: `InvalidArgument` (a negative block size, an empty or NUL-containing name),
    /// `NotFound` (a key of the chunk grid is missing from the graph; the message names it),
    /// `Type` (an invalid dtype).
    pub fn new(graph: &Graph, name: &str, chunks: &[Vec<i64>], dtype: DType) -> Result<Array> {
        let l = lib()?;
        let n = cstring(name)?;
        let cc = CChunks::new(chunks);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_new)(h, graph.h, n.as_ptr(), &raw, dtype.code()) })
    }

    /// An array over a copy of `data` (C order) with `shape` and one block size per dimension.
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64], chunks: &[i64]) -> Result<Array> {
        let l = lib()?;
        let n: i64 = shape.iter().product();
        if n as usize != data.len() {
            return Err(Error::raw(CA_EINVAL, format!("shape {:?} needs {} elements, got {}", shape, n, data.len())));
        }
        let cc = CChunks::new(&normalize_chunks(shape, chunks, T::DTYPE)?);
        let raw = cc.raw();
        new_array(|h| unsafe {
            (l.ca_array_from_buffer)(h, data.as_ptr() as *const c_void, T::DTYPE.code(), shape.len() as i32,
                                     shape.as_ptr(), &raw, ptr::null())
        })
    }

    /// An array of zeros with `shape` in blocks of `chunks` (one size per dimension, -1 whole, 0 auto).
    pub fn zeros(shape: &[i64], chunks: &[i64], dtype: DType) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_zeros)(h, shape.len() as i32, shape.as_ptr(), &raw, dtype.code()) })
    }

    /// An array of ones (see `zeros`).
    pub fn ones(shape: &[i64], chunks: &[i64], dtype: DType) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_ones)(h, shape.len() as i32, shape.as_ptr(), &raw, dtype.code()) })
    }

    /// An array filled with `value` (see `zeros`).
    pub fn full(shape: &[i64], chunks: &[i64], dtype: DType, value: f64) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe {
            (l.ca_array_full)(h, shape.len() as i32, shape.as_ptr(), &raw, dtype.code(), value, 0.0)
        })
    }

    /// An array filled with the exact integer `value` (`ca_array_full_int64`: not through a double, so
    /// 2**53 + 1 and `i64::MIN`/`i64::MAX` stay exact). Float dtypes get the nearest value; a value an
    /// integer dtype does not hold is `Status::InvalidArgument`.
    pub fn full_i64(shape: &[i64], chunks: &[i64], dtype: DType, value: i64) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_full_int64)(h, shape.len() as i32, shape.as_ptr(), &raw, dtype.code(), value) })
    }

    /// An array filled with the exact unsigned integer `value` (`ca_array_full_uint64`; `u64::MAX`
    /// included); otherwise as [`Array::full_i64`].
    pub fn full_u64(shape: &[i64], chunks: &[i64], dtype: DType, value: u64) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe {
            (l.ca_array_full_uint64)(h, shape.len() as i32, shape.as_ptr(), &raw, dtype.code(), value)
        })
    }

    /// arange(start, stop, step) in blocks of `chunk`.
    pub fn arange(start: f64, stop: f64, step: f64, chunk: i64, dtype: DType) -> Result<Array> {
        let l = lib()?;
        let n = if step == 0.0 { 0 } else { (((stop - start) / step).ceil()).max(0.0) as i64 };
        let cc = CChunks::new(&normalize_chunks(&[n], &[chunk], dtype)?);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_arange)(h, start, stop, step, &raw, dtype.code()) })
    }

    /// Uniform random values in [low, high), reproducible per block.
    pub fn random_uniform(shape: &[i64], chunks: &[i64], seed: u64, low: f64, high: f64) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(shape, chunks, DType::Float64)?);
        let raw = cc.raw();
        let o = ca_random_options_t {
            struct_size: std::mem::size_of::<ca_random_options_t>() as u32,
            reserved: 0,
            seed,
            p0: low,
            p1: high,
            p2: 0.0,
        };
        new_array(|h| unsafe {
            (l.ca_array_random)(h, 0, shape.len() as i32, shape.as_ptr(), &raw, DType::Float64.code(), &o)
        })
    }

    /// The options struct of `random`/`random_params`: the seed and params[0..3] (defaults 0, 1, 0).
    fn random_options(seed: u64, params: &[f64]) -> ca_random_options_t {
        let p = |i: usize, d: f64| params.get(i).copied().unwrap_or(d);
        ca_random_options_t {
            struct_size: std::mem::size_of::<ca_random_options_t>() as u32,
            reserved: 0,
            seed,
            p0: p(0, 0.0),
            p1: p(1, 1.0),
            p2: p(2, 0.0),
        }
    }

    /// Random values of `distribution` (NumPy Generator's method of that name) with up to three
    /// scalar parameters `params` (p0, p1, p2 in the order of NumPy's arguments; missing ones take
    /// the defaults 0, 1, 0), reproducible per `seed` whatever the chunks; never stored. `dtype`:
    /// float32/float64 for the continuous distributions, an integer dtype for integers/binomial/...
    ///
    /// Errors: `InvalidArgument` (more than three parameters, parameters outside the
    /// distribution's domain, chunks that do not fit), `Type` (a dtype the distribution does not give).
    pub fn random(distribution: RandomDistribution, shape: &[i64], chunks: &[i64], dtype: DType, seed: u64,
                  params: &[f64]) -> Result<Array> {
        let l = lib()?;
        if params.len() > 3 {
            return Err(Error::raw(CA_EINVAL, format!("random: {} parameters (at most 3)", params.len())));
        }
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        let o = Self::random_options(seed, params);
        new_array(|h| unsafe {
            (l.ca_array_random)(h, distribution as i32, shape.len() as i32, shape.as_ptr(), &raw, dtype.code(), &o)
        })
    }

    /// `random` with array-valued parameters (ca_array_random_params): parameter j is `arrays[j]`
    /// where it is `Some` (broadcast against `shape` as NumPy broadcasts parameters against size),
    /// else `params[j]` (defaults 0, 1, 0). Constant arrays give `random`'s values; a bad parameter
    /// value fails the compute (Status::Kernel, NumPy's message).
    pub fn random_params(distribution: RandomDistribution, shape: &[i64], chunks: &[i64], dtype: DType, seed: u64,
                         params: &[f64], arrays: &[Option<&Array>]) -> Result<Array> {
        let l = lib()?;
        if params.len() > 3 || arrays.len() > 3 {
            return Err(Error::raw(CA_EINVAL, format!("random_params: {} parameters and {} arrays (at most 3)",
                                                     params.len(), arrays.len())));
        }
        let cc = CChunks::new(&normalize_chunks(shape, chunks, dtype)?);
        let raw = cc.raw();
        let o = Self::random_options(seed, params);
        let hs: Vec<*const ca_array_t> = arrays.iter().map(|a| a.map_or(ptr::null(), |a| a.h as *const ca_array_t)).collect();
        new_array(|h| unsafe {
            (l.ca_array_random_params)(h, distribution as i32, shape.len() as i32, shape.as_ptr(), &raw,
                                       dtype.code(), hs.as_ptr(), hs.len() as i32, &o)
        })
    }

    /// A lazy array over a .npy file.
    pub fn from_npy(path: &str) -> Result<Array> {
        let l = lib()?;
        let p = cstring(path)?;
        new_array(|h| unsafe { (l.ca_array_from_npy)(h, p.as_ptr(), ptr::null()) })
    }

    /// A lazy array over an npy stack (dask's `from_npy_stack`: a directory of `<i>.npy` files and
    /// the `info` pickle, read by the library's strict reader).
    pub fn from_npy_stack(dir: &str) -> Result<Array> {
        let l = lib()?;
        let p = cstring(dir)?;
        new_array(|h| unsafe { (l.ca_array_from_npy_stack)(h, p.as_ptr()) })
    }

    /// A lazy array over dataset `dataset` of the HDF5 file at `path` (dask's
    /// `from_array(h5py.File(path)[dataset], chunks)`). `chunks`: a chunk request ("auto",
    /// "(1000, -1)", "64MiB") resolved with the dataset's HDF5 chunks; `None` = those chunks.
    /// `Status::Unsupported` when the library was built without HDF5.
    pub fn from_hdf5(path: &str, dataset: &str, chunks: Option<&str>) -> Result<Array> {
        let l = lib()?;
        let p = cstring(path)?;
        let d = cstring(dataset)?;
        let c = match chunks {
            Some(c) => Some(cstring(c)?),
            None => None,
        };
        let cp = c.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        new_array(|h| unsafe { (l.ca_array_from_hdf5)(h, p.as_ptr(), d.as_ptr(), cp) })
    }

    /// An array saved with `save` (needs ca_load in the library): the file must hold one array.
    pub fn load(path: &str) -> Result<Array> {
        let (_, mut arrays) = load_file(path, false)?;
        match arrays.len() {
            1 => Ok(arrays.remove(0)),
            0 => Err(Error::raw(CA_ENOTFOUND, format!("'{}' holds no array (a graph file?)", path))),
            n => Err(Error::raw(CA_EINVAL, format!("'{}' holds {} arrays", path, n))),
        }
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        unsafe { (api().unwrap().ca_array_ndim)(self.h) as usize }
    }
    /// The shape.
    pub fn shape(&self) -> Vec<i64> {
        let l = api().unwrap();
        let nd = self.ndim();
        let p = unsafe { (l.ca_array_shape)(self.h) };
        if nd == 0 || p.is_null() {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(p, nd).to_vec() }
        }
    }
    /// The number of elements.
    pub fn size(&self) -> i64 {
        unsafe { (api().unwrap().ca_array_size)(self.h) }
    }
    /// The dtype. Every dtype the library makes has a [`DType`]; a code a newer library adds reads
    /// as [`DType::Raw`] rather than panicking (see `dtype_code` for the exact code).
    pub fn dtype(&self) -> DType {
        DType::from_code(self.dtype_code()).unwrap_or(DType::Raw)
    }
    /// The C dtype code (`ca_array_dtype`).
    pub fn dtype_code(&self) -> i32 {
        unsafe { (api().unwrap().ca_array_dtype)(self.h) }
    }
    /// The array's name: its tasks are `(name, i, j, ...)`.
    pub fn name(&self) -> String {
        unsafe { cstr((api().unwrap().ca_array_name)(self.h)) }
    }
    /// The block sizes along each dimension.
    pub fn chunks(&self) -> Vec<Vec<i64>> {
        let l = api().unwrap();
        (0..self.ndim())
            .map(|d| unsafe {
                let mut n = 0i64;
                let p = (l.ca_array_chunks)(self.h, d as i32, &mut n);
                if n == 0 { Vec::new() } else { std::slice::from_raw_parts(p, n as usize).to_vec() }
            })
            .collect()
    }

    // -- elementwise ---------------------------------------------------------------------------
    /// `self op other` with NumPy broadcasting.
    pub fn binary(&self, op: BinaryOp, other: &Array) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_binary)(h, op as i32, self.h, other.h) })
    }
    /// `self op v` (or `v op self` when `scalar_first`) with a float64 scalar.
    pub fn binary_scalar(&self, op: BinaryOp, v: f64, scalar_first: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_binary_scalar)(h, op as i32, self.h, scalar_f64(v), c_int::from(scalar_first)) })
    }
    /// `self op v` with an int64 scalar (exact for integer arrays).
    pub fn binary_int(&self, op: BinaryOp, v: i64) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_binary_scalar)(h, op as i32, self.h, scalar_i64(v), 0) })
    }
    /// `self op other` under the Python array API standard's type promotion (`ca_array_binary_std`):
    /// int8 with uint8 is int16; int with float, bool with a number and int64 with uint64 are
    /// `Status::Type` errors naming both dtypes. See [`DType::promote_std`].
    pub fn binary_std(&self, op: BinaryOp, other: &Array) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_binary_std)(h, op as i32, self.h, other.h) })
    }
    /// `self op v` (or `v op self` when `scalar_first`) under the standard's scalar rule
    /// (`ca_array_binary_scalar_std`): the integer takes the array's dtype (an int8 array stays int8;
    /// a value the dtype does not hold is `Status::InvalidArgument`; a bool array is `Status::Type`).
    pub fn binary_int_std(&self, op: BinaryOp, v: i64, scalar_first: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe {
            (l.ca_array_binary_scalar_std)(h, op as i32, self.h, scalar_i64(v), c_int::from(scalar_first))
        })
    }
    /// `self op v` (or `v op self`) with a float scalar under the standard's rule: floating-point arrays
    /// only (an integer array is `Status::Type`), the result keeps the array's dtype (float32 stays float32).
    pub fn binary_f64_std(&self, op: BinaryOp, v: f64, scalar_first: bool) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe {
            (l.ca_array_binary_scalar_std)(h, op as i32, self.h, scalar_f64(v), c_int::from(scalar_first))
        })
    }
    /// A unary elementwise operator.
    pub fn unary(&self, op: UnaryOp) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_unary)(h, op as i32, self.h) })
    }
    /// `self + o` with NumPy broadcasting, as a Result (the `+` operator panics instead).
    pub fn try_add(&self, o: &Array) -> Result<Array> {
        self.binary(BinaryOp::Add, o)
    }
    /// `self - o`, as a Result.
    pub fn try_sub(&self, o: &Array) -> Result<Array> {
        self.binary(BinaryOp::Sub, o)
    }
    /// `self * o`, as a Result.
    pub fn try_mul(&self, o: &Array) -> Result<Array> {
        self.binary(BinaryOp::Mul, o)
    }
    /// `self / o`, as a Result.
    pub fn try_div(&self, o: &Array) -> Result<Array> {
        self.binary(BinaryOp::Div, o)
    }
    /// `self % o` (NumPy's mod: the sign of the divisor), as a Result.
    pub fn try_rem(&self, o: &Array) -> Result<Array> {
        self.binary(BinaryOp::Mod, o)
    }
    /// `-self`, as a Result.
    pub fn try_neg(&self) -> Result<Array> {
        self.unary(UnaryOp::Neg)
    }
    /// `self + v`, as a Result.
    pub fn add_scalar(&self, v: f64) -> Result<Array> {
        self.binary_scalar(BinaryOp::Add, v, false)
    }
    /// `self * v`, as a Result.
    pub fn mul_scalar(&self, v: f64) -> Result<Array> {
        self.binary_scalar(BinaryOp::Mul, v, false)
    }
    /// Elementwise square root.
    pub fn sqrt(&self) -> Result<Array> {
        self.unary(UnaryOp::Sqrt)
    }
    /// where(cond, self, other)
    pub fn where_(cond: &Array, a: &Array, b: &Array) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_where)(h, cond.h, a.h, b.h, scalar_f64(0.0), scalar_f64(0.0)) })
    }
    /// Convert to `dtype` (NumPy's casting).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_astype)(h, self.h, dtype.code()) })
    }

    // -- reductions ------------------------------------------------------------------------------
    /// A builtin reduction over `axes` (empty: all axes).
    pub fn reduce(&self, op: Reduction, axes: &[i32], keepdims: bool, ddof: i32) -> Result<Array> {
        let l = lib()?;
        let o = ca_reduce_options_t {
            struct_size: std::mem::size_of::<ca_reduce_options_t>() as u32,
            split_every: 0,
            ddof,
            dtype: 0,
        };
        let ap = if axes.is_empty() { ptr::null() } else { axes.as_ptr() };
        new_array(|h| unsafe { (l.ca_array_reduce)(h, op as i32, self.h, ap, axes.len() as i32, c_int::from(keepdims), &o) })
    }
    /// The sum over `axes` (empty: all).
    pub fn sum(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        self.reduce(Reduction::Sum, axes, keepdims, 0)
    }
    /// The mean over `axes` (empty: all).
    pub fn mean(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        self.reduce(Reduction::Mean, axes, keepdims, 0)
    }
    /// The maximum over `axes` (empty: all).
    pub fn max(&self, axes: &[i32], keepdims: bool) -> Result<Array> {
        self.reduce(Reduction::Max, axes, keepdims, 0)
    }
    /// A cumulative scan along `axis`.
    pub fn scan(&self, op: Scan, axis: i32) -> Result<Array> {
        let l = lib()?;
        new_array(|h| unsafe { (l.ca_array_scan)(h, op as i32, self.h, axis, ptr::null()) })
    }

    // -- structure -------------------------------------------------------------------------------
    /// Rechunk to one block size per dimension (-1: whole).
    pub fn rechunk(&self, chunks: &[i64]) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(&normalize_chunks(&self.shape(), chunks, self.dtype())?);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_rechunk)(h, self.h, &raw) })
    }

    /// Rechunk to explicit block sizes per dimension (`[vec![2, 3, 4]]`), which must sum to the shape.
    pub fn rechunk_to(&self, chunks: &[Vec<i64>]) -> Result<Array> {
        let l = lib()?;
        let cc = CChunks::new(chunks);
        let raw = cc.raw();
        new_array(|h| unsafe { (l.ca_array_rechunk)(h, self.h, &raw) })
    }

    /// map_blocks with a kernel registered under `kernel` (a Rust closure or a C kernel), over
    /// `arrays` (self first), followed by `extra` literal arguments. `dtype` None: self's dtype.
    pub fn map_blocks(&self, kernel: &str, others: &[&Array], extra: &[Arg], dtype: Option<DType>) -> Result<Array> {
        let l = lib()?;
        let k = cstring(kernel)?;
        let mut hs: Vec<*const ca_array_t> = vec![self.h];
        hs.extend(others.iter().map(|a| a.h as *const ca_array_t));
        let raw = RawArgs::new(extra)?;
        let args = &raw.args;
        let o = ca_map_blocks_options_t {
            struct_size: std::mem::size_of::<ca_map_blocks_options_t>() as u32,
            dtype: dtype.map(|d| d.code()).unwrap_or(0),
            chunks: ptr::null(),
            drop_axis: ptr::null(),
            ndrop_axis: 0,
            new_axis: ptr::null(),
            nnew_axis: 0,
            block_info: 0,
            name: ptr::null(),
        };
        new_array(|h| unsafe {
            (l.ca_array_map_blocks)(h, k.as_ptr(), hs.as_ptr(), hs.len(), args.as_ptr(), args.len(), &o)
        })
    }

    // -- compute ---------------------------------------------------------------------------------
    /// Compute into one owned block.
    pub fn compute(&self, ctx: &Context) -> Result<Block> {
        self.compute_with(ctx, &mut ComputeOptions::default())
    }
    /// `compute` with a cancellation token and/or a progress callback.
    pub fn compute_with(&self, ctx: &Context, opts: &mut ComputeOptions<'_>) -> Result<Block> {
        let l = lib()?;
        let mut b = ptr::null_mut();
        opts.run(|o| unsafe { (l.ca_array_compute)(&mut b, ctx.h, self.h, o) })?;
        Ok(Block { h: b })
    }
    /// Compute into a `Vec<T>` (C order); CA_ETYPE if the array's dtype is not T.
    pub fn compute_vec<T: Element>(&self, ctx: &Context) -> Result<Vec<T>> {
        if self.dtype() != T::DTYPE {
            return Err(Error::raw(CA_ETYPE, format!("array dtype is {:?}, asked for {:?}", self.dtype(), T::DTYPE)));
        }
        let b = self.compute(ctx)?;
        Ok(b.as_slice::<T>().expect("dtype checked").to_vec())
    }
    /// Compute a bool array into a `Vec<bool>` (C order); CA_ETYPE for another dtype.
    pub fn compute_bools(&self, ctx: &Context) -> Result<Vec<bool>> {
        if self.dtype() != DType::Bool {
            return Err(Error::raw(CA_ETYPE, format!("array dtype is {:?}, asked for Bool", self.dtype())));
        }
        Ok(self.compute(ctx)?.to_bools().expect("dtype checked"))
    }
    /// Compute several arrays in one pass over their merged graph.
    pub fn compute_many(ctx: &Context, arrays: &[&Array]) -> Result<Vec<Block>> {
        Array::compute_many_with(ctx, arrays, &mut ComputeOptions::default())
    }
    /// `compute_many` with a cancellation token and/or a progress callback.
    pub fn compute_many_with(ctx: &Context, arrays: &[&Array], opts: &mut ComputeOptions<'_>) -> Result<Vec<Block>> {
        let l = lib()?;
        let hs: Vec<*const ca_array_t> = arrays.iter().map(|a| a.h as *const ca_array_t).collect();
        let mut out: Vec<*mut ca_block_t> = vec![ptr::null_mut(); arrays.len()];
        opts.run(|o| unsafe { (l.ca_array_compute_many)(out.as_mut_ptr(), ctx.h, hs.as_ptr(), hs.len(), o) })?;
        Ok(out.into_iter().map(|h| Block { h }).collect())
    }
    /// Compute the array and keep its blocks in memory as a new array.
    pub fn persist(&self, ctx: &Context) -> Result<Array> {
        self.persist_with(ctx, &mut ComputeOptions::default())
    }
    /// `persist` with a cancellation token and/or a progress callback.
    pub fn persist_with(&self, ctx: &Context, opts: &mut ComputeOptions<'_>) -> Result<Array> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        opts.run(|o| unsafe { (l.ca_array_persist)(&mut h, ctx.h, self.h, o) })?;
        Ok(Array { h })
    }

    // -- pictures and files ----------------------------------------------------------------------
    /// The chunk grid as an SVG picture, `size` pixels wide (0: default), as dask's `_repr_html_`.
    pub fn to_svg(&self, size: i32) -> Result<String> {
        let l = lib()?;
        let mut s = ptr::null_mut();
        check(unsafe { (l.ca_array_to_svg)(&mut s, self.h, size) })?;
        let r = unsafe { cstr(s) };
        unsafe { (l.ca_string_free)(s) };
        Ok(r)
    }
    /// A new graph holding the array's layers (shared): the start of a graph for an array built
    /// on this one (dask's `HighLevelGraph.from_collections(name, dsk, dependencies=[a])`).
    pub fn graph(&self) -> Result<Graph> {
        let l = lib()?;
        let mut g = ptr::null_mut();
        check(unsafe { (l.ca_array_graph)(&mut g, self.h) })?;
        Ok(Graph { h: g })
    }
    /// Compute the array into a .npy file.
    pub fn to_npy(&self, ctx: &Context, path: &str) -> Result<()> {
        self.to_npy_with(ctx, path, &mut ComputeOptions::default())
    }
    /// `to_npy` with a cancellation token and/or a progress callback.
    pub fn to_npy_with(&self, ctx: &Context, path: &str, opts: &mut ComputeOptions<'_>) -> Result<()> {
        let l = lib()?;
        let p = cstring(path)?;
        opts.run(|o| unsafe { (l.ca_array_to_npy)(ctx.h, self.h, p.as_ptr(), o) })
    }
    /// Compute the array into an npy stack (dask's `to_npy_stack`): one `.npy` file per block along
    /// `axis` (negative counts from the end) and the `info` pickle, readable by dask.
    pub fn to_npy_stack(&self, ctx: &Context, dir: &str, axis: i32) -> Result<()> {
        let l = lib()?;
        let p = cstring(dir)?;
        let mut opts = ComputeOptions::default();
        opts.run(|o| unsafe { (l.ca_array_to_npy_stack)(ctx.h, self.h, p.as_ptr(), axis, o) })
    }
    /// Compute the array into dataset `dataset` of the HDF5 file at `path` (dask's `to_hdf5`),
    /// block by block. `Status::Unsupported` when the library was built without HDF5.
    pub fn to_hdf5(&self, ctx: &Context, path: &str, dataset: &str, opts: &Hdf5Options) -> Result<()> {
        let l = lib()?;
        let p = cstring(path)?;
        let d = cstring(dataset)?;
        if let Some(c) = &opts.chunks {
            if c.len() != self.ndim() {
                return Err(Error::raw(CA_EINVAL, format!("to_hdf5: {} chunk sizes for {} dimensions", c.len(),
                                                         self.ndim())));
            }
        }
        let o = ca_hdf5_options_t {
            struct_size: std::mem::size_of::<ca_hdf5_options_t>() as u32,
            chunks: opts.chunks.as_ref().map_or(ptr::null(), |c| c.as_ptr()),
            contiguous: opts.contiguous as i32,
            gzip_level: opts.gzip_level,
            shuffle: opts.shuffle as i32,
            overwrite: opts.overwrite as i32,
        };
        let mut copts = ComputeOptions::default();
        copts.run(|co| unsafe { (l.ca_array_to_hdf5)(ctx.h, self.h, p.as_ptr(), d.as_ptr(), &o, co) })
    }
    /// Save graph, name, chunks and dtype (needs ca_save in the library).
    pub fn save(&self, path: &str) -> Result<()> {
        save_file(path, ptr::null(), &[self.h as *const ca_array_t], None)
    }
    /// Save, recording the version of every kernel as registered in `ctx` (ca_save_options_t.context):
    /// computing the loaded array where a kernel has another version fails with CA_EVERSION; a kernel
    /// missing from `ctx` fails the save with CA_ENOTFOUND.
    pub fn save_with_context(&self, path: &str, ctx: &Context) -> Result<()> {
        save_file(path, ptr::null(), &[self.h as *const ca_array_t], Some(ctx))
    }
}

/// How [`Array::to_hdf5`] lays out the dataset (`ca_hdf5_options_t`).
#[derive(Clone, Debug)]
pub struct Hdf5Options {
    /// The HDF5 chunk shape; `None` = the array's first block sizes.
    pub chunks: Option<Vec<i64>>,
    /// Contiguous layout (no chunks, no filters).
    pub contiguous: bool,
    /// -1: no compression; 0..9: HDF5's deflate (gzip) level.
    pub gzip_level: i32,
    /// HDF5's shuffle filter (before deflate).
    pub shuffle: bool,
    /// Replace an existing dataset of that name.
    pub overwrite: bool,
}

impl Default for Hdf5Options {
    fn default() -> Self {
        Hdf5Options { chunks: None, contiguous: false, gzip_level: -1, shuffle: false, overwrite: false }
    }
}

/// A cancellation token (`ca_cancel_t`): [`CancelToken::cancel`] from any thread stops the
/// computations watching it (running tasks finish, no new task starts) and they fail with
/// `Status::Canceled`. Shared between threads with `Arc` or by reference (`Send + Sync`).
pub struct CancelToken {
    h: *mut ca_cancel_t,
}

// ca_cancel_t: request/requested/reset from any thread.
unsafe impl Send for CancelToken {}
unsafe impl Sync for CancelToken {}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> Result<CancelToken> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_cancel_new)(&mut h) })?;
        Ok(CancelToken { h })
    }
    /// Stop the computations watching this token (and every later one until `reset`).
    pub fn cancel(&self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_cancel_request)(self.h) }
        }
    }
    /// True once `cancel` was called (and not `reset` since).
    pub fn is_cancelled(&self) -> bool {
        lib().map(|l| unsafe { (l.ca_cancel_requested)(self.h) != 0 }).unwrap_or(false)
    }
    /// Make the token usable again.
    pub fn reset(&self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_cancel_reset)(self.h) }
        }
    }
}

impl Drop for CancelToken {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_cancel_free)(self.h) }
        }
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CancelToken {{ cancelled: {} }}", self.is_cancelled())
    }
}

/// Options of `compute_with`, `compute_many_with`, `persist_with`, `to_npy_with`.
#[derive(Default)]
pub struct ComputeOptions<'a> {
    /// Stop when this token is cancelled.
    pub cancel: Option<&'a CancelToken>,
    /// Called as `progress(done, total)` tasks, on the calling thread, at most every
    /// `progress_interval` (0: the library's default, 100 ms). A panic in it is re-raised after
    /// the computation returns.
    pub progress: Option<&'a mut dyn FnMut(i64, i64)>,
    /// Minimum time between progress calls.
    pub progress_interval: std::time::Duration,
}

impl fmt::Debug for ComputeOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ComputeOptions")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("progress_interval", &self.progress_interval)
            .finish()
    }
}

struct ProgressState<'p, 'a> {
    f: &'p mut (dyn FnMut(i64, i64) + 'a),
    panic: Option<Box<dyn std::any::Any + Send + 'static>>,
}

unsafe extern "C" fn progress_trampoline(done: i64, total: i64, user_data: *mut c_void) {
    let st = &mut *(user_data as *mut ProgressState<'_, '_>);
    if st.panic.is_some() {
        return;
    }
    let f = &mut st.f;
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(done, total))) {
        st.panic = Some(p);
    }
}

impl ComputeOptions<'_> {
    /// Run `f` with these options as a `ca_compute_options_t`, then turn its status into a Result.
    fn run(&mut self, f: impl FnOnce(*const ca_compute_options_t) -> i32) -> Result<()> {
        let mut o = ca_compute_options_t {
            struct_size: std::mem::size_of::<ca_compute_options_t>() as u32,
            progress: None,
            progress_user_data: ptr::null_mut(),
            progress_interval_us: self.progress_interval.as_micros().min(i64::MAX as u128) as i64,
            cancel: self.cancel.map_or(ptr::null(), |c| c.h as *const c_void),
        };
        let mut state = self.progress.as_mut().map(|p| ProgressState { f: &mut **p, panic: None });
        if let Some(st) = state.as_mut() {
            o.progress = Some(progress_trampoline);
            o.progress_user_data = st as *mut ProgressState<'_, '_> as *mut c_void;
        }
        let status = f(&o);
        if let Some(p) = state.and_then(|s| s.panic) {
            std::panic::resume_unwind(p);
        }
        check(status)
    }
}

/// A task graph (dask's HighLevelGraph): named layers of tasks `key = (kernel, args...)`.
///
/// Build one with [`Graph::new`] and [`Graph::add_task`] (or start from an array's graph with
/// [`Array::graph`]), then make an array over it with [`Array::new`]. Modifying takes `&mut self`;
/// computing only reads the graph, so a `Graph` is `Send` and `Sync`.
///
/// ```
/// use chunkarray::{Arg, Array, Block, Context, DType, Graph, Key, Value};
/// let ctx = Context::new(2)?;
/// ctx.register_kernel("my.ones", |ka| match ka.args[..] {
///     [Value::Int(n)] => Ok(Block::from_vec(&[n], &vec![1.0f64; n as usize])?),
///     _ => Err("my.ones takes one size".into()),
/// })?;
/// // dask: {('x', 0): (np.ones, 3), ('x', 1): (np.ones, 2)}; Array(dsk, 'x', ((3, 2),), float64)
/// let mut g = Graph::new()?;
/// g.add_task(&Key::new("x", &[0]), "my.ones", &[Arg::Int(3)])?;
/// g.add_task(&Key::new("x", &[1]), "my.ones", &[Arg::Int(2)])?;
/// let x = Array::new(&g, "x", &[vec![3, 2]], DType::Float64)?;
/// assert_eq!((&x * 2.0).compute_vec::<f64>(&ctx)?, vec![2.0; 5]);
/// # Ok::<(), chunkarray::Error>(())
/// ```
pub struct Graph {
    h: *mut ca_graph_t,
}

// ca_graph_t: built by one thread at a time (&mut self here), read concurrently (&self).
unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Graph<{} layers, {} tasks>", self.num_layers(), self.num_tasks())
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Ok(l) = lib() {
            unsafe { (l.ca_graph_free)(self.h) }
        }
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Result<Graph> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_graph_new)(&mut h) })?;
        Ok(Graph { h })
    }

    /// A copy sharing the (immutable) layers: O(number of layers).
    pub fn copy(&self) -> Result<Graph> {
        let l = lib()?;
        let mut h = ptr::null_mut();
        check(unsafe { (l.ca_graph_copy)(&mut h, self.h) })?;
        Ok(Graph { h })
    }

    /// Add the task `key = (kernel, args...)` to the layer named `key.name`. Keys referenced by
    /// `Arg::Key` need not exist yet (they are checked when an array is made or computed).
    /// `kernel` is looked up in the context's registry at compute time.
    ///
    /// Errors: `InvalidArgument` (empty name, a NUL byte, an index count that differs from the
    /// layer's), `Exists` (the key is already there, or its name is a symbolic layer's).
    pub fn add_task(&mut self, key: &Key, kernel: &str, args: &[Arg]) -> Result<()> {
        let l = lib()?;
        let k = cstring(kernel)?;
        let mut raw = RawArgs::new(args)?;
        let ck = raw.key(key)?;
        check(unsafe { (l.ca_graph_add_task)(self.h, &ck, k.as_ptr(), raw.args.as_ptr(), raw.args.len()) })
    }

    /// Add every layer of `other` (layers of the same name must be the same layer).
    pub fn merge(&mut self, other: &Graph) -> Result<()> {
        let l = lib()?;
        check(unsafe { (l.ca_graph_merge)(self.h, other.h) })
    }

    /// True if the graph holds the task `key`.
    pub fn contains_key(&self, key: &Key) -> bool {
        let (l, name) = match (lib(), CString::new(key.name.as_str())) {
            (Ok(l), Ok(n)) => (l, n),
            _ => return false,
        };
        let ck = ca_key_t { name: name.as_ptr(), index: key.index.as_ptr(), nindex: key.index.len() as i32 };
        unsafe { (l.ca_graph_has_key)(self.h, &ck) != 0 }
    }

    /// The layers' names.
    pub fn layers(&self) -> Result<Vec<String>> {
        let l = lib()?;
        let mut list = ptr::null_mut();
        check(unsafe { (l.ca_graph_layers)(&mut list, self.h) })?;
        let mut out = Vec::new();
        let n = unsafe { (l.ca_keylist_size)(list) };
        for i in 0..n {
            let mut k = ca_key_t { name: ptr::null(), index: ptr::null(), nindex: 0 };
            let st = unsafe { (l.ca_keylist_get)(list, i, &mut k) };
            if st != CA_OK {
                unsafe { (l.ca_keylist_free)(list) };
                return check(st).map(|_| Vec::new());
            }
            out.push(unsafe { cstr(k.name) });
        }
        unsafe { (l.ca_keylist_free)(list) };
        Ok(out)
    }

    /// The number of tasks (symbolic layers count their blocks).
    pub fn num_tasks(&self) -> i64 {
        unsafe { (api().unwrap().ca_graph_num_tasks)(self.h) }
    }
    /// The number of layers.
    pub fn num_layers(&self) -> i64 {
        unsafe { (api().unwrap().ca_graph_num_layers)(self.h) }
    }
    /// The graph in graphviz dot.
    pub fn to_dot(&self) -> Result<String> {
        let l = lib()?;
        let mut s = ptr::null_mut();
        check(unsafe { (l.ca_graph_to_dot)(&mut s, self.h, ptr::null(), 0) })?;
        let r = unsafe { cstr(s) };
        unsafe { (l.ca_string_free)(s) };
        Ok(r)
    }
    /// Save to a file (needs ca_save in the library).
    pub fn save(&self, path: &str) -> Result<()> {
        save_file(path, self.h, &[], None)
    }
    /// Save, recording the kernel versions registered in `ctx` (see `Array::save_with_context`).
    pub fn save_with_context(&self, path: &str, ctx: &Context) -> Result<()> {
        save_file(path, self.h, &[], Some(ctx))
    }
    /// The version of `kernel` the graph records (from the file it was loaded from); 0 if none.
    /// CA_ENOTFOUND if no task calls it, CA_EVERSION if two layers record different versions.
    pub fn kernel_version(&self, kernel: &str) -> Result<i32> {
        let l = lib()?;
        let f = l
            .ca_graph_kernel_version
            .ok_or_else(|| Error::raw(CA_EUNSUPPORTED, "ca_graph_kernel_version is not in the loaded library"))?;
        let k = cstring(kernel)?;
        let mut v = 0i32;
        check(unsafe { f(&mut v, self.h, k.as_ptr()) })?;
        Ok(v)
    }
    /// A graph saved with `Graph::save`.
    pub fn load(path: &str) -> Result<Graph> {
        let (g, _) = load_file(path, true)?;
        Ok(Graph { h: g })
    }
}

/// ca_save of a graph (`graph` not null) or of `arrays` to the file `path`.
fn save_file(path: &str, graph: *const ca_graph_t, arrays: &[*const ca_array_t], ctx: Option<&Context>) -> Result<()> {
    let l = lib()?;
    let f = l.ca_save.ok_or_else(|| Error::raw(CA_EUNSUPPORTED, "ca_save is not in the loaded library"))?;
    let p = cstring(path)?;
    let o = ca_save_options_t {
        struct_size: std::mem::size_of::<ca_save_options_t>() as u32,
        context: ctx.map_or(ptr::null(), |c| c.h as *const ca_context_t),
        path: p.as_ptr(),
        graph,
        arrays: if graph.is_null() { arrays.as_ptr() } else { ptr::null() },
        narrays: if graph.is_null() { arrays.len() } else { 0 },
    };
    check(unsafe { f(ptr::null_mut(), ptr::null_mut(), &o) })
}

/// ca_load of the file `path`: its graph (`graph`: an owned handle, else null) or its arrays.
fn load_file(path: &str, graph: bool) -> Result<(*mut ca_graph_t, Vec<Array>)> {
    let l = lib()?;
    let f = l.ca_load.ok_or_else(|| Error::raw(CA_EUNSUPPORTED, "ca_load is not in the loaded library"))?;
    let free_many = l
        .ca_array_free_many
        .ok_or_else(|| Error::raw(CA_EUNSUPPORTED, "ca_array_free_many is not in the loaded library"))?;
    let p = cstring(path)?;
    let o = ca_load_options_t {
        struct_size: std::mem::size_of::<ca_load_options_t>() as u32,
        path: p.as_ptr(),
        data: ptr::null(),
        size: 0,
    };
    if graph {
        let mut g = ptr::null_mut();
        check(unsafe { f(&mut g, ptr::null_mut(), ptr::null_mut(), &o) })?;
        return Ok((g, Vec::new()));
    }
    let mut list: *mut *mut ca_array_t = ptr::null_mut();
    let mut n = 0usize;
    check(unsafe { f(ptr::null_mut(), &mut list, &mut n, &o) })?;
    let arrays = (0..n).map(|i| Array { h: unsafe { (l.ca_array_retain)(*list.add(i)) } }).collect();
    unsafe { free_many(list, n) };
    Ok((ptr::null_mut(), arrays))
}

// ------------------------------------------------------------------------------------------------
// Operators. Like ndarray's, `&a + &b`, `a * 2.0`, `10.0 - &a`, `-&a` return the array itself and
// panic when the library refuses the operation (shapes that do not broadcast, an op the dtype does
// not support); the `try_*` methods return the same error as a `Result`. Everything else (kernels,
// memory) fails later, at compute, as a `Result`.
// ------------------------------------------------------------------------------------------------

#[track_caller]
fn op_or_panic(r: Result<Array>, what: &str) -> Array {
    match r {
        Ok(a) => a,
        Err(e) => panic!("chunkarray: {} failed: {} (use the try_* methods to get a Result)", what, e),
    }
}

macro_rules! array_ops {
    ($($tr:ident $m:ident $op:ident $sym:literal),*) => {$(
        impl std::ops::$tr<&Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, o: &Array) -> Array {
                op_or_panic(self.binary(BinaryOp::$op, o), concat!("array ", $sym, " array"))
            }
        }
        impl std::ops::$tr<Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, o: Array) -> Array {
                self.$m(&o)
            }
        }
        impl std::ops::$tr<&Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, o: &Array) -> Array {
                (&self).$m(o)
            }
        }
        impl std::ops::$tr<Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, o: Array) -> Array {
                (&self).$m(&o)
            }
        }
        impl std::ops::$tr<f64> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, v: f64) -> Array {
                op_or_panic(self.binary_scalar(BinaryOp::$op, v, false), concat!("array ", $sym, " scalar"))
            }
        }
        impl std::ops::$tr<f64> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, v: f64) -> Array {
                (&self).$m(v)
            }
        }
        impl std::ops::$tr<&Array> for f64 {
            type Output = Array;
            #[track_caller]
            fn $m(self, a: &Array) -> Array {
                op_or_panic(a.binary_scalar(BinaryOp::$op, self, true), concat!("scalar ", $sym, " array"))
            }
        }
        impl std::ops::$tr<Array> for f64 {
            type Output = Array;
            #[track_caller]
            fn $m(self, a: Array) -> Array {
                self.$m(&a)
            }
        }
        impl std::ops::$tr<i64> for &Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, v: i64) -> Array {
                op_or_panic(self.binary_int(BinaryOp::$op, v), concat!("array ", $sym, " scalar"))
            }
        }
        impl std::ops::$tr<i64> for Array {
            type Output = Array;
            #[track_caller]
            fn $m(self, v: i64) -> Array {
                (&self).$m(v)
            }
        }
    )*};
}
array_ops!(Add add Add "+", Sub sub Sub "-", Mul mul Mul "*", Div div Div "/", Rem rem Mod "%");

// `a += &b`, `a *= 2.0`: `a` becomes the lazy array `a op b` (panicking like the operators).
macro_rules! array_assign_ops {
    ($($tr:ident $m:ident $base:ident $bm:ident),*) => {$(
        impl std::ops::$tr<&Array> for Array {
            #[track_caller]
            fn $m(&mut self, o: &Array) {
                *self = std::ops::$base::$bm(&*self, o);
            }
        }
        impl std::ops::$tr<f64> for Array {
            #[track_caller]
            fn $m(&mut self, v: f64) {
                *self = std::ops::$base::$bm(&*self, v);
            }
        }
    )*};
}
array_assign_ops!(AddAssign add_assign Add add, SubAssign sub_assign Sub sub, MulAssign mul_assign Mul mul,
                  DivAssign div_assign Div div);

impl std::ops::Neg for &Array {
    type Output = Array;
    #[track_caller]
    fn neg(self) -> Array {
        op_or_panic(self.unary(UnaryOp::Neg), "-array")
    }
}

impl std::ops::Neg for Array {
    type Output = Array;
    #[track_caller]
    fn neg(self) -> Array {
        -&self
    }
}

/// The distributions of [`Array::random`] (ca_random_t; the parameters p0, p1, p2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum RandomDistribution {
    /// [p0, p1)
    Uniform = 0,
    /// mean p0, standard deviation p1
    Normal = 1,
    /// integers in [p0, p1), integer dtype
    Integers = 2,
    /// beta(a = p0, b = p1); a, b > 0
    Beta = 3,
    /// binomial(n = p0, p = p1), int64; n a non-negative integer < 2**53
    Binomial = 4,
    /// chisquare(df = p0 > 0)
    Chisquare = 5,
    /// exponential(scale = p0 >= 0)
    Exponential = 6,
    /// f(dfnum = p0 > 0, dfden = p1 > 0)
    F = 7,
    /// gamma(shape = p0 >= 0, scale = p1 >= 0)
    Gamma = 8,
    /// geometric(p = p0 in (0, 1]), int64, values >= 1
    Geometric = 9,
    /// gumbel(loc = p0, scale = p1 >= 0)
    Gumbel = 10,
    /// hypergeometric(ngood = p0, nbad = p1, nsample = p2), int64
    Hypergeometric = 11,
    /// laplace(loc = p0, scale = p1 >= 0)
    Laplace = 12,
    /// logistic(loc = p0, scale = p1 >= 0)
    Logistic = 13,
    /// lognormal(mean = p0, sigma = p1 >= 0)
    Lognormal = 14,
    /// logseries(p = p0 in [0, 1)), int64
    Logseries = 15,
    /// negative_binomial(n = p0 > 0, p = p1 in (0, 1]), int64
    NegativeBinomial = 16,
    /// noncentral_chisquare(df = p0 > 0, nonc = p1 >= 0)
    NoncentralChisquare = 17,
    /// noncentral_f(dfnum = p0 > 0, dfden = p1 > 0, nonc = p2 >= 0)
    NoncentralF = 18,
    /// pareto(a = p0 > 0) (Lomax: values >= 0)
    Pareto = 19,
    /// poisson(lam = p0 >= 0), int64
    Poisson = 20,
    /// power(a = p0 > 0)
    Power = 21,
    /// rayleigh(scale = p0 >= 0)
    Rayleigh = 22,
    /// standard_cauchy()
    StandardCauchy = 23,
    /// standard_exponential()
    StandardExponential = 24,
    /// standard_gamma(shape = p0 >= 0)
    StandardGamma = 25,
    /// standard_t(df = p0 > 0)
    StandardT = 26,
    /// triangular(left = p0, mode = p1, right = p2); left <= mode <= right, left < right
    Triangular = 27,
    /// vonmises(mu = p0, kappa = p1 >= 0), values in [-pi, pi]
    Vonmises = 28,
    /// wald(mean = p0 > 0, scale = p1 > 0)
    Wald = 29,
    /// weibull(a = p0 >= 0)
    Weibull = 30,
    /// zipf(a = p0 > 1), int64
    Zipf = 31,
}
