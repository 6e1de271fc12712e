#pragma once
#include <stdexcept>
#include <string>

namespace acmesim {

/// Bad input: a scenario, trace or command line the user can fix. The message names the
/// place (file:line[:col]), the field, what was expected and what was found. Exit code 2.
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A broken invariant while simulating: a bug in acmesim or in a policy, never the user's
/// input. The message ends with "-- at t=..., event #...". Exit code 3.
class SimulationError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace acmesim
