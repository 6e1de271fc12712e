#pragma once
/// io-internal: the one CSV reader of acmesim (traces, failures files, policies' tables), plain
/// or gzip-compressed (detected by content, not by name).
///
/// The dialect is AcmeTrace's: cells separated by ',', a cell may be quoted with '"' (a quote
/// inside doubled), blanks (' ', '\t', '\r') around a cell are trimmed before unquoting, lines
/// end with '\n' or "\r\n", the last one may lack it, and a UTF-8 byte order mark is skipped.
///
/// Cost: one pass over the bytes. A line's cells are views into the reader's own buffer (one
/// 1 MiB block plus the longest line; smaller blocks for a file smaller than a block), so a row
/// costs no allocation; unquoting rewrites the cell in place. A gzip file of 1 MiB or more is
/// inflated by zlib on a second thread, a few blocks ahead of the parser, so inflating overlaps
/// with parsing; a smaller one is inflated in place. A reader may read a part of a plain file
/// (CsvReader::Part, cut at a line start by next_line_start()), so that several threads parse
/// one file at once. Why not a CSV package: docs/design.md.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace acmesim::csv {

/// Where a reader's bytes come from (a file, an inflater, memory). Throws InputError on a read
/// error or damaged data.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Up to `capacity` bytes into `into`; 0 only at the end.
  virtual std::size_t read(char* into, std::size_t capacity) = 0;
};

class CsvReader {
 public:
  /// What is wrong with a line, if anything: the reader splits it as far as it can.
  enum class LineProblem : std::uint8_t { None, UnclosedQuote, NulByte };
  /// Whether blank lines (nothing but blanks) are rows of one empty cell or skipped.
  enum class BlankLines : std::uint8_t { AreRows, Skip };

  /// Opens `path`. InputError if it is a folder ("expected a `what` ..."), cannot be opened
  /// ("cannot open the `what`", with the system's reason), or (while reading) its gzip data is
  /// damaged or cut short.
  CsvReader(const std::string& path, std::string_view what, BlankLines blank = BlankLines::AreRows);
  /// Reads the lines of a regular, uncompressed file from byte `begin` (a line's start, as
  /// next_line_start() finds) to byte `end`: a part of a file that several readers parse at once.
  /// Its line() counts from the part's first line (1); a byte order mark is skipped only at 0.
  struct Part {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
  };
  CsvReader(const std::string& path, std::string_view what, Part part, BlankLines blank = BlankLines::AreRows);
  /// Reads `text` held in memory (copied); `name` is used in messages.
  struct InMemory {};
  CsvReader(InMemory, std::string name, std::string_view text, BlankLines blank = BlankLines::AreRows);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  /// Splits the next line into cells; false at the end of the data.
  bool next_line();
  /// The cells of the current line; valid until the next call of next_line().
  std::span<const std::string_view> cells() const { return cells_; }
  /// 1-based line number of the current line in the file (blank lines counted).
  unsigned line() const { return line_; }
  LineProblem problem() const { return problem_; }
  const std::string& name() const { return name_; }
  /// What the reader found when it opened the file: a regular file can be read again (a pipe
  /// cannot), and one of 1 MiB or more is large enough that work beside the parse is worth a
  /// thread (the reader's own: inflating gzip ahead of it). Both false for text in memory.
  bool rereadable() const { return rereadable_; }
  bool large_file() const { return large_file_; }
  /// Whether the file is gzip data; its size in bytes as stored (0 for a pipe or text in memory).
  bool compressed() const { return compressed_; }
  std::uint64_t file_bytes() const { return file_bytes_; }

  /// Reads what is left of compressed data, to the end, and throws its damage if it is damaged.
  /// Called before reporting a bad row: damaged gzip data inflates to garbage rows before its
  /// checksum shows the damage, and the damage is the error to report.
  void check_rest_intact();

  /// The longest line read: a longer one is an InputError (a CSV of acmesim never has one, and
  /// a bound keeps a broken file from taking all memory).
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

 private:
  bool fill();  // reads more bytes behind the unread ones; false at the end of the data
  void split(char* begin, char* end);

  std::string name_;
  std::unique_ptr<ByteSource> source_;
  BlankLines blank_;
  std::vector<char> buffer_;
  std::size_t block_ = 0;  // bytes read at a time: 1 MiB, less for a small file
  char* data_ = nullptr;   // the bytes: buffer_ (from a source) or the caller's text
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool exhausted_ = false;
  bool compressed_ = false;
  bool rereadable_ = false;
  bool large_file_ = false;
  std::uint64_t file_bytes_ = 0;
  bool started_ = false;
  unsigned line_ = 0;
  LineProblem problem_ = LineProblem::None;
  std::vector<std::string_view> cells_;
  std::string text_copy_;  // in-memory text, copied so cells can be unquoted in place
};

/// The offset of the first line that starts at or after byte `from` of the regular file `path`
/// (`from` itself if the byte before it is a '\n'), or the file's size if none does: where a
/// file may be cut into parts that CsvReader::Part reads. InputError if it cannot be read.
std::uint64_t next_line_start(const std::string& path, std::uint64_t from);

/// Where each wanted column is in a header: its cell index, or -1 if absent. Header cells that
/// no wanted name matches are ignored (extra columns are allowed).
struct HeaderMap {
  std::vector<int> index;  // per wanted name
  std::size_t cells = 0;   // cells in the header
  std::string duplicated;  // a wanted name the header holds twice ("" if none)
  bool has(std::size_t wanted) const { return index[wanted] >= 0; }
};
HeaderMap map_header(std::span<const std::string_view> header, std::span<const std::string_view> wanted);

/// What is wrong with the shape of the current row against `header`, in a few words ("fewer",
/// "more", "a quote never closed", "a NUL byte"); empty if nothing is.
std::string_view shape_problem(const CsvReader& reader, const HeaderMap& header);

}  // namespace acmesim::csv
