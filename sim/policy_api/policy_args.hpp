#pragma once
/// One policy's parameters: `scheduler: fifo` or `scheduler: {name: fifo, key: value, ...}` as a
/// small value tree that io builds (io/policy_yaml.hpp), so policies never see a file format.
/// Policies read their parameters where they use them, through typed getters that give the
/// type, default, valid range and a line of help; each getter records what it read, so the
/// loader rejects every key nobody read (a typo is an error, not a silently ignored setting,
/// [Design params]) and `acmesim policies --params` lists every parameter (describing()).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"
#include "sim/model/failure.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

struct ParamEntry;

/// A parameter value as written, before a policy gives it a type: a scalar's text, a list or a
/// map, with its place ("file:line:col", or "--set KEY") for messages.
struct ParamValue {
  enum class Kind { Null, Scalar, List, Map };
  Kind kind = Kind::Map;
  std::string text;  // Scalar
  std::string place;
  std::vector<ParamValue> items;    // List
  std::vector<ParamEntry> entries;  // Map, in file order

  /// The entry `key` of a map, or nullptr.
  const ParamValue* find(std::string_view key) const;
  /// Flow form for messages: `1.5`, `[1, 2]`, `{Pretrain: 0.9}`.
  std::string shown() const;
};

struct ParamEntry {
  std::string key;
  std::string key_place;
  ParamValue value;
};

/// A closed interval by default; `min_open`/`max_open` exclude an end. Range{} takes anything.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;

  // Finite numbers from `v` on (a duration or a rate of .inf would break the arithmetic).
  static Range at_least(double v) { return Range{v, std::numeric_limits<double>::infinity(), false, true}; }
  static Range above(double v) { return Range{v, std::numeric_limits<double>::infinity(), true, true}; }
  /// A duration in units of `unit_s` seconds, from `v` (above it if `open`) to ten years
  /// (kMaxSpan), so that it converts to milliseconds and adds to a time without overflow.
  static Range duration(double v, double unit_s, bool open = false) {
    return Range{v, to_seconds(kMaxSpan) / unit_s, open, false};
  }
  bool contains(double v) const;
  /// "in [0, 1]", ">= 0", "> 0", "in (0, 1)", or "" for any value.
  std::string text() const;
};

/// What `acmesim policies --params` prints of one parameter.
struct ParamInfo {
  std::string key;
  std::string type;      // "number", "whole number", "list of job types", ...
  std::string fallback;  // the default, as a user would write it
  std::string range;     // "in [0, 1]", "one of exact, factor, type_limit", ...
  std::string help;
  /// Whether `fallback` is a value the key can be set to ("60", "[Eval]"), or words saying what
  /// the policy does when the key is absent ("none", "none (required)").
  bool fallback_is_value = true;
};

/// A CSV file a policy reads (failures `replay`): rows of text cells with their line numbers.
struct Table {
  struct Row {
    std::size_t line = 0;
    std::vector<std::string> cells;  // one per requested column, "" where the file lacks it
  };
  std::string path;
  std::vector<std::string> columns;  // the requested columns
  std::vector<bool> present;         // whether the file's header has each of them
  std::vector<Row> rows;
};

/// Reads tables for policies; io implements it and injects it into PolicyArgs (policies do no
/// file I/O). Errors are InputErrors naming the file and line.
class TableReader {
 public:
  virtual ~TableReader() = default;
  /// `path` as written in the file `origin`: the reader resolves a relative path against that
  /// file's folder, or against the working directory when `origin` is empty (a path given on the
  /// command line, with --set).
  virtual Table read(const std::string& path, const std::string& origin,
                     const std::vector<std::string>& columns) const = 0;
};

class PolicyArgs {
 public:
  PolicyArgs() = default;
  /// `params` is the block's map, `where` "file:line:col" of the block, `seed` the scenario's.
  PolicyArgs(std::string slot, std::string name, ParamValue params, std::string where, std::uint64_t seed,
             std::shared_ptr<const TableReader> tables = nullptr)
      : slot_{std::move(slot)},
        name_{std::move(name)},
        params_{std::move(params)},
        where_{std::move(where)},
        seed_{seed},
        tables_{std::move(tables)} {}

  /// Just a name, no parameters (tests, `compare`).
  static PolicyArgs named(std::string slot, std::string name, std::uint64_t seed = 1) {
    return PolicyArgs{std::move(slot), std::move(name), ParamValue{}, "<built-in>", seed};
  }
  /// No parameters, and required ones (a file) are not asked for: the policy built from it only
  /// records its parameters (parameters()).
  static PolicyArgs describing(std::string slot, std::string name) {
    PolicyArgs args = named(std::move(slot), std::move(name));
    args.describing_ = true;
    return args;
  }

  const std::string& slot() const { return slot_; }
  const std::string& name() const { return name_; }
  const std::string& where() const { return where_; }
  std::uint64_t seed() const { return seed_; }

  // The getters: the value of `key`, or `fallback` if absent. A value of the wrong type or out of
  // `range` is an InputError naming the value's place.
  double number(const std::string& key, double fallback, Range range, std::string_view help) const;
  int whole(const std::string& key, int fallback, Range range, std::string_view help) const;
  bool flag(const std::string& key, bool fallback, std::string_view help) const;
  /// One of `allowed`.
  std::string word(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed,
                   std::string_view help) const;
  std::vector<double> numbers(const std::string& key, const std::vector<double>& fallback, Range range,
                              std::string_view help) const;
  std::vector<JobType> job_types(const std::string& key, const std::vector<JobType>& fallback,
                                 std::string_view help) const;
  /// A map of job type to a number (T = double) or a whole number (T = int), in file order;
  /// nullopt if absent (`fallback` says what the policy does then).
  template <class T>
  std::optional<std::vector<std::pair<JobType, T>>> per_job_type(const std::string& key, std::string_view fallback,
                                                                 Range range, std::string_view help) const;
  /// A map of failure reason to a number, in file order; nullopt if absent.
  std::optional<std::vector<std::pair<FailureReason, double>>> number_per_reason(const std::string& key,
                                                                                 std::string_view fallback, Range range,
                                                                                 std::string_view help) const;
  /// The CSV file named by the required parameter `key` (relative to the folder of the file that names it, or to the
  /// working directory when given with --set), read through the injected TableReader. Empty when describing().
  Table table(const std::string& key, const std::vector<std::string>& columns, std::string_view help) const;
  /// The file a table path was written in, which a relative path starts from; "" for one given
  /// with --set (the working directory).
  static std::string table_origin(const ParamValue& value);

  /// InputError for a value that passed its getter but breaks a rule between values (e.g.
  /// increasing thresholds): at the value's place (or the block's if absent).
  [[noreturn]] void invalid(const std::string& key, std::string_view expected) const;

  /// A random stream named after this slot and policy ("scheduler/fifo").
  Rng rng(std::string_view purpose = {}) const;
  /// InputError naming every key that was given but never read.
  void reject_unread() const;
  /// Every parameter read so far, in reading order.
  const std::vector<ParamInfo>& parameters() const { return read_; }
  /// The parameters as given (a map, in file order).
  const ParamValue& given() const { return params_; }

 private:
  /// Records `info` and returns the value of its key, or nullptr if absent (or describing).
  const ParamValue* read(ParamInfo info) const;
  std::string field(const std::string& key) const { return slot_ + "." + key; }
  [[noreturn]] void bad(const ParamValue& value, const std::string& field, std::string_view expected) const;
  template <class T>
  T scalar(const ParamValue& value, const std::string& field, Range range, std::string_view expected) const;
  template <class Key, class T, class Parse>
  std::optional<std::vector<std::pair<Key, T>>> keyed(const std::string& key, ParamInfo info, Parse parse,
                                                      std::string_view key_expected, Range range) const;

  std::string slot_;
  std::string name_;
  ParamValue params_;
  std::string where_;
  std::uint64_t seed_ = 1;
  std::shared_ptr<const TableReader> tables_;
  bool describing_ = false;
  mutable std::vector<ParamInfo> read_;
};

}  // namespace acmesim
