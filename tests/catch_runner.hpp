#pragma once

namespace acmesim::testing {

/// Runs the Catch2 session with the command line's arguments (tests/catch_runner.cpp holds
/// Catch2's implementation, compiled once for both test executables).
int run_catch_session(int argc, char** argv);

}  // namespace acmesim::testing
