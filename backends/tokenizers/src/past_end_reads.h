// Whether a fixed-size load may run past the end of a text: when the bytes it reads lie in one
// 4 KiB page, the smallest page of x86-64 and AArch64, the load cannot fault, since memory is
// mapped a page at a time. The hot loops load whole blocks (16, 64 bytes) and mask off what lies
// past the text, so a short text is read where it is instead of copied into a padded buffer
// first: that copy's size varies text to text, and the branches inside memcpy on it were most of
// the mispredictions a short text cost (callgrind's branch simulation, see docs/TOKENIZERS.md).
// AddressSanitizer reports such loads (it checks bytes, not pages), so under it the copy is taken.
#pragma once

#include <cstddef>
#include <cstdint>

namespace triton_studio::tok {

#if defined(__SANITIZE_ADDRESS__)
#define TS_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_ADDRESS_SANITIZER 1
#endif
#endif

// Whether the `size` bytes at p lie in one 4 KiB page (size <= 4096), so can be loaded when p
// points at a byte of a text: not at its end, which may be the next page's start.
inline bool InOnePage(const void* p, size_t size) {
#if defined(TS_ADDRESS_SANITIZER)
  (void)p, (void)size;
  return false;
#else
  return (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - size;
#endif
}

}  // namespace triton_studio::tok
