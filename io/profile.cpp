#include "io/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/policy_yaml.hpp"
#include "io/timestamp.hpp"
#include "io/yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

using yaml::Range;

const std::string kMappingOfKeys = "a mapping of keys to values";

/// A non-empty mapping, failing with `expected` otherwise.
std::vector<yaml::Entry> nonempty_entries(const yaml::Node& node, std::string_view expected) {
  if (!node.is_map() || node.size() == 0) node.fail(expected);
  return node.entries(expected);
}

Timestamp time(const yaml::Node& node) {
  const auto ts = parse_timestamp(node.as<std::string>());
  if (!ts) node.fail("a time like '2023-03-01 00:00:00+08:00'");
  return *ts;
}

/// {x: percent, ...}: x > 0 increasing, percent non-decreasing in [0, 100], ending at 100.
PointCdf cdf(const yaml::Node& node) {
  PointCdf cdf;
  for (const auto& [key, value] : nonempty_entries(node, "a mapping {x: percent <= x, ...}")) {
    const yaml::Node x_node = key.named(node.field() + " (x)");
    const double x = x_node.as<double>({.min = 0});
    const double p = value.named(node.field() + " (percent)").as<double>({.min = 0, .max = 100});
    if (x <= 0) x_node.fail("x > 0");
    if (!cdf.points.empty() && (x <= cdf.points.back().first || p < cdf.points.back().second)) {
      x_node.fail("x increasing and percents non-decreasing");
    }
    cdf.points.emplace_back(x, p);
  }
  if (cdf.points.back().second != 100) node.fail("a last point at 100 percent");
  return cdf;
}

/// {value: weight, ...} with whole values >= 1 and positive total weight.
std::vector<std::pair<int, double>> weights(const yaml::Node& node) {
  std::vector<std::pair<int, double>> out;
  double total = 0;
  for (const auto& [key, value] : nonempty_entries(node, "a mapping {count: weight, ...}")) {
    out.emplace_back(key.as<int>({.min = 1}), value.named(node.field()).as<double>({.min = 0}));
    total += out.back().second;
  }
  if (total <= 0) node.fail("weights with a positive sum");
  return out;
}

std::vector<StateRow> states(const yaml::Node& node) {
  const std::string expected = "a list of [u, completed, cancelled, failed] rows";
  if (!node.is_list() || node.size() == 0) node.fail(expected);
  std::vector<StateRow> rows;
  for (const yaml::Node& r : node.items(expected)) {
    if (!r.is_list() || r.size() != 4) r.fail("a row [u, completed, cancelled, failed]");
    const std::vector<yaml::Node> cells = r.items("a row [u, completed, cancelled, failed]");
    StateRow row;
    row.u = cells[0].named(node.field() + " (u)").as<double>({.min = 0});
    if (row.u > 1 || (!rows.empty() && row.u <= rows.back().u)) cells[0].fail("u increasing within [0, 1]");
    for (std::size_t i = 0; i < 3; ++i) row.percent[i] = cells[i + 1].named(node.field()).as<double>({.min = 0});
    if (row.percent[0] + row.percent[1] + row.percent[2] <= 0) r.fail("shares with a positive sum");
    rows.push_back(row);
  }
  if (rows.front().u != 0 || rows.back().u != 1) node.fail("rows from u = 0 to u = 1");
  return rows;
}

template <std::size_t N>
std::array<double, N> fixed_list(const yaml::Node& node) {
  const std::string expected = fmt::format("a list of {} weights", N);
  if (!node.is_list() || node.size() != N) node.fail(expected);
  const std::vector<yaml::Node> cells = node.items(expected);
  std::array<double, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = cells[i].named(node.field()).as<double>({.min = 0});
  return out;
}

const std::vector<std::string> kTopKeys{"name",           "description",
                                        "schema",         "start",
                                        "days",           "jobs",
                                        "cpu_job_share",  "campaign_budget_share",
                                        "cluster",        "scheduler",
                                        "placement",      "admission_latency_s",
                                        "max_duration_s", "node_fail_share",
                                        "cpus_per_gpu",   "memory",
                                        "users",          "arrivals",
                                        "gpu_types",      "cpu_jobs"};

JobClassProfile job_class(const yaml::Node& node, bool gpu) {
  JobClassProfile c;
  if (gpu) {
    node.only_keys({"share", "gpus", "duration_cdf", "states", "burst", "size_duration_coupling", "campaign"});
    c.share = node.need<double>("share", {.min = 0});
    c.demand = weights(node.required("gpus", "a mapping {count: weight, ...}"));
  } else {
    node.only_keys({"cpus", "duration_cdf", "states"});
    c.demand = weights(node.required("cpus", "a mapping {count: weight, ...}"));
  }
  c.size_duration_coupling = node.get<double>("size_duration_coupling", 0, {.min = 0, .max = 1});
  c.duration = cdf(node.required("duration_cdf", "a mapping {x: percent <= x, ...}"));
  c.states = states(node.required("states", "a list of [u, completed, cancelled, failed] rows"));
  if (const yaml::Node b = node["burst"]) {
    b.only_keys({"mean_size", "gap_s"});
    c.burst_mean_size = b.need<double>("mean_size", {.min = 1});
    c.burst_gap_s = b.get<double>("gap_s", 0, {.min = 0});
  }
  if (const yaml::Node k = node["campaign"]) {
    k.only_keys({"runs_mean", "gap_min"});
    c.campaign_runs_mean = k.need<double>("runs_mean", {.min = 1});
    c.campaign_gap_min = k.get<double>("gap_min", 0, {.min = 0});
  }
  return c;
}

WorkloadProfile read_profile(const yaml::Node& root) {
  root.only_keys(kTopKeys);
  WorkloadProfile p;
  p.source = root.file();
  p.name = root.get<std::string>("name", std::filesystem::path(root.file()).stem().string());
  const std::string schema = root.need<std::string>("schema");
  if (schema == "seren") {
    p.schema = TraceSchema::Seren;
  } else if (schema == "kalos") {
    p.schema = TraceSchema::Kalos;
  } else {
    root["schema"].fail("seren (13 columns) or kalos (17 columns)");
  }
  const Timestamp start = time(root.required("start", "a time like '2023-03-01 00:00:00+08:00'"));
  p.start_unix = start.unix_seconds;
  p.utc_offset_minutes = start.utc_offset_minutes;
  p.days = root.need<double>("days", {.min = 0});
  if (p.days <= 0) root["days"].fail("a number > 0");
  p.jobs = root.need<double>("jobs", {.min = 1});
  p.cpu_job_share = root.need<double>("cpu_job_share", {.min = 0, .max = 1});
  p.campaign_budget_share = root.get<double>("campaign_budget_share", 1.0, {.min = 0.01, .max = 1});

  const yaml::Node cluster = root.required("cluster", kMappingOfKeys);
  cluster.only_keys({"nodes", "gpus_per_node", "cpus_per_node", "memory_gib_per_node", "cpu_nodes"});
  p.cluster.gpu_nodes = cluster.need<int>("nodes", {.min = 1});
  p.cluster.gpus_per_node = cluster.need<int>("gpus_per_node", {.min = 1});
  p.cluster.cpus_per_node = cluster.get<int>("cpus_per_node", p.cluster.cpus_per_node, {.min = 0});
  p.cluster.memory_gib_per_node = cluster.get<int>("memory_gib_per_node", p.cluster.memory_gib_per_node, {.min = 0});
  p.cluster.cpu_nodes = cluster.get<int>("cpu_nodes", p.cluster.cpu_nodes, {.min = 0});
  if (const yaml::Node s = root["scheduler"]) {
    // A name, or {name: ..., parameters} as in a scenario (docs/usage.md).
    p.scheduler_where = s.place();
    if (s.is_map()) {
      s.entries(kMappingOfKeys);  // parameter keys are plain scalars, as PolicyArgs reads them
      p.scheduler = s.need<std::string>("name");
      p.scheduler_params = param_value_from_yaml(s.raw(), "scheduler", YamlOrigin{root.file(), {}});
    } else {
      if (!s.is_scalar()) s.fail("a policy name, or a mapping with 'name' and the policy's parameters");
      p.scheduler = s.as<std::string>();
    }
  }
  p.placement = root.get<std::string>("placement", p.placement);
  if (root.has("admission_latency_s")) p.admission_latency = cdf(root["admission_latency_s"]);
  p.max_duration_s = root.need<double>("max_duration_s", {.min = 1});
  p.node_fail_share = root.get<double>("node_fail_share", p.node_fail_share, {.min = 0});
  p.cpus_per_gpu = root.get<int>("cpus_per_gpu", p.cpus_per_gpu, {.min = 0});
  if (const yaml::Node m = root["memory"]) {
    m.only_keys({"gb_per_gpu", "cpu_job_gb", "shared_mem_gb"});
    p.mem_gb_per_gpu = m.get<int>("gb_per_gpu", p.mem_gb_per_gpu, {.min = 0});
    p.cpu_job_mem_gb = m.get<int>("cpu_job_gb", p.cpu_job_mem_gb, {.min = 0});
    p.shared_mem_gb = m.get<double>("shared_mem_gb", p.shared_mem_gb, {.min = 0});
  }
  const yaml::Node users = root.required("users", kMappingOfKeys);
  users.only_keys({"count", "zipf_exponent"});
  p.users = users.need<int>("count", {.min = 1});
  p.user_zipf = users.need<double>("zipf_exponent", {.min = 0});

  const yaml::Node arrivals = root.required("arrivals", kMappingOfKeys);
  arrivals.only_keys({"utc_offset", "hourly", "weekly"});
  {
    const yaml::Node off = arrivals.required("utc_offset", "an offset like '+08:00'");
    const auto ts = parse_timestamp("2000-01-01 00:00:00" + off.as<std::string>());
    if (!ts) off.fail("an offset like '+08:00'");
    p.arrival_utc_offset_minutes = ts->utc_offset_minutes;
  }
  p.hourly = fixed_list<24>(arrivals.required("hourly", "a list of 24 weights"));
  p.weekly = fixed_list<7>(arrivals.required("weekly", "a list of 7 weights"));

  const yaml::Node types = root.required("gpu_types", "a mapping of job types");
  double total_share = 0;
  for (const auto& [key, value] : nonempty_entries(types, "a mapping of job types")) {
    const auto type = parse_job_type(key.as<std::string>());
    if (!type) key.fail("a job type: Pretrain, Eval, SFT, MLLM, Debug or Other");
    JobClassProfile c = job_class(value, true);
    c.type = *type;
    total_share += c.share;
    p.gpu_types.push_back(std::move(c));
  }
  if (total_share <= 0) types.fail("type shares with a positive sum");
  p.cpu_jobs = job_class(root.required("cpu_jobs", kMappingOfKeys), false);
  p.cpu_jobs.type = JobType::Other;
  return p;
}

}  // namespace

PointCdf read_point_cdf(const yaml::Node& node) { return cdf(node); }

WorkloadProfile parse_profile(const std::string& name, const std::string& yaml_text) {
  return yaml::guard(name, [&] { return read_profile(yaml::parse_text(name, yaml_text, "profile")); });
}

WorkloadProfile load_profile(const std::string& path) { return parse_profile(path, yaml::read_file(path, "profile")); }

std::string resolve_profile(const std::string& name_or_path, const std::string& profile_dir) {
  if (name_or_path == "seren" || name_or_path == "kalos") {
    return (std::filesystem::path(profile_dir) / (name_or_path + ".yaml")).string();
  }
  return name_or_path;
}

}  // namespace acmesim
