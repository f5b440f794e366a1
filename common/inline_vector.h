// A vector of trivially copyable values that keeps its first N in itself and
// goes to the heap only beyond them: for the many short lists that one
// item each of a large set holds (a code-block's codeword pieces and
// segment lengths, one or two in nearly every stream), so that filling the
// set costs no allocation per item. Contiguous: a std::span views it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace mallat {

template <typename T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>);
  static_assert(N > 0);

 public:
  InlineVector() = default;
  InlineVector(const InlineVector& other) { append(other.data(), other.size()); }
  InlineVector(InlineVector&& other) noexcept { take(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) {
      clear();
      append(other.data(), other.size());
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      heap_.reset();
      capacity_ = N;
      take(other);
    }
    return *this;
  }
  ~InlineVector() = default;

  T* data() { return heap_ ? heap_.get() : inline_; }
  const T* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void push_back(const T& value) {
    if (size_ == capacity_) grow(size_ + 1);
    data()[size_++] = value;
  }
  // As std::vector's: new elements are `value`.
  void resize(size_t n, const T& value = T{}) {
    if (n > capacity_) grow(n);
    std::fill(data() + std::min<size_t>(n, size_), data() + n, value);
    size_ = static_cast<uint32_t>(n);
  }

 private:
  void append(const T* values, size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    std::copy_n(values, n, data() + size_);
    size_ += static_cast<uint32_t>(n);
  }
  void grow(size_t at_least) {
    const size_t capacity = std::max<size_t>(at_least, size_t{2} * capacity_);
    std::unique_ptr<T[]> bigger(new T[capacity]);
    std::copy_n(data(), size_, bigger.get());
    heap_ = std::move(bigger);
    capacity_ = static_cast<uint32_t>(capacity);
  }
  // Leaves `other` empty.
  void take(InlineVector& other) {
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
    } else {
      std::copy_n(other.inline_, other.size_, inline_);
    }
    size_ = other.size_;
    other.size_ = 0;
    other.capacity_ = N;
  }

  T inline_[N]{};
  std::unique_ptr<T[]> heap_;
  // 32 bits: the item stays small (a list of 2^32 is not what this is for).
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

}  // namespace mallat
