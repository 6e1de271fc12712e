#include "sim/policy_api/policy_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace acmesim {

namespace {

// Text to values exactly as yaml-cpp 0.7's convert<T>::decode did, so that no configured value
// changes by one bit: a stream extraction with automatic base (0x10, 010 for whole numbers)
// that must consume everything but trailing blanks, then YAML's .inf/.nan spellings.
template <class T>
std::optional<T> yaml_number(const std::string& input) {
  std::stringstream stream(input);
  stream.unsetf(std::ios::dec);
  T value{};
  if ((stream >> std::noskipws >> value) && (stream >> std::ws).eof()) return value;
  if constexpr (std::is_floating_point_v<T>) {
    if (input == ".inf" || input == ".Inf" || input == ".INF" || input == "+.inf" || input == "+.Inf" ||
        input == "+.INF") {
      return std::numeric_limits<T>::infinity();
    }
    if (input == "-.inf" || input == "-.Inf" || input == "-.INF") return -std::numeric_limits<T>::infinity();
    if (input == ".nan" || input == ".NaN" || input == ".NAN") return std::numeric_limits<T>::quiet_NaN();
  }
  return std::nullopt;
}

// yaml-cpp's convert<bool>: y/yes/true/on and n/no/false/off in lower, upper or capitalised case.
std::optional<bool> yaml_bool(const std::string& input) {
  const auto all = [](std::string_view s, char from, char to) {
    return std::all_of(s.begin(), s.end(), [&](char c) { return c >= from && c <= to; });
  };
  const std::string_view rest = input.empty() ? std::string_view{} : std::string_view(input).substr(1);
  const bool flexible_case = input.empty() || all(input, 'a', 'z') ||
                             (all(input.substr(0, 1), 'A', 'Z') && (all(rest, 'a', 'z') || all(rest, 'A', 'Z')));
  if (!flexible_case) return std::nullopt;
  std::string lower;
  for (const char c : input) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [yes, no] : {std::pair{"y", "n"}, {"yes", "no"}, {"true", "false"}, {"on", "off"}}) {
    if (lower == yes) return true;
    if (lower == no) return false;
  }
  return std::nullopt;
}

std::string job_type_names() {
  std::vector<std::string_view> names;
  for (const JobType t : kJobTypes) names.push_back(name(t));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string with_range(std::string what, const Range& range) {
  const std::string text = range.text();
  return text.empty() ? what : what + " " + text;
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

const ParamValue* ParamValue::find(std::string_view key) const {
  for (const ParamEntry& e : entries) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

std::string ParamValue::shown() const {
  switch (kind) {
    case Kind::Null:
      return "";
    case Kind::Scalar:
      return text;
    case Kind::List: {
      std::vector<std::string> parts;
      for (const ParamValue& item : items) parts.push_back(item.shown());
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    case Kind::Map: {
      std::vector<std::string> parts;
      for (const ParamEntry& e : entries) parts.push_back(e.key + ": " + e.value.shown());
      return fmt::format("{{{}}}", fmt::join(parts, ", "));
    }
  }
  return text;
}

bool Range::contains(double v) const {
  if (std::isinf(min) && std::isinf(max)) return true;
  const bool above_min = min_open ? v > min : v >= min;
  const bool below_max = max_open ? v < max : v <= max;
  return above_min && below_max;
}

std::string Range::text() const {
  const bool low = !std::isinf(min);
  const bool high = !std::isinf(max);
  if (low && high) {
    return fmt::format("in {}{}, {}{}", min_open ? "(" : "[", min, max, max_open ? ")" : "]");
  }
  if (low) return fmt::format("{} {}", min_open ? ">" : ">=", min);
  if (high) return fmt::format("{} {}", max_open ? "<" : "<=", max);
  return "";
}

const ParamValue* PolicyArgs::read(ParamInfo info) const {
  const std::string key = info.key;
  bool known = false;
  for (const ParamInfo& p : read_) known = known || p.key == key;
  if (!known) read_.push_back(std::move(info));
  return describing_ ? nullptr : params_.find(key);
}

void PolicyArgs::bad(const ParamValue& value, const std::string& field, std::string_view expected) const {
  throw input_error(value.place.empty() ? where_ : value.place, field, expected, value.shown());
}

void PolicyArgs::invalid(const std::string& key, std::string_view expected) const {
  const ParamValue* value = params_.find(key);
  if (!value) throw input_error(where_, field(key), expected, "nothing");
  bad(*value, field(key), expected);
}

template <class T>
T PolicyArgs::scalar(const ParamValue& value, const std::string& field, Range range, std::string_view expected) const {
  const std::optional<T> v = value.kind == ParamValue::Kind::Scalar ? yaml_number<T>(value.text) : std::nullopt;
  if (!v || !range.contains(static_cast<double>(*v))) bad(value, field, expected);
  return *v;
}

double PolicyArgs::number(const std::string& key, double fallback, Range range, std::string_view help) const {
  const std::string expected = with_range("a number", range);
  const ParamValue* value = read({key, "number", number_text(fallback), range.text(), std::string(help)});
  return value ? scalar<double>(*value, field(key), range, expected) : fallback;
}

int PolicyArgs::whole(const std::string& key, int fallback, Range range, std::string_view help) const {
  const std::string expected = with_range("a whole number", range);
  const ParamValue* value = read({key, "whole number", std::to_string(fallback), range.text(), std::string(help)});
  return value ? scalar<int>(*value, field(key), range, expected) : fallback;
}

bool PolicyArgs::flag(const std::string& key, bool fallback, std::string_view help) const {
  const ParamValue* value = read({key, "true/false", fallback ? "true" : "false", "", std::string(help)});
  if (!value) return fallback;
  const std::optional<bool> v = value->kind == ParamValue::Kind::Scalar ? yaml_bool(value->text) : std::nullopt;
  if (!v) bad(*value, field(key), "true or false");
  return *v;
}

std::string PolicyArgs::word(const std::string& key, const std::string& fallback,
                             const std::vector<std::string>& allowed, std::string_view help) const {
  const std::string range = fmt::format("one of {}", fmt::join(allowed, ", "));
  const ParamValue* value = read({key, "word", fallback, range, std::string(help)});
  if (!value) return fallback;
  // yaml-cpp read a null value as the text "null".
  const std::string text = value->kind == ParamValue::Kind::Null ? "null" : value->text;
  if (value->kind == ParamValue::Kind::List || value->kind == ParamValue::Kind::Map ||
      std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    bad(*value, field(key), range);
  }
  return text;
}

std::vector<double> PolicyArgs::numbers(const std::string& key, const std::vector<double>& fallback, Range range,
                                        std::string_view help) const {
  std::vector<std::string> shown;
  for (const double v : fallback) shown.push_back(number_text(v));
  const ParamValue* value =
      read({key, "list of numbers", fmt::format("[{}]", fmt::join(shown, ", ")), range.text(), std::string(help)});
  if (!value) return fallback;
  if (value->kind != ParamValue::Kind::List) bad(*value, field(key), with_range("a list of numbers", range));
  std::vector<double> out;
  for (std::size_t i = 0; i < value->items.size(); ++i) {
    out.push_back(
        scalar<double>(value->items[i], fmt::format("{}[{}]", field(key), i), range, with_range("a number", range)));
  }
  return out;
}

std::vector<JobType> PolicyArgs::job_types(const std::string& key, const std::vector<JobType>& fallback,
                                           std::string_view help) const {
  std::vector<std::string_view> shown;
  for (const JobType t : fallback) shown.push_back(acmesim::name(t));
  const std::string range = fmt::format("each one of {}", job_type_names());
  const ParamValue* value =
      read({key, "list of job types", fmt::format("[{}]", fmt::join(shown, ", ")), range, std::string(help)});
  if (!value) return fallback;
  if (value->kind != ParamValue::Kind::List) {
    bad(*value, field(key), fmt::format("a list of job types ({})", job_type_names()));
  }
  std::vector<JobType> out;
  for (std::size_t i = 0; i < value->items.size(); ++i) {
    const ParamValue& item = value->items[i];
    const auto type = item.kind == ParamValue::Kind::Scalar ? parse_job_type(item.text) : std::nullopt;
    if (!type) bad(item, fmt::format("{}[{}]", field(key), i), fmt::format("a job type ({})", job_type_names()));
    out.push_back(*type);
  }
  return out;
}

template <class Key, class T, class Parse>
std::optional<std::vector<std::pair<Key, T>>> PolicyArgs::keyed(const std::string& key, ParamInfo info, Parse parse,
                                                                std::string_view key_expected, Range range) const {
  const std::string value_expected = with_range(std::is_integral_v<T> ? "a whole number" : "a number", range);
  const ParamValue* value = read(std::move(info));
  if (!value) return std::nullopt;
  if (value->kind != ParamValue::Kind::Map) {
    bad(*value, field(key), fmt::format("a mapping of {} to {}", key_expected, value_expected));
  }
  std::vector<std::pair<Key, T>> out;
  for (const ParamEntry& e : value->entries) {
    const std::optional<Key> k = parse(e.key);
    if (!k) throw input_error(e.key_place.empty() ? where_ : e.key_place, field(key), key_expected, e.key);
    out.emplace_back(*k, scalar<T>(e.value, field(key) + "." + e.key, range, value_expected));
  }
  return out;
}

template <class T>
std::optional<std::vector<std::pair<JobType, T>>> PolicyArgs::per_job_type(const std::string& key,
                                                                           std::string_view fallback, Range range,
                                                                           std::string_view help) const {
  const char* type = std::is_integral_v<T> ? "job type -> whole number" : "job type -> number";
  return keyed<JobType, T>(
      key, {key, type, std::string(fallback), range.text(), std::string(help), false},
      [](const std::string& text) { return parse_job_type(text); }, fmt::format("a job type ({})", job_type_names()),
      range);
}
template std::optional<std::vector<std::pair<JobType, double>>> PolicyArgs::per_job_type<double>(
    const std::string&, std::string_view, Range, std::string_view) const;
template std::optional<std::vector<std::pair<JobType, int>>> PolicyArgs::per_job_type<int>(const std::string&,
                                                                                           std::string_view, Range,
                                                                                           std::string_view) const;

std::optional<std::vector<std::pair<FailureReason, double>>> PolicyArgs::number_per_reason(
    const std::string& key, std::string_view fallback, Range range, std::string_view help) const {
  return keyed<FailureReason, double>(
      key, {key, "failure reason -> number", std::string(fallback), range.text(), std::string(help), false},
      [](const std::string& text) { return parse_failure_reason(text); },
      "a failure reason (e.g. NVLinkError, ECCError)", range);
}

Table PolicyArgs::table(const std::string& key, const std::vector<std::string>& columns, std::string_view help) const {
  const std::string expected = fmt::format("the path of a CSV file ({})", fmt::join(columns, ","));
  const ParamValue* value = read({key, "CSV file", "none (required)",
                                  fmt::format("columns {}", fmt::join(columns, ",")), std::string(help), false});
  if (describing_) return Table{};
  if (!value) throw input_error(where_, field(key), expected, "nothing");
  if (value->kind != ParamValue::Kind::Scalar || value->text.empty()) bad(*value, field(key), expected);
  if (!tables_) throw std::logic_error("PolicyArgs::table: no TableReader was injected (io builds PolicyArgs)");
  // One rule for every path: relative to the file that names it; a path given with --set (the
  // value's own place, whether the key or its whole block was overridden) to the working directory.
  const std::string& at = value->place;
  return tables_->read(value->text, at.rfind("--set", 0) == 0 ? std::string{} : at.substr(0, at.find(':')), columns);
}

Rng PolicyArgs::rng(std::string_view purpose) const {
  return Rng{seed_, fmt::format("{}/{}{}{}", slot_, name_, purpose.empty() ? "" : "/", purpose)};
}

void PolicyArgs::reject_unread() const {
  std::set<std::string> known;  // sorted, for the message
  for (const ParamInfo& p : read_) known.insert(p.key);
  for (const ParamEntry& entry : params_.entries) {
    if (entry.key == "name" || known.count(entry.key)) continue;
    const std::string place = entry.key_place.empty() ? where_ : entry.key_place;
    const std::string field = fmt::format("{} '{}'", slot_, name_);
    if (known.empty()) throw input_error(place, field, "no key (it takes no parameters)", entry.key);
    throw unknown_name_error(place, field, "key", std::vector<std::string>(known.begin(), known.end()), entry.key);
  }
}

}  // namespace acmesim
