#pragma once
/// Dataset suite files (YAML) into an EvalSuite (sim/model/eval/suite.hpp has the format).
#include <string>

#include "sim/model/eval/suite.hpp"

namespace acmesim {

/// Loads a suite file. InputError with file:line:col on any bad or unknown key.
EvalSuite load_eval_suite(const std::string& path);
/// Same, from YAML text; `name` stands for the file in messages.
EvalSuite parse_eval_suite(const std::string& name, const std::string& yaml_text);

}  // namespace acmesim
