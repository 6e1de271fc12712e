// libFuzzer target: the AcmeTrace reader, both schemas (detected from the header), plain or gzip
// (detected from the bytes), strict and with --skip-bad-rows.
#include "io/acme_trace.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = acmesim::fuzz::as_file(acmesim::fuzz::view(data, size), ".csv");
  try {
    acmesim::read_acme_trace(path);
  } catch (const acmesim::InputError&) {
    try {
      acmesim::read_acme_trace(path, acmesim::TraceReadOptions{true});
    } catch (const acmesim::InputError&) {
    }
  }
  return 0;
}
