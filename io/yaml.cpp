#include "io/yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace acmesim::yaml {

namespace {

std::string join_key(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

/// The text of line `line` (0-based) of `text` from `column` on: what a parse error found.
std::string text_at(const std::string& text, int line, int column) {
  std::istringstream in(text);
  std::string row;
  for (int i = 0; i <= line; ++i) {
    if (!std::getline(in, row)) return {};
  }
  return column >= 0 && static_cast<std::size_t>(column) < row.size() ? row.substr(static_cast<std::size_t>(column))
                                                                      : std::string{};
}

}  // namespace

Node::Node(std::string file, YAML::Node root, std::string what, std::vector<Override> overridden)
    : source_{std::make_shared<const Source>(Source{std::move(file), std::move(what), std::move(overridden)})},
      node_{std::move(root)} {}

std::string Node::place() const {
  if (const Override* o = override_of(source_->overridden, key_path_)) return o->place;
  const YAML::Mark mark = node_.Mark();
  return acmesim::place(source_->file, mark.line + 1, mark.column + 1);
}

Node Node::named(std::string field) const {
  Node copy = *this;
  copy.field_ = std::move(field);
  return copy;
}

Node Node::child(YAML::Node node, const std::string& key) const {
  return Node{source_, std::move(node), join_key(field_, key), join_key(key_path_, key)};
}

Node Node::operator[](const std::string& key) const {
  if (!node_.IsDefined() || node_.IsNull()) return child(YAML::Node{YAML::NodeType::Undefined}, key);
  if (!node_.IsMap()) fail("a mapping of keys to values");
  const YAML::Node& map = node_;  // const: a lookup must never insert the key
  return child(map[key], key);
}

void Node::only_keys(const std::vector<std::string>& valid) const {
  for (const Entry& entry : entries("a mapping of keys to values")) {
    if (std::find(valid.begin(), valid.end(), entry.name()) == valid.end()) {
      throw unknown_name_error(entry.key.place(), field(), "key", valid, entry.name());
    }
  }
}

Node Node::required(const std::string& key, std::string_view expected) const {
  Node value = (*this)[key];
  if (!value) throw input_error(place(), value.field(), fmt::format("{} (a required key)", expected), "");
  return value;
}

std::vector<Node> Node::items(std::string_view expected) const {
  if (!node_.IsSequence()) fail(expected);
  std::vector<Node> out;
  for (std::size_t i = 0; i < node_.size(); ++i) {
    out.push_back(Node{source_, node_[i], fmt::format("{}[{}]", field(), i), fmt::format("{}[{}]", key_path_, i)});
  }
  return out;
}

std::vector<Entry> Node::entries(std::string_view expected) const {
  if (!node_.IsMap()) fail(expected);
  std::vector<Entry> out;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      Node{source_, entry.first, field_, key_path_}.fail("a plain key (a name or a number, not a list or a mapping)");
    }
    // Placed as the key's own path, so that a key `--set` added is reported at "--set KEY".
    const Node key{source_, entry.first, field_, join_key(key_path_, entry.first.Scalar())};
    // yaml-cpp keeps both entries of a repeated key and lookups find the first: a second value
    // would be silently ignored. Mappings are small (tens of keys), so the scan is cheap.
    for (const Entry& earlier : out) {
      if (earlier.name() == entry.first.Scalar()) {
        key.fail(fmt::format("each key once ('{}' is also at {})", earlier.name(), earlier.key.place()));
      }
    }
    out.push_back(Entry{key, child(entry.second, entry.first.Scalar())});
  }
  return out;
}

std::string Node::as_path(std::string_view expected, const std::optional<std::string>& base_dir) const {
  namespace fs = std::filesystem;
  if (!node_.IsScalar() || node_.Scalar().empty()) fail(expected);
  const fs::path path = node_.Scalar();
  const Override* o = override_of(source_->overridden, key_path_);
  const fs::path base = base_dir ? fs::path(*base_dir)
                        : o      ? fs::path(o->base_dir)
                                 : fs::path(source_->file).parent_path();
  return (path.is_absolute() ? path : base / path).lexically_normal().string();
}

void Node::fail(std::string_view expected) const { throw input_error(place(), field(), expected, dump()); }

std::string Node::dump() const {
  if (!node_.IsDefined()) return {};
  try {
    return YAML::Dump(node_);
  } catch (const YAML::Exception&) {
    return "?";  // an emitter failure must not hide the error being reported
  }
}

const Override* override_of(const std::vector<Override>& overridden, const std::string& key_path) {
  for (const Override& o : overridden) {
    const std::string& key = o.key;
    if (key.empty() || key_path.rfind(key, 0) != 0) continue;
    if (key_path.size() == key.size() || key_path[key.size()] == '.' || key_path[key.size()] == '[') return &o;
  }
  return nullptr;
}

YAML::Node load(const std::string& file, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw input_error(place(file, e.mark.line + 1, e.mark.column + 1), "YAML", fmt::format("valid YAML ({})", e.msg),
                      text_at(text, e.mark.line, e.mark.column));
  }
}

void set_key(YAML::Node root, const std::string& key, const std::string& value_text, const std::string& place) {
  const YAML::Node value = load(place, value_text);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  // An empty part (`a..b`, a leading or trailing dot) names nothing; more parts than a policy
  // parameter may nest (64, io/policy_yaml.cpp) can only be rejected later, after building that
  // many levels, which took seconds for a key of a few thousand dots (found by fuzzing).
  constexpr std::size_t kMaxParts = 64;
  const bool empty_part = std::ranges::any_of(parts, [](const std::string& p) { return p.empty(); });
  if (parts.empty() || empty_part || parts.size() > kMaxParts || key.back() == '.') {
    throw input_error(place, "override",
                      fmt::format("a dotted key of at most {} non-empty parts, e.g. cluster.nodes", kMaxParts), key);
  }
  std::vector<YAML::Node> path{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = path.back()[parts[i]];
    if (child && child.IsScalar()) {
      const std::string name = child.Scalar();
      path.back()[parts[i]] = YAML::Node{YAML::NodeType::Map};
      path.back()[parts[i]]["name"] = name;
    } else if (!child || !child.IsMap()) {
      path.back()[parts[i]] = YAML::Node{YAML::NodeType::Map};
    }
    path.push_back(path.back()[parts[i]]);
  }
  path.back()[parts.back()] = value.IsNull() ? YAML::Node{""} : value;
}

Node parse_text(const std::string& file, const std::string& text, const std::string& what,
                const std::vector<Override>& overridden) {
  return Node{file, load(file, text), what, overridden};
}

std::string read_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path, what, "a YAML file", "a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, what, "a file that can be read", "no such file, or no permission");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  // A trace given where a YAML file goes (`acmesim run trace.csv`) is the likely mistake: say so,
  // rather than quoting the trace or a YAML parser's complaint about its bytes.
  const bool gzip = text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b';
  if (gzip || text.find('\0') != std::string::npos) {
    throw input_error(path, what, "a YAML text file (a trace is given with --set trace=PATH)",
                      gzip ? "gzip data" : "binary data (NUL bytes)");
  }
  if (text.rfind("job_id,", 0) == 0) {
    throw input_error(path, what, "a YAML file (a trace is given with --set trace=PATH)", "an AcmeTrace CSV header");
  }
  return text;
}

Node parse_file(const std::string& path, const std::string& what) {
  return parse_text(path, read_file(path, what), what);
}

}  // namespace acmesim::yaml
