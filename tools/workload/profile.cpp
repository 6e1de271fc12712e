#include "tools/workload/profile.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"
#include "io/policy_yaml.hpp"
#include "io/timestamp.hpp"

namespace acmesim {

double PointCdf::inverse(double u) const {
  const double pct = 100.0 * u;
  if (points.empty()) return 0;
  if (pct <= points.front().second) return points.front().first;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto [x1, f1] = points[i];
    if (pct <= f1) {
      const auto [x0, f0] = points[i - 1];
      if (f1 <= f0) return x1;
      const double w = (pct - f0) / (f1 - f0);
      return std::exp(std::log(x0) + w * (std::log(x1) - std::log(x0)));
    }
  }
  return points.back().first;
}

namespace {

class Reader {
public:
  explicit Reader(std::string file) : file_{std::move(file)} {}

  std::string where(const YAML::Node& node) const {
    const YAML::Mark m = node.Mark();
    return m.line < 0 ? file_ : fmt::format("{}:{}:{}", file_, m.line + 1, m.column + 1);
  }

  [[noreturn]] void fail(const std::string& key, const YAML::Node& node, const std::string& expected) const {
    throw InputError(fmt::format("{}: {}: expected {}, found '{}'", where(node), key, expected, YAML::Dump(node)));
  }

  void only_keys(const std::string& key, const YAML::Node& node, const std::vector<std::string>& valid) const {
    if (!node.IsMap()) fail(key, node, "a mapping");
    for (const auto& entry : node) {
      const std::string k = entry.first.as<std::string>();
      if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
        throw InputError(fmt::format("{}: unknown key '{}{}' (valid: {})", where(entry.first),
                                     key.empty() ? "" : key + ".", k, fmt::join(valid, ", ")));
      }
    }
  }

  YAML::Node need(const YAML::Node& parent, const std::string& key, const std::string& full) const {
    const YAML::Node node = parent[key];
    if (!node) throw InputError(fmt::format("{}: missing key '{}'", where(parent), full));
    return node;
  }

  double number(const YAML::Node& node, const std::string& full, double min_value) const {
    double v = 0;
    try {
      v = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(full, node, fmt::format("a number >= {}", min_value));
    }
    if (!std::isfinite(v) || v < min_value) fail(full, node, fmt::format("a number >= {}", min_value));
    return v;
  }

  int integer(const YAML::Node& node, const std::string& full, int min_value) const {
    int v = 0;
    try {
      v = node.as<int>();
    } catch (const YAML::Exception&) {
      fail(full, node, fmt::format("a whole number >= {}", min_value));
    }
    if (v < min_value) fail(full, node, fmt::format("a whole number >= {}", min_value));
    return v;
  }

  std::string text(const YAML::Node& node, const std::string& full) const {
    if (!node.IsScalar()) fail(full, node, "a string");
    return node.as<std::string>();
  }

  Timestamp time(const YAML::Node& node, const std::string& full) const {
    const auto ts = parse_timestamp(text(node, full));
    if (!ts) fail(full, node, "a time like '2023-03-01 00:00:00+08:00'");
    return *ts;
  }

  /// {x: percent, ...}: x > 0 increasing, percent non-decreasing in [0, 100], ending at 100.
  PointCdf cdf(const YAML::Node& node, const std::string& full) const {
    if (!node.IsMap() || node.size() == 0) fail(full, node, "a mapping {x: percent <= x, ...}");
    PointCdf cdf;
    for (const auto& entry : node) {
      const double x = number(entry.first, full + " (x)", 0);
      const double p = number(entry.second, full + " (percent)", 0);
      if (x <= 0) fail(full, entry.first, "x > 0");
      if (p > 100) fail(full, entry.second, "a percent <= 100");
      if (!cdf.points.empty() && (x <= cdf.points.back().first || p < cdf.points.back().second)) {
        fail(full, entry.first, "x increasing and percents non-decreasing");
      }
      cdf.points.emplace_back(x, p);
    }
    if (cdf.points.back().second != 100) fail(full, node, "a last point at 100 percent");
    return cdf;
  }

  /// {value: weight, ...} with whole values >= min_value and positive total weight.
  std::vector<std::pair<int, double>> weights(const YAML::Node& node, const std::string& full, int min_value) const {
    if (!node.IsMap() || node.size() == 0) fail(full, node, "a mapping {count: weight, ...}");
    std::vector<std::pair<int, double>> out;
    double total = 0;
    for (const auto& entry : node) {
      out.emplace_back(integer(entry.first, full, min_value), number(entry.second, full, 0));
      total += out.back().second;
    }
    if (total <= 0) fail(full, node, "weights with a positive sum");
    return out;
  }

  std::vector<StateRow> states(const YAML::Node& node, const std::string& full) const {
    if (!node.IsSequence() || node.size() == 0) fail(full, node, "a list of [u, completed, cancelled, failed] rows");
    std::vector<StateRow> rows;
    for (const auto& r : node) {
      if (!r.IsSequence() || r.size() != 4) fail(full, r, "a row [u, completed, cancelled, failed]");
      StateRow row;
      row.u = number(r[0], full + " (u)", 0);
      if (row.u > 1 || (!rows.empty() && row.u <= rows.back().u)) fail(full, r[0], "u increasing within [0, 1]");
      for (std::size_t i = 0; i < 3; ++i) row.percent[i] = number(r[i + 1], full, 0);
      if (row.percent[0] + row.percent[1] + row.percent[2] <= 0) fail(full, r, "shares with a positive sum");
      rows.push_back(row);
    }
    if (rows.front().u != 0 || rows.back().u != 1) fail(full, node, "rows from u = 0 to u = 1");
    return rows;
  }

  template <std::size_t N>
  std::array<double, N> list(const YAML::Node& node, const std::string& full) const {
    if (!node.IsSequence() || node.size() != N) fail(full, node, fmt::format("a list of {} weights", N));
    std::array<double, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = number(node[i], full, 0);
    return out;
  }

private:
  std::string file_;
};

const std::vector<std::string> kTopKeys{"name",        "description", "schema",     "start",         "days",
                                        "jobs",        "cpu_job_share", "cluster",  "scheduler",     "placement",
                                        "launch_latency_s", "max_duration_s", "node_fail_share", "cpus_per_gpu",
                                        "memory",      "users",       "arrivals",   "gpu_types",     "cpu_jobs"};

JobClassProfile job_class(const Reader& r, const YAML::Node& node, const std::string& full, bool gpu) {
  JobClassProfile c;
  if (gpu) {
    r.only_keys(full, node, {"share", "gpus", "duration_cdf", "states", "burst", "size_duration_coupling"});
    c.share = r.number(r.need(node, "share", full + ".share"), full + ".share", 0);
    c.demand = r.weights(r.need(node, "gpus", full + ".gpus"), full + ".gpus", 1);
  } else {
    r.only_keys(full, node, {"cpus", "duration_cdf", "states"});
    c.demand = r.weights(r.need(node, "cpus", full + ".cpus"), full + ".cpus", 1);
  }
  if (node["size_duration_coupling"]) {
    c.size_duration_coupling = r.number(node["size_duration_coupling"], full + ".size_duration_coupling", 0);
    if (c.size_duration_coupling > 1) r.fail(full + ".size_duration_coupling", node["size_duration_coupling"], "a share in [0, 1]");
  }
  c.duration = r.cdf(r.need(node, "duration_cdf", full + ".duration_cdf"), full + ".duration_cdf");
  c.states = r.states(r.need(node, "states", full + ".states"), full + ".states");
  if (const YAML::Node b = node["burst"]) {
    r.only_keys(full + ".burst", b, {"mean_size", "gap_s"});
    c.burst_mean_size = r.number(r.need(b, "mean_size", full + ".burst.mean_size"), full + ".burst.mean_size", 1);
    if (b["gap_s"]) c.burst_gap_s = r.number(b["gap_s"], full + ".burst.gap_s", 0);
  }
  return c;
}

WorkloadProfile parse(const std::string& file, const YAML::Node& root) {
  const Reader r{file};
  r.only_keys("", root, kTopKeys);
  WorkloadProfile p;
  p.source = file;
  p.name = root["name"] ? r.text(root["name"], "name") : std::filesystem::path(file).stem().string();
  const std::string schema = r.text(r.need(root, "schema", "schema"), "schema");
  if (schema == "seren") {
    p.schema = TraceSchema::Seren;
  } else if (schema == "kalos") {
    p.schema = TraceSchema::Kalos;
  } else {
    r.fail("schema", root["schema"], "seren (13 columns) or kalos (17 columns)");
  }
  const Timestamp start = r.time(r.need(root, "start", "start"), "start");
  p.start_unix = start.unix_seconds;
  p.utc_offset_minutes = start.utc_offset_minutes;
  p.days = r.number(r.need(root, "days", "days"), "days", 0);
  if (p.days <= 0) r.fail("days", root["days"], "a number > 0");
  p.jobs = r.number(r.need(root, "jobs", "jobs"), "jobs", 1);
  p.cpu_job_share = r.number(r.need(root, "cpu_job_share", "cpu_job_share"), "cpu_job_share", 0);
  if (p.cpu_job_share > 1) r.fail("cpu_job_share", root["cpu_job_share"], "a share in [0, 1]");

  const YAML::Node cluster = r.need(root, "cluster", "cluster");
  r.only_keys("cluster", cluster, {"nodes", "gpus_per_node", "cpus_per_node", "memory_gib_per_node", "cpu_nodes"});
  p.cluster.gpu_nodes = r.integer(r.need(cluster, "nodes", "cluster.nodes"), "cluster.nodes", 1);
  p.cluster.gpus_per_node = r.integer(r.need(cluster, "gpus_per_node", "cluster.gpus_per_node"), "cluster.gpus_per_node", 1);
  if (cluster["cpus_per_node"]) p.cluster.cpus_per_node = r.integer(cluster["cpus_per_node"], "cluster.cpus_per_node", 0);
  if (cluster["memory_gib_per_node"]) {
    p.cluster.memory_gib_per_node = r.integer(cluster["memory_gib_per_node"], "cluster.memory_gib_per_node", 0);
  }
  if (cluster["cpu_nodes"]) p.cluster.cpu_nodes = r.integer(cluster["cpu_nodes"], "cluster.cpu_nodes", 0);
  if (const YAML::Node s = root["scheduler"]) {
    // A name, or {name: ..., parameters} as in a scenario (docs/usage.md).
    p.scheduler_where = r.where(s);
    if (s.IsMap()) {
      if (!s["name"]) r.fail("scheduler", s, "a policy name, or a mapping with 'name' and the policy's parameters");
      p.scheduler = r.text(s["name"], "scheduler.name");
      p.scheduler_params = param_value_from_yaml(s, "scheduler", YamlOrigin{file, {}});
    } else {
      p.scheduler = r.text(s, "scheduler");
    }
  }
  if (root["placement"]) p.placement = r.text(root["placement"], "placement");
  if (root["launch_latency_s"]) p.launch_latency = r.cdf(root["launch_latency_s"], "launch_latency_s");
  p.max_duration_s = r.number(r.need(root, "max_duration_s", "max_duration_s"), "max_duration_s", 1);
  if (root["node_fail_share"]) p.node_fail_share = r.number(root["node_fail_share"], "node_fail_share", 0);
  if (root["cpus_per_gpu"]) p.cpus_per_gpu = r.integer(root["cpus_per_gpu"], "cpus_per_gpu", 0);
  if (const YAML::Node m = root["memory"]) {
    r.only_keys("memory", m, {"gb_per_gpu", "cpu_job_gb", "shared_mem_gb"});
    if (m["gb_per_gpu"]) p.mem_gb_per_gpu = r.integer(m["gb_per_gpu"], "memory.gb_per_gpu", 0);
    if (m["cpu_job_gb"]) p.cpu_job_mem_gb = r.integer(m["cpu_job_gb"], "memory.cpu_job_gb", 0);
    if (m["shared_mem_gb"]) p.shared_mem_gb = r.number(m["shared_mem_gb"], "memory.shared_mem_gb", 0);
  }
  const YAML::Node users = r.need(root, "users", "users");
  r.only_keys("users", users, {"count", "zipf_exponent"});
  p.users = r.integer(r.need(users, "count", "users.count"), "users.count", 1);
  p.user_zipf = r.number(r.need(users, "zipf_exponent", "users.zipf_exponent"), "users.zipf_exponent", 0);

  const YAML::Node arrivals = r.need(root, "arrivals", "arrivals");
  r.only_keys("arrivals", arrivals, {"utc_offset", "hourly", "weekly"});
  {
    const YAML::Node off = r.need(arrivals, "utc_offset", "arrivals.utc_offset");
    const auto ts = parse_timestamp("2000-01-01 00:00:00" + r.text(off, "arrivals.utc_offset"));
    if (!ts) r.fail("arrivals.utc_offset", off, "an offset like '+08:00'");
    p.arrival_utc_offset_minutes = ts->utc_offset_minutes;
  }
  p.hourly = r.list<24>(r.need(arrivals, "hourly", "arrivals.hourly"), "arrivals.hourly");
  p.weekly = r.list<7>(r.need(arrivals, "weekly", "arrivals.weekly"), "arrivals.weekly");

  const YAML::Node types = r.need(root, "gpu_types", "gpu_types");
  if (!types.IsMap() || types.size() == 0) r.fail("gpu_types", types, "a mapping of job types");
  double total_share = 0;
  for (const auto& entry : types) {
    const std::string type_name = entry.first.as<std::string>();
    const auto type = parse_job_type(type_name);
    if (!type) {
      throw InputError(fmt::format("{}: unknown job type 'gpu_types.{}' (valid: Pretrain, Eval, SFT, MLLM, Debug, Other)",
                                   r.where(entry.first), type_name));
    }
    JobClassProfile c = job_class(r, entry.second, "gpu_types." + type_name, true);
    c.type = *type;
    total_share += c.share;
    p.gpu_types.push_back(std::move(c));
  }
  if (total_share <= 0) r.fail("gpu_types", types, "type shares with a positive sum");
  p.cpu_jobs = job_class(r, r.need(root, "cpu_jobs", "cpu_jobs"), "cpu_jobs", false);
  p.cpu_jobs.type = JobType::Other;
  return p;
}

}  // namespace

WorkloadProfile parse_profile(const std::string& name, const std::string& yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  return parse(name, root);
}

WorkloadProfile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the profile", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_profile(path, text.str());
}

std::string resolve_profile(const std::string& name_or_path, const std::string& profile_dir) {
  if (name_or_path == "seren" || name_or_path == "kalos") {
    return (std::filesystem::path(profile_dir) / (name_or_path + ".yaml")).string();
  }
  return name_or_path;
}

}  // namespace acmesim
