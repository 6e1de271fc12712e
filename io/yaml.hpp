#pragma once
/// The one strict YAML reader behind every YAML file acmesim reads (scenarios, dataset suites,
/// workload profiles, stats references, eval-cluster files).
///
/// A yaml::Node knows its file and its field (the dotted key path, e.g. "cluster.nodes"), so
/// every error it raises is input_error(place, field, expected, found): file:line:column of the
/// node, the field, what was expected and the text found. Keys must be plain scalars, unknown
/// keys name the valid ones, and no yaml-cpp exception leaves this reader: a loader that only
/// calls yaml::Node (and guard() around what it hands to yaml-cpp directly) throws InputError
/// and nothing else.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/time.hpp"

namespace acmesim::yaml {

/// An optional inclusive range for a number: `{.min = 1}`, `{.min = 0, .max = 1}`.
template <class T>
struct Range {
  std::optional<T> min = std::nullopt;
  std::optional<T> max = std::nullopt;
};

/// A duration setting, in seconds or hours: from `min` to ten years (kMaxSpan), so that it
/// converts to milliseconds and adds to a time without overflow.
inline Range<double> seconds_range(double min = 0) { return {min, to_seconds(kMaxSpan)}; }
inline Range<double> hours_range(double min = 0) { return {min, to_seconds(kMaxSpan) / 3600}; }

struct Entry;

/// A key whose value was replaced from outside the document: `--set KEY=VALUE` on the command
/// line, or an axis of a sweep file. Values under it are reported at `place` ("--set KEY", or the
/// sweep file's file:line:column), and a relative path under it is relative to `base_dir`.
struct Override {
  std::string key;  // dotted, "cluster.nodes"
  std::string place;
  std::string base_dir;
};

class Node {
 public:
  /// The root of a document. `file` names it in messages and is the base of relative paths;
  /// `what` names the whole document ("scenario"); keys in `overridden` and everything below
  /// them are placed where the override was given instead of at file:line:col.
  Node(std::string file, YAML::Node root, std::string what, std::vector<Override> overridden = {});

  /// False for a key that is absent.
  explicit operator bool() const { return node_.IsDefined(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return node_.IsNull(); }
  std::size_t size() const { return node_.size(); }

  const std::string& file() const { return source_->file; }
  /// The keys replaced in this document from outside it.
  const std::vector<Override>& overridden() const { return source_->overridden; }
  /// file:line:column of the node, the override's place for an overridden key, the file if unknown.
  std::string place() const;
  /// The dotted key path ("cluster.nodes"), or the document's name at the root.
  const std::string& field() const { return field_.empty() ? source_->what : field_; }
  /// The same node under another name in messages ("dataset 'mmlu'"); its children follow it.
  Node named(std::string field) const;

  /// The value of `key` (absent if there is none). InputError unless this is a mapping (or absent).
  Node operator[](const std::string& key) const;
  bool has(const std::string& key) const { return static_cast<bool>((*this)[key]); }
  /// InputError unless this is a mapping whose keys are all plain scalars from `valid`; the
  /// message names the valid ones.
  void only_keys(const std::vector<std::string>& valid) const;
  /// The value of `key`; InputError at this mapping's place if it is absent.
  Node required(const std::string& key, std::string_view expected) const;

  /// The items of a list (fields "key[0]", "key[1]", ...); InputError naming `expected` if this
  /// is not a list.
  std::vector<Node> items(std::string_view expected) const;
  /// The entries of a mapping in file order, keys checked to be plain scalars.
  std::vector<Entry> entries(std::string_view expected) const;

  /// The value as T: bool, a whole number, a finite double or a string; InputError naming the
  /// type and `range` if it is anything else.
  template <class T>
  T as(const Range<T>& range = {}) const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!node_.IsScalar()) fail(expected<T>(range));  // yaml-cpp reads a null value as "null"
    }
    T value{};
    try {
      value = node_.as<T>();
    } catch (const YAML::Exception&) {
      fail(expected<T>(range));
    }
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      // yaml-cpp reads "-1" as an unsigned number by wrapping it around.
      if (node_.Scalar().rfind('-', 0) == 0) fail(expected<T>(range));
    }
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // !(a >= b) rather than a < b: NaN is out of every range.
      const bool out = (range.min && !(value >= *range.min)) || (range.max && !(value <= *range.max));
      if constexpr (std::is_floating_point_v<T>) {
        if (out || !std::isfinite(value)) fail(expected<T>(range));
      } else {
        if (out) fail(expected<T>(range));
      }
    }
    return value;
  }
  /// The value of `key` as T, or `fallback` if the key is absent.
  template <class T>
  T get(const std::string& key, T fallback, const Range<T>& range = {}) const {
    const Node value = (*this)[key];
    return value ? value.as<T>(range) : fallback;
  }
  /// The value of a key that must be there.
  template <class T>
  T need(const std::string& key, const Range<T>& range = {}) const {
    return required(key, expected<T>(range)).template as<T>(range);
  }
  /// A non-empty path, resolved unless absolute against `base_dir`, by default the override's
  /// base folder for an overridden key and the folder of the file otherwise.
  std::string as_path(std::string_view expected, const std::optional<std::string>& base_dir = std::nullopt) const;

  /// InputError at this node: "PLACE: FIELD: expected EXPECTED, found 'THE NODE AS YAML'".
  [[noreturn]] void fail(std::string_view expected) const;
  /// The node as YAML text (what error messages show as found).
  std::string dump() const;
  /// The yaml-cpp node, for values handed on as YAML (policy parameters).
  const YAML::Node& raw() const { return node_; }

  /// How a type and range read in messages: "a whole number >= 1", "a number in [0, 1]".
  template <class T>
  static std::string expected(const Range<T>& range = {}) {
    std::string kind;
    if constexpr (std::is_same_v<T, bool>)
      kind = "true or false";
    else if constexpr (std::is_integral_v<T>)
      kind = "a whole number";
    else if constexpr (std::is_floating_point_v<T>)
      kind = "a number";
    else
      kind = "a string";
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (range.min && range.max) return fmt::format("{} in [{}, {}]", kind, *range.min, *range.max);
      if (range.min) return fmt::format("{} >= {}", kind, *range.min);
      if (range.max) return fmt::format("{} <= {}", kind, *range.max);
    }
    return kind;
  }

 private:
  struct Source {
    std::string file;
    std::string what;
    std::vector<Override> overridden;
  };
  Node(std::shared_ptr<const Source> source, YAML::Node node, std::string field, std::string key_path)
      : source_{std::move(source)}, node_{std::move(node)}, field_{std::move(field)}, key_path_{std::move(key_path)} {}
  Node child(YAML::Node node, const std::string& key) const;

  std::shared_ptr<const Source> source_;
  YAML::Node node_;
  std::string field_;     // for messages; empty at the root
  std::string key_path_;  // the real dotted path, for --set places
};

/// One `key: value` of a mapping.
struct Entry {
  Node key;    // the key itself (a plain scalar), for its place and typed keys (`{128: 49.7}`)
  Node value;  // field "parent.key"
  const std::string& name() const { return key.raw().Scalar(); }
};

/// The override `key_path` is, or lies under ("KEY.x", "KEY[0]"): where a replaced value is
/// reported and its relative paths start. nullptr if it was not overridden.
const Override* override_of(const std::vector<Override>& overridden, const std::string& key_path);

/// Parses YAML text: a document that is not YAML is an InputError at its file:line:column.
/// An empty document is a null node.
Node parse_text(const std::string& file, const std::string& text, const std::string& what,
                const std::vector<Override>& overridden = {});
/// Reads and parses `path`; InputError "cannot open" naming `what` if it cannot be read.
Node parse_file(const std::string& path, const std::string& what);
/// The whole text of `path`; InputError naming `what` ("scenario") if it cannot be read.
std::string read_file(const std::string& path, const std::string& what);
/// Only the parsing step, for a loader that edits the tree before reading it (scenario --set).
YAML::Node load(const std::string& file, const std::string& text);

/// Sets the dotted `key` of the mapping `root` to the YAML text `value` (parsed, errors placed at
/// `place`), creating maps on the way. A scalar on the way (a policy slot's `scheduler: fifo`)
/// becomes {name: fifo} when a key is set under it. What `--set` and sweep axes do.
void set_key(YAML::Node root, const std::string& key, const std::string& value, const std::string& place);

/// Runs `read` and turns any yaml-cpp exception it lets out into an InputError at `file`, so a
/// loader never throws anything but InputError whatever yaml-cpp does inside it.
template <class Read>
auto guard(const std::string& file, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    throw input_error(e.mark.is_null() ? file : place(file, e.mark.line + 1, e.mark.column + 1), "YAML",
                      "a document acmesim can read", e.msg);
  }
}

}  // namespace acmesim::yaml
