// Numbers as text and text as numbers, the way NumPy's casts between numeric and bytes/unicode
// dtypes do it: str() of the NumPy scalar one way (shortest round-trip digits in the source type's
// precision, positional for 1e-4 <= |x| < 1e16, "1e+16" style otherwise), Python's int()/float()
// the other way (surrounding whitespace, a sign, underscores between digits; "nan", "inf").
#pragma once

#include <complex>
#include <cstdint>
#include <string>

#include "core/half.hpp"

namespace ca {

/// NumPy's str of a float value of precision `bits` (16, 32 or 64: the shortest digits that give the
/// value back in that type). `python_complex_part`: Python's complex repr of one part ("1" not "1.0").
std::string float_text(double v, int bits, bool python_complex_part = false);
/// NumPy's str of a complex value: "(1+2j)", "2j" for a zero (+0.0) real part, parts in `bits`.
std::string complex_text(std::complex<double> v, int bits);
std::string int_text(int64_t v);
std::string uint_text(uint64_t v);

/// Python's int() of the text (CA_EINVAL with Python's message when it is not an integer literal).
/// The value as 128 bits: beyond [-2**64, 2**64) is CA_EINVAL ("too large").
__int128 parse_int_text(const std::string &s);
/// Python's float() of the text (CA_EINVAL with Python's message when it is not a float literal).
double parse_float_text(const std::string &s);

}  // namespace ca
