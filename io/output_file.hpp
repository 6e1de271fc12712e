#pragma once
/// io-internal: the one way acmesim writes a file, so that an output never lies. A regular file is
/// written to a temporary file beside it (".NAME.partial"), and close() flushes it and renames it
/// into place: a run killed at any moment (even SIGKILL) leaves either the previous file or the
/// complete new one under the final name, never a truncated one. (No fsync: that would guard
/// against a power loss as well, at the cost of waiting for the disk on every run.) Every write is checked;
/// after the first failure (disk full, I/O error) the rest are skipped, and close() removes the
/// temporary file and throws InputError naming the file and the system's reason. A file never
/// closed (an exception on the way) is removed too. A path that is not a regular file (/dev/full,
/// /dev/stdout, a pipe) is written in place, with the same checks.
///
/// remove_partial_outputs() is for a signal handler (SIGINT, SIGTERM): it removes every temporary
/// file still open, so an interrupted run leaves nothing behind. To reach them from a handler,
/// the open temporary files are listed in one fixed table of the process (the only process-wide
/// state in acmesim: a signal handler can reach nothing else); registering and unregistering is
/// O(slots), 64 slots, once per file.
#include <boost/iostreams/categories.hpp>
#include <cstdio>
#include <ios>
#include <string>
#include <string_view>

namespace acmesim {

/// Unlinks every temporary file of an OutputFile not yet closed (and every file listed with
/// list_for_removal()). Async-signal-safe: it reads the table with lock-free atomics and calls
/// only unlink().
void remove_partial_outputs() noexcept;
/// Lists another file that remove_partial_outputs() unlinks (a previous output moved aside, see
/// PreviousOutputs): `path` must stay valid until unlist_for_removal(slot). -1 if the table is full.
int list_for_removal(const char* path) noexcept;
void unlist_for_removal(int slot) noexcept;
/// The hidden name beside `path` with `suffix`: DIR/.NAME.SUFFIX (".partial" for a file being
/// written, ".previous" for an output moved aside).
std::string hidden_beside(const std::string& path, std::string_view suffix);

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
  std::string written_;  // the temporary file, or path_ itself when it is not a regular file
  std::FILE* file_ = nullptr;
  int error_ = 0;  // errno of the first failure
  int slot_ = -1;  // where written_ is listed for remove_partial_outputs(), or -1
};

}  // namespace acmesim
