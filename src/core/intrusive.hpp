// IntrusivePtr: the one owning pointer to a reference-counted object whose count lives inside the
// object (blocks, kernels). The object's type says how to count through a traits struct with two
// noexcept functions, retain(const T *) and release(const T *); release destroys the object when its
// count reaches zero. Both accept null.
//
// Adopting a raw pointer (the explicit constructor) takes over one reference the caller already
// holds; copying retains, moving and release() do not touch the count.
#pragma once

#include <cstddef>
#include <utility>

namespace ca {

template <class T, class Traits>
class IntrusivePtr {
 public:
  IntrusivePtr() noexcept = default;
  IntrusivePtr(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)
  explicit IntrusivePtr(T *adopt) noexcept : p_(adopt) {}
  IntrusivePtr(const IntrusivePtr &o) noexcept : p_(o.p_) { Traits::retain(p_); }
  IntrusivePtr(IntrusivePtr &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  IntrusivePtr &operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~IntrusivePtr() { Traits::release(p_); }

  /// A new owner of `p` (its count goes up by one).
  static IntrusivePtr share(T *p) noexcept {
    Traits::retain(p);
    return IntrusivePtr(p);
  }

  T *get() const noexcept { return p_; }
  T *operator->() const noexcept { return p_; }
  T &operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }

  /// Give up ownership without releasing: the caller now holds the reference.
  T *release() noexcept {
    T *p = p_;
    p_ = nullptr;
    return p;
  }
  /// Drop the current reference (if any) and adopt `adopt`.
  void reset(T *adopt = nullptr) noexcept { IntrusivePtr(adopt).swap(*this); }
  void swap(IntrusivePtr &o) noexcept { std::swap(p_, o.p_); }

  /// The object's `data` member cast to U* (blocks: the element buffer).
  template <class U>
  U *data() const noexcept
    requires requires(T *t) { t->data; }
  {
    return static_cast<U *>(p_->data);
  }

  friend bool operator==(const IntrusivePtr &a, const IntrusivePtr &b) noexcept { return a.p_ == b.p_; }
  friend bool operator==(const IntrusivePtr &a, std::nullptr_t) noexcept { return a.p_ == nullptr; }

 private:
  T *p_ = nullptr;
};

}  // namespace ca
