// Blosc's byte shuffle of one block (c-blosc 1.x's shuffle()/unshuffle(), the layout numcodecs'
// Blosc(shuffle=SHUFFLE) writes): a block of `n` bytes holds m = n / typesize items; shuffled, byte j of
// item i sits at j * m + i, and the n % typesize trailing bytes are copied as they are. The result is
// defined by that formula alone (c-blosc's SSE2/AVX2 and generic paths all produce it).
#pragma once

#include <cstddef>

namespace ca::io {

/// True when shuffle8 / unshuffle8 run the vector kernel (AVX-512 VBMI on this CPU); the codec uses
/// them only then (otherwise c-blosc shuffles, as before).
bool fast_shuffle8_available() noexcept;

/// Shuffle / unshuffle one block of `n` bytes of 8-byte items from `src` into `dst` (no overlap).
void shuffle8(unsigned char *dst, const unsigned char *src, size_t n) noexcept;
void unshuffle8(unsigned char *dst, const unsigned char *src, size_t n) noexcept;

/// The same by the formula, one byte at a time (the reference the tests compare against).
void shuffle_reference(unsigned char *dst, const unsigned char *src, size_t n, size_t typesize) noexcept;
void unshuffle_reference(unsigned char *dst, const unsigned char *src, size_t n, size_t typesize) noexcept;

}  // namespace ca::io
