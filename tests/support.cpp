#include "tests/support.hpp"

// g++ 12 reports a false -Wrestrict inside Boost's gzip compressor (GCC bug 105329); clang has
// no such warning, and would warn of the unknown name.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>

namespace acmesim::testing {

std::string gzip(std::string_view text) {
  std::string compressed;
  boost::iostreams::filtering_ostream out;
  out.push(boost::iostreams::gzip_compressor());
  out.push(boost::iostreams::back_inserter(compressed));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.reset();  // flushes and finishes the gzip stream
  return compressed;
}

}  // namespace acmesim::testing
