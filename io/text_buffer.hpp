#pragma once
/// io-internal: the buffer large CSV outputs are formatted into (jobs.csv, timeline.csv,
/// generated traces). Numbers go through std::to_chars straight into the buffer: no format
/// string is parsed and no temporary string is made per cell. Appending is amortized O(1) per
/// byte; the buffer grows by doubling and is flushed by its owner in blocks of about 1 MiB.
#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace acmesim {

class TextBuffer {
 public:
  explicit TextBuffer(std::size_t capacity = std::size_t{1} << 21)
      : data_{std::make_unique_for_overwrite<char[]>(capacity)}, capacity_{capacity} {}

  const char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }

  void push_back(char c) {
    room(1);
    data_[size_++] = c;
  }
  void append(const char* begin, const char* end) {
    const auto n = static_cast<std::size_t>(end - begin);
    room(n);
    std::memcpy(data_.get() + size_, begin, n);
    size_ += n;
  }
  void append(std::string_view text) { append(text.data(), text.data() + text.size()); }

  template <std::integral T>
  void append_integer(T value) {
    room(24);
    size_ =
        static_cast<std::size_t>(std::to_chars(data_.get() + size_, data_.get() + size_ + 24, value).ptr - data_.get());
  }

  /// `value` with `decimals` digits after the point, correctly rounded (as printf's "%.Nf").
  void append_fixed(double value, int decimals) {
    room(352);  // the longest double in fixed notation with up to 16 decimals
    size_ = static_cast<std::size_t>(
        std::to_chars(data_.get() + size_, data_.get() + size_ + 352, value, std::chars_format::fixed, decimals).ptr -
        data_.get());
  }

  /// Milliseconds as seconds the way AcmeTrace writes them: a whole number when there is no
  /// fraction ("117"), else three decimals ("0.250"), by integer arithmetic.
  void append_seconds(std::int64_t ms) {
    if (ms % 1000 == 0) {
      append_integer(ms / 1000);
      return;
    }
    if (ms < 0) push_back('-');
    const std::uint64_t magnitude = ms < 0 ? 0 - static_cast<std::uint64_t>(ms) : static_cast<std::uint64_t>(ms);
    append_integer(magnitude / 1000);
    const auto frac = static_cast<unsigned>(magnitude % 1000);
    room(4);
    char* p = data_.get() + size_;
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    size_ += 4;
  }

  /// The same, but always with a point ("117.0", "0.250"), so a column that may hold fractions
  /// reads as floating point in every run, whether or not this run's values have any.
  void append_seconds_float(std::int64_t ms) {
    append_seconds(ms);
    if (ms % 1000 == 0) append(".0");
  }

  /// The shortest text that reads back as `value` ("1.5", "60").
  void append_shortest(float value) {
    room(32);
    size_ =
        static_cast<std::size_t>(std::to_chars(data_.get() + size_, data_.get() + size_ + 32, value).ptr - data_.get());
  }

 private:
  void room(std::size_t n) {
    if (size_ + n <= capacity_) return;
    std::size_t capacity = capacity_ * 2;
    while (capacity < size_ + n) capacity *= 2;
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> data_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

}  // namespace acmesim
