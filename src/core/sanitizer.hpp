// Which sanitizer this translation unit is built with (GCC defines __SANITIZE_*__, clang has
// __has_feature). CA_ASAN / CA_TSAN are 0 or 1.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CA_ASAN 1
#endif
#endif
#ifndef CA_ASAN
#define CA_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define CA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CA_TSAN 1
#endif
#endif
#ifndef CA_TSAN
#define CA_TSAN 0
#endif
