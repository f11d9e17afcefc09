// Byte sizes written as text ("128MiB", "1TB", "64e6", "100 kB"): the one parser behind every
// string the library reads as a byte count (ca_context_set_config's array.chunk-size and
// memory-limit, chunk specifications, rechunk requests).
#pragma once

#include <cstdint>
#include <string>

namespace ca {

/// dask.utils.parse_bytes: spaces are ignored; a number (decimal, exponent allowed; "1" if the text
/// has no digit, so "MiB" is 1 MiB) followed by an optional unit, case-insensitive: b, kb/k, mb/m,
/// gb/g, tb/t, pb/p (powers of 1000) and kib/ki, mib/mi, gib/gi, tib/ti, pib/pi (powers of 1024).
/// The result is truncated to an integer. Throws ca::Error(CA_EINVAL) naming the text for a bad
/// number, an unknown unit, or a size outside 0..2^63-1.
int64_t parse_bytes(const std::string &text);

}  // namespace ca
