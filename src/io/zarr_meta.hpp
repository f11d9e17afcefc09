// Zarr v2 array metadata (.zarray), attributes (.zattrs) and groups (.zgroup).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "io/codec.hpp"

namespace ca::io {

/// .zarray's fill_value: null, or a number of the dtype's kind (NaN and infinities included); for
/// datetime64/timedelta64 the ticks as int64 (NaT is -2**63); for bytes the bytes themselves (the
/// file holds them base64-encoded, as zarr-python writes), for unicode the text in UTF-8.
using FillValue = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::complex<double>, std::string>;

/// The contents of a .zarray. A plain value: copy it freely, share it between threads read-only.
struct ZarrMeta {
  std::vector<Index> shape;
  std::vector<Index> chunks;  ///< same length as shape, each >= 1
  DType dtype = CA_FLOAT64;
  bool big_endian = false;    ///< byte order of the stored items (ignored for 1-byte items)
  char order = 'C';           ///< 'C' or 'F': layout of the items inside each chunk
  FillValue fill_value;       ///< for missing chunks and edge padding; null reads as zeros
  Compressor compressor;      ///< none by default
  char dimension_separator = '.';  ///< '.' ("0.1") or '/' ("0/1") in chunk keys

  int ndim() const noexcept { return int(shape.size()); }
  size_t itemsize() const noexcept { return dtype_size(dtype); }
  /// Elements and bytes of one (full) chunk.
  Index chunk_elems() const noexcept;
  size_t chunk_nbytes() const noexcept { return size_t(chunk_elems()) * itemsize(); }
  /// Chunks along each axis: ceil(shape / chunks) (0 along an empty axis).
  std::vector<Index> chunk_grid() const;
  /// NumPy typestr of the stored items: "<f8", ">i4", "|b1".
  std::string typestr() const;
  /// The fill value as one item of `dtype` in native byte order (all zero for a null fill value).
  /// Throws CA_EFORMAT if it does not fit the dtype (NaN for an integer dtype, 300 for uint8).
  std::vector<unsigned char> fill_bytes() const;
};

/// A new metadata value with zarr-python's defaults (order C, no compressor, separator '.').
ZarrMeta make_zarr_meta(DType dtype, std::vector<Index> shape, std::vector<Index> chunks);

/// Check shapes, dtype, order, separator, compressor and fill value. Throws CA_EINVAL / CA_EUNSUPPORTED.
void validate_zarr_meta(const ZarrMeta &meta);

/// Parse .zarray text; `where` names the file in messages. Throws CA_EFORMAT (corrupt JSON, text over
/// kMaxMetadataBytes or nested deeper than 64 levels, missing or malformed keys, a shape of more than
/// 2^63 bytes or of more than 2^26 chunks along an axis), CA_EVERSION (zarr_format other than 2), CA_EUNSUPPORTED (filters, unknown compressor,
/// dtypes other than bool/int/uint/float32/float64/complex).
ZarrMeta parse_zarray(const std::string &json_text, const std::string &where = ".zarray");
/// .zarray text as zarr-python writes it (sorted keys, 4-space indent, fill_value "NaN"/"Infinity").
std::string zarray_to_json(const ZarrMeta &meta);

/// <path>/.zarray. Throws CA_ENOTFOUND naming the path if it is missing, else as parse_zarray().
ZarrMeta read_zarr_meta(const std::string &path);
/// Write <path>/.zarray atomically (creating the directory) and, unless attrs_json is empty,
/// <path>/.zattrs. Validates the metadata first.
void write_zarr_meta(const std::string &path, const ZarrMeta &meta, const std::string &attrs_json = "");

/// Check attributes text: a JSON object (NaN and Infinity tokens allowed), at most kMaxMetadataBytes and
/// 64 levels deep. Throws `code` (CA_EFORMAT for files, CA_EINVAL for callers' text) naming `where`.
void check_attrs_json(const std::string &text, const std::string &where, ca_status_t code);

/// The text of <path>/.zattrs, "{}" if there is none. Returned raw (zarr-python may write NaN tokens),
/// after check_attrs_json() (CA_EFORMAT); regular files of at most kMaxMetadataBytes only (CA_EIO).
std::string read_zattrs(const std::string &path);
/// Write <path>/.zattrs atomically. `attrs_json` must be a JSON object (CA_EINVAL otherwise); NaN and
/// Infinity tokens are accepted as Python's json module writes them.
void write_zattrs(const std::string &path, const std::string &attrs_json);

// -- groups ------------------------------------------------------------------------------------------

/// True if <path>/.zarray (resp. <path>/.zgroup) exists.
bool is_zarr_array(const std::string &path) noexcept;
bool is_zarr_group(const std::string &path) noexcept;

/// Create a group: <path>/.zgroup ({"zarr_format": 2}) and, unless empty, <path>/.zattrs. An existing
/// group is kept (its attributes replaced if attrs_json is given); an existing array is CA_EEXISTS.
void create_group(const std::string &path, const std::string &attrs_json = "");

struct ZarrMember {
  std::string name;
  bool is_group;  ///< else an array
  bool operator==(const ZarrMember &) const = default;
};
/// Arrays and groups directly inside the group at `path`, sorted by name. CA_ENOTFOUND if `path` is no
/// group.
std::vector<ZarrMember> list_group(const std::string &path);

}  // namespace ca::io
