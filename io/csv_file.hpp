#pragma once
/// io-internal: the one way a CSV file is opened for fccp (libfccp), plain or gzip-compressed
/// (detected by content, not by name), for the trace reader and the failures reader.
#include <fmt/format.h>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
// fccp copies file names with strncpy into a fixed buffer; g++ 12 warns about that inside the
// package's header, not about our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "sim/core/error.hpp"

namespace acmesim::csv {

/// True if `path` starts with the gzip magic bytes.
inline bool is_gzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  return in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
         static_cast<unsigned char>(magic[1]) == 0x8b;
}

/// Opens `path` as a `Reader` (an io::CSVReader) and returns `read(reader)`. InputError if the
/// file cannot be opened ("cannot open the `what`") or its gzip data is damaged.
template <class Reader, class Read>
auto read_csv_file(const std::string& path, const std::string& what, Read&& read)
    -> decltype(read(std::declval<Reader&>())) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: expected a {} (CSV, plain or gzip), found a folder", path, what));
  }
  if (!std::ifstream(path, std::ios::binary)) {
    throw InputError(fmt::format("{}: cannot open the {} ({})", path, what, std::strerror(errno)));
  }
  try {
    if (is_gzip(path)) {
      std::ifstream file(path, std::ios::binary);
      boost::iostreams::filtering_istream in;
      in.push(boost::iostreams::gzip_decompressor());
      in.push(file);
      // A damaged stream must throw, not read as an early end of file: without badbit in the
      // mask, the filtering stream swallows the decompressor's gzip_error and the reader would
      // see a short (or empty) trace.
      in.exceptions(std::ios::badbit);
      Reader reader(path, in);
      return read(reader);
    }
    Reader reader(path);
    return read(reader);
  } catch (const boost::iostreams::gzip_error& e) {
    throw InputError(fmt::format("{}: the gzip data is damaged or cut short (zlib error {}); no row of it was used",
                                 path, e.error()));
  } catch (const std::ios::failure&) {
    throw InputError(fmt::format("{}: the gzip data is damaged or cut short; no row of it was used", path));
  }
}

}  // namespace acmesim::csv
