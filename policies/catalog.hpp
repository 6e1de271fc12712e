#pragma once
#include "sim/policy_api/catalog.hpp"

namespace acmesim {

/// Every built-in policy, by slot, with its one-line summary.
Catalog builtin_catalog();

}  // namespace acmesim
