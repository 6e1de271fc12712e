#pragma once
/// Policy blocks of YAML files into PolicyArgs: `scheduler: fifo` or `scheduler: {name: fifo,
/// key: value, ...}` becomes a parameter tree whose every value knows its place, with the CSV
/// table reader injected (policies do no file I/O and never see YAML).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/yaml.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim {

/// Where YAML was read: the file (for places and relative paths) and the keys that replaced
/// parts of it (`--set`, sweep axes: values under them are placed where the override was given).
struct YamlOrigin {
  std::string file;
  std::vector<yaml::Override> overridden;
};

/// A YAML value as a parameter tree; `path` is its dotted key ("scheduler"), to find overrides.
ParamValue param_value_from_yaml(const YAML::Node& node, const std::string& path, const YamlOrigin& origin);

/// The block of `slot` (absent: the policy `fallback_name` without parameters) into PolicyArgs.
PolicyArgs policy_args_from_yaml(const YAML::Node& block, const std::string& slot, const std::string& fallback_name,
                                 const YamlOrigin& origin, std::uint64_t seed);

/// The one place a policy block of a strictly read YAML file becomes PolicyArgs of `slot`:
/// `name` or {name: ..., params} (absent: `fallback`), every key checked to be a plain scalar;
/// the block's place is where messages and relative paths start.
PolicyArgs policy_block(const yaml::Node& block, const std::string& slot, const std::string& fallback,
                        std::uint64_t seed);

/// A policy block given as YAML text ("decoupled", "{name: decoupled, elastic: false}"); `where`
/// stands for its file in messages (e.g. "--policy").
PolicyArgs policy_from_text(const std::string& slot, const std::string& text, const std::string& where,
                            std::uint64_t seed = 1);

/// A policy's table path as written in the file `origin` (PolicyArgs::table_origin): relative to
/// that file's folder, or to the working directory when `origin` is empty.
std::string resolve_table_path(const std::string& written, const std::string& origin);

/// Reads CSV tables with io/csv_reader.hpp; every PolicyArgs built here gets it.
std::shared_ptr<const TableReader> csv_table_reader();

}  // namespace acmesim
