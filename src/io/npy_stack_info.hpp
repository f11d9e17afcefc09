// The `info` file of dask's npy stacks (dask.array.to_npy_stack / from_npy_stack): a pickle of
// {'chunks': tuple of tuples of int, 'dtype': numpy.dtype, 'axis': int}. A minimal, strict pickle
// writer and reader for exactly that shape: the reader runs a small pickle machine that knows only
// the opcodes such a dict needs (protocols 2 to 5: dicts, tuples, ints, str, bool, None, memo, and
// the one global numpy.dtype, called with its (typestr, False, True) and given its state tuple) and
// refuses anything else with CA_EFORMAT: it never imports, calls or builds any other object, so an
// untrusted info file cannot run code (as Python's pickle.load would).
#pragma once

#include <string>
#include <vector>

#include "core/block.hpp"

namespace ca::io {

struct NpyStackInfo {
  std::vector<std::vector<Index>> chunks;
  DType dtype = CA_DTYPE_INVALID;
  int axis = 0;
};

/// The pickle (protocol 2) dask's to_npy_stack writes for `info`. CA_EUNSUPPORTED for a dtype the
/// writer cannot name (datetime64/timedelta64, raw).
std::string write_npy_stack_info(const NpyStackInfo &info);

/// Parse an info pickle. `where` names the file in messages. CA_EFORMAT for anything but the shape
/// above (naming the opcode or the key), CA_EUNSUPPORTED for a dtype chunkarray has no counterpart for.
NpyStackInfo parse_npy_stack_info(const std::string &bytes, const std::string &where);

}  // namespace ca::io
