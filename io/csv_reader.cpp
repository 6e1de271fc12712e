#include "io/csv_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"

namespace acmesim::csv {

namespace {

constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kSmallestBlock = std::size_t{1} << 12;

/// The block a reader of a `file_bytes`-byte file reads at a time: 1 MiB, or less for a smaller
/// file, so that a small file costs kilobytes of buffers, not megabytes (a fuzzer opens one per
/// input). A gzip file's inflated data is larger than the file: its blocks stay larger too.
std::size_t block_for(std::size_t file_bytes, bool gzip) {
  const std::size_t want = gzip ? 8 * file_bytes : file_bytes + 1;
  return std::clamp(std::bit_ceil(std::max<std::size_t>(want, 1)), kSmallestBlock, kBlockBytes);
}

/// A file read with read(2) (or pread(2) for a part of it): no stdio or iostream buffer between
/// the kernel and the reader.
class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, int fd) : path_{std::move(path)}, fd_{fd} {}
  /// Bytes [begin, end) of a regular file.
  FileSource(std::string path, int fd, std::uint64_t begin, std::uint64_t end)
      : path_{std::move(path)}, fd_{fd}, part_{true}, at_{begin}, end_{end} {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::size_t read(char* into, std::size_t capacity) override {
    if (part_) capacity = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, end_ - at_));
    for (;;) {
      const ssize_t n = part_ ? ::pread(fd_, into, capacity, static_cast<off_t>(at_)) : ::read(fd_, into, capacity);
      if (n >= 0) {
        at_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) throw InputError(fmt::format("{}: cannot read the file ({})", path_, std::strerror(errno)));
    }
  }

 private:
  std::string path_;
  int fd_;
  bool part_ = false;
  std::uint64_t at_ = 0;
  std::uint64_t end_ = 0;
};

int open_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: expected a {} (CSV, plain or gzip), found a folder", path, what));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open the {} ({})", path, what, std::strerror(errno)));
  return fd;
}

/// gzip data (one member or several, as `cat a.gz b.gz` makes) inflated by zlib. A damaged or
/// cut stream is an InputError, never an early end: a shorter trace would be a silent lie.
class InflateSource final : public ByteSource {
 public:
  InflateSource(std::string path, std::unique_ptr<ByteSource> file, std::size_t block)
      : path_{std::move(path)}, file_{std::move(file)}, in_(block) {
    // 16 + MAX_WBITS: a gzip wrapper, not a raw or zlib stream.
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  }
  ~InflateSource() override { inflateEnd(&z_); }
  InflateSource(const InflateSource&) = delete;
  InflateSource& operator=(const InflateSource&) = delete;

  std::size_t read(char* into, std::size_t capacity) override {
    z_.next_out = reinterpret_cast<Bytef*>(into);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1U << 30));
    const uInt asked = z_.avail_out;
    while (z_.avail_out == asked) {
      if (z_.avail_in == 0 && !file_ended_) {
        const std::size_t n = file_->read(reinterpret_cast<char*>(in_.data()), in_.size());
        file_ended_ = n == 0;
        z_.next_in = in_.data();
        z_.avail_in = static_cast<uInt>(n);
      }
      if (z_.avail_in == 0 && file_ended_) {
        if (in_member_) damaged("it ends inside the compressed data");
        break;
      }
      in_member_ = true;
      const int status = inflate(&z_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        // Another member may follow; its header is checked when it is inflated.
        in_member_ = false;
        inflateReset(&z_);
      } else if (status == Z_BUF_ERROR && z_.avail_in == 0) {
        continue;  // needs more input
      } else if (status != Z_OK) {
        damaged(z_.msg != nullptr ? z_.msg : fmt::format("zlib error {}", status));
      }
    }
    return asked - z_.avail_out;
  }

 private:
  [[noreturn]] void damaged(const std::string& why) const {
    throw InputError(fmt::format("{}: the gzip data is damaged or cut short ({}); no row of it was used", path_, why));
  }

  std::string path_;
  std::unique_ptr<ByteSource> file_;
  std::vector<Bytef> in_;
  z_stream z_{};
  bool file_ended_ = false;
  bool in_member_ = false;
};

/// Reads `inner` on a thread of its own, up to kBlocks blocks ahead of the consumer, so that
/// inflating overlaps with parsing. An exception of `inner` is rethrown by read().
class PrefetchSource final : public ByteSource {
 public:
  PrefetchSource(std::unique_ptr<ByteSource> inner, std::size_t block) : inner_{std::move(inner)}, block_{block} {
    for (std::size_t i = 0; i < kBlocks; ++i) free_.emplace_back(block_);
    thread_ = std::thread([this] { produce(); });
  }
  ~PrefetchSource() override {
    {
      const std::lock_guard lock{mutex_};
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  PrefetchSource(const PrefetchSource&) = delete;
  PrefetchSource& operator=(const PrefetchSource&) = delete;

  std::size_t read(char* into, std::size_t capacity) override {
    if (taken_ == current_.size()) {
      std::unique_lock lock{mutex_};
      if (current_.capacity() > 0) {
        current_.resize(block_);
        free_.push_back(std::move(current_));
        current_.clear();
        taken_ = 0;
        changed_.notify_all();
      }
      changed_.wait(lock, [this] { return !full_.empty() || ended_; });
      if (full_.empty()) {
        if (error_) std::rethrow_exception(error_);
        return 0;
      }
      current_ = std::move(full_.front());
      full_.pop_front();
      taken_ = 0;
    }
    const std::size_t n = std::min(capacity, current_.size() - taken_);
    std::memcpy(into, current_.data() + taken_, n);
    taken_ += n;
    return n;
  }

 private:
  static constexpr std::size_t kBlocks = 4;

  void produce() {
    try {
      for (;;) {
        std::vector<char> block;
        {
          std::unique_lock lock{mutex_};
          changed_.wait(lock, [this] { return !free_.empty() || stop_; });
          if (stop_) return;
          block = std::move(free_.back());
          free_.pop_back();
        }
        const std::size_t n = inner_->read(block.data(), block.size());
        block.resize(n);
        const std::lock_guard lock{mutex_};
        if (n == 0) {
          ended_ = true;
        } else {
          full_.push_back(std::move(block));
        }
        changed_.notify_all();
        if (n == 0) return;
      }
    } catch (...) {
      const std::lock_guard lock{mutex_};
      error_ = std::current_exception();
      ended_ = true;
      changed_.notify_all();
    }
  }

  std::unique_ptr<ByteSource> inner_;
  std::size_t block_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<char>> full_;
  std::vector<std::vector<char>> free_;
  bool ended_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<char> current_;
  std::size_t taken_ = 0;
  std::thread thread_;
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

CsvReader::CsvReader(const std::string& path, std::string_view what, BlankLines blank) : name_{path}, blank_{blank} {
  const int fd = open_file(path, what);
  auto file = std::make_unique<FileSource>(path, fd);
  // The gzip magic, read in place; a pipe (no pread) is read as plain text.
  unsigned char magic[2] = {};
  const bool gzip = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  compressed_ = gzip;
  struct stat status {};
  const bool regular = ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
  rereadable_ = regular;
  file_bytes_ = regular ? static_cast<std::uint64_t>(status.st_size) : 0;
  large_file_ = regular && static_cast<std::size_t>(status.st_size) >= kBlockBytes;
  block_ = regular ? block_for(static_cast<std::size_t>(status.st_size), gzip) : kBlockBytes;
  if (gzip) {
    auto inflate = std::make_unique<InflateSource>(path, std::move(file), block_);
    // A second thread pays only when there is much to inflate: a small file (a fuzzer's input, a
    // test's trace) is inflated in place, without starting and joining a thread.
    if (!regular || large_file_) {
      source_ = std::make_unique<PrefetchSource>(std::move(inflate), block_);
    } else {
      source_ = std::move(inflate);
    }
  } else {
    source_ = std::move(file);
  }
  buffer_.resize(2 * block_);
  data_ = buffer_.data();
}

CsvReader::CsvReader(const std::string& path, std::string_view what, Part part, BlankLines blank)
    : name_{path}, blank_{blank}, started_{part.begin > 0} {
  const int fd = open_file(path, what);
  source_ = std::make_unique<FileSource>(path, fd, part.begin, std::max(part.begin, part.end));
  rereadable_ = true;
  block_ = block_for(static_cast<std::size_t>(part.end - std::min(part.begin, part.end)), false);
  buffer_.resize(2 * block_);
  data_ = buffer_.data();
}

std::uint64_t next_line_start(const std::string& path, std::uint64_t from) {
  const int fd = open_file(path, "file");
  struct stat status {};
  const std::uint64_t size = ::fstat(fd, &status) == 0 ? static_cast<std::uint64_t>(status.st_size) : 0;
  if (from == 0 || from >= size) {
    ::close(fd);
    return std::min(from, size);
  }
  // The byte before `from` decides whether a line starts at `from`.
  FileSource rest{path, fd, from - 1, size};
  std::vector<char> block(std::size_t{1} << 16);
  std::uint64_t at = from - 1;
  while (const std::size_t n = rest.read(block.data(), block.size())) {
    if (const void* newline = std::memchr(block.data(), '\n', n)) {
      return at + static_cast<std::uint64_t>(static_cast<const char*>(newline) - block.data()) + 1;
    }
    at += n;
  }
  return size;
}

CsvReader::CsvReader(InMemory, std::string name, std::string_view text, BlankLines blank)
    : name_{std::move(name)}, blank_{blank}, text_copy_{text} {
  data_ = text_copy_.data();
  end_ = text_copy_.size();
  exhausted_ = true;
}

CsvReader::~CsvReader() = default;

bool CsvReader::fill() {
  if (exhausted_) return false;
  // Keep the unread bytes (a partial line) at the front, and room for at least a block behind.
  const std::size_t unread = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, unread);
    begin_ = 0;
    end_ = unread;
  }
  if (buffer_.size() - end_ < block_) buffer_.resize(std::max(2 * buffer_.size(), end_ + block_));
  data_ = buffer_.data();
  const std::size_t n = source_->read(data_ + end_, buffer_.size() - end_);
  end_ += n;
  exhausted_ = n == 0;
  return n > 0;
}

void CsvReader::check_rest_intact() {
  if (!compressed_ || exhausted_) return;
  while (source_->read(buffer_.data(), buffer_.size()) > 0) {
  }
  exhausted_ = true;
  begin_ = end_ = 0;
}

bool CsvReader::next_line() {
  std::size_t scanned = 0;  // bytes after begin_ known to hold no '\n'
  for (;;) {
    char* const start = data_ + begin_;
    char* const newline = static_cast<char*>(std::memchr(start + scanned, '\n', end_ - begin_ - scanned));
    if (newline == nullptr && !exhausted_) {
      scanned = end_ - begin_;
      if (scanned > kMaxLineBytes) {
        throw InputError(fmt::format("{}:{}: a line longer than {} MiB; no table acmesim reads has one", name_,
                                     line_ + 1, kMaxLineBytes >> 20));
      }
      fill();
      continue;
    }
    if (newline == nullptr && begin_ == end_) return false;
    char* const stop = newline != nullptr ? newline : data_ + end_;
    begin_ = static_cast<std::size_t>(stop - data_) + (newline != nullptr ? 1 : 0);
    scanned = 0;
    ++line_;
    if (static_cast<std::size_t>(stop - start) > kMaxLineBytes) {
      throw InputError(fmt::format("{}:{}: a line longer than {} MiB; no table acmesim reads has one", name_, line_,
                                   kMaxLineBytes >> 20));
    }
    char* first = start;
    if (!started_) {
      started_ = true;
      if (stop - first >= 3 && std::memcmp(first, "\xEF\xBB\xBF", 3) == 0) first += 3;
    }
    if (blank_ == BlankLines::Skip && std::all_of(first, stop, is_blank)) continue;
    split(first, stop);
    return true;
  }
}

void CsvReader::split(char* begin, char* end) {
  cells_.clear();
  problem_ = LineProblem::None;
  const auto push = [this](char* b, char* e) {
    while (b != e && is_blank(*b)) ++b;
    while (e != b && is_blank(e[-1])) --e;
    if (e - b >= 2 && *b == '"' && e[-1] == '"') {
      // Unquote in place: drop the outer quotes, a doubled quote stands for one.
      ++b;
      --e;
      char* out = b;
      for (char* in = b; in != e; ++in) {
        if (*in == '"' && in + 1 != e && in[1] == '"') ++in;
        *out++ = *in;
      }
      e = out;
    }
    cells_.emplace_back(b, static_cast<std::size_t>(e - b));
  };
  bool quoted = false;
  char* cell = begin;
  for (char* p = begin; p != end; ++p) {
    const char c = *p;
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',') {
      if (!quoted) {
        push(cell, p);
        cell = p + 1;
      }
    } else if (c == '\0' && problem_ == LineProblem::None) {
      problem_ = LineProblem::NulByte;
    }
  }
  if (quoted && problem_ == LineProblem::None) problem_ = LineProblem::UnclosedQuote;
  push(cell, end);
}

HeaderMap map_header(std::span<const std::string_view> header, std::span<const std::string_view> wanted) {
  HeaderMap map;
  map.index.assign(wanted.size(), -1);
  map.cells = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    for (std::size_t w = 0; w < wanted.size(); ++w) {
      if (header[i] != wanted[w]) continue;
      if (map.index[w] >= 0 && map.duplicated.empty()) map.duplicated = std::string(wanted[w]);
      map.index[w] = static_cast<int>(i);
      break;
    }
  }
  return map;
}

std::string_view shape_problem(const CsvReader& reader, const HeaderMap& header) {
  switch (reader.problem()) {
    case CsvReader::LineProblem::UnclosedQuote:
      return "a quote never closed";
    case CsvReader::LineProblem::NulByte:
      return "a NUL byte";
    case CsvReader::LineProblem::None:
      break;
  }
  if (reader.cells().size() < header.cells) return "fewer";
  if (reader.cells().size() > header.cells) return "more";
  return {};
}

}  // namespace acmesim::csv
