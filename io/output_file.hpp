#pragma once
/// io-internal: the one way acmesim writes a file, so that an output never lies. Every write is
/// checked; after the first failure (disk full, I/O error) the rest are skipped, and close()
/// flushes, closes and, if anything failed, removes the incomplete file and throws InputError
/// naming the file and the system's reason. A file never closed (an exception on the way) is
/// removed too: no truncated output is left looking complete.
#include <boost/iostreams/categories.hpp>
#include <cstdio>
#include <ios>
#include <string>
#include <string_view>

namespace acmesim {

class OutputFile {
 public:
  /// Opens `path` for writing ("wb"); InputError if it cannot.
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const char* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  /// Flushes and closes; InputError (and the file removed) if any write, the flush or the close failed.
  void close();

  /// A Boost.Iostreams sink into this file, for compressed output: it never fails a write itself
  /// (so a compressor never retries forever), the file remembers the failure for close().
  struct Sink {
    using char_type = char;
    using category = boost::iostreams::sink_tag;
    OutputFile* file;
    std::streamsize write(const char* data, std::streamsize size) {
      file->write(data, static_cast<std::size_t>(size));
      return size;
    }
  };
  Sink sink() { return Sink{this}; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  int error_ = 0;  // errno of the first failure
};

}  // namespace acmesim
