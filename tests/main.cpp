#include "tests/catch_runner.hpp"

int main(int argc, char** argv) { return acmesim::testing::run_catch_session(argc, argv); }
