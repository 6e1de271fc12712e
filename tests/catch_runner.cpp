// Catch2's implementation, compiled once for both test executables: it is the slowest file of
// the suite to compile. CATCH_CONFIG_RUNNER leaves main() to tests/main.cpp and to the MPI test.
#define CATCH_CONFIG_RUNNER
#include "tests/catch_runner.hpp"

#include <catch2/catch.hpp>

namespace acmesim::testing {

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }

}  // namespace acmesim::testing
