#include "tests/support.hpp"

#include <boost/iostreams/device/back_inserter.hpp>

#include "io/gzip_filter.hpp"

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
