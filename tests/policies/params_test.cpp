// Policy parameters: every policy describes what it reads, and a value out of range or of the
// wrong type is an error at the value's own place.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "io/policy_yaml.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"

using namespace acmesim;

namespace {

const std::string kBase = "trace: t.csv\ncluster: {nodes: 4}\n";

/// The error building the scheduler of a scenario given as text, or "no error".
std::string scheduler_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    builtin_catalog().schedulers.make(parse_scenario("dir/x.yaml", yaml, overrides).scheduler);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

template <class Interface>
void check_described(const Registry<Interface>& registry) {
  for (const auto& entry : registry.entries()) {
    INFO(registry.slot() << " " << entry.name);
    for (const ParamInfo& p : registry.parameters(entry.name)) {
      INFO(p.key);
      CHECK(!p.key.empty());
      CHECK(!p.type.empty());
      CHECK(!p.fallback.empty());
      CHECK(!p.help.empty());
      // Numbers say their range, words their allowed values; only flags take any value of their type.
      CHECK((p.type == "true/false" || !p.range.empty()));
    }
  }
}

ParamInfo parameter(const std::vector<ParamInfo>& all, const std::string& key) {
  for (const ParamInfo& p : all) {
    if (p.key == key) return p;
  }
  FAIL("no parameter " << key);
  return {};
}

}  // namespace

TEST_CASE("every policy of every slot reports each parameter with type, default, range and help") {
  const Catalog catalog = builtin_catalog();
  check_described(catalog.schedulers);
  check_described(catalog.placements);
  check_described(catalog.evaluations);
  check_described(catalog.outcomes);
  check_described(catalog.failures);
  check_described(catalog.recoveries);

  const ParamInfo share = parameter(catalog.schedulers.parameters("acme"), "quota_share");
  CHECK(share.type == "job type -> number");
  CHECK(share.range == "in [0, 1]");
  CHECK(parameter(catalog.failures.parameters("replay"), "file").type == "CSV file");
  CHECK(parameter(catalog.recoveries.parameters("auto"), "manual_share").fallback == "0.1");
  CHECK(parameter(catalog.schedulers.parameters("easy-backfill"), "estimate").range ==
        "one of exact, factor, type_limit");
  CHECK(catalog.schedulers.parameters("fifo").empty());
  CHECK(catalog.schedulers.parameters("no-such-policy").empty());
}

TEST_CASE("acme's quota_share outside [0, 1] is rejected at the value's file:line:col") {
  CHECK(scheduler_error(kBase + "scheduler: {name: acme, quota_share: {Pretrain: 1.5}}\n") ==
        "dir/x.yaml:3:49: scheduler.quota_share.Pretrain: expected a number in [0, 1], found '1.5'");
  CHECK(scheduler_error(kBase + "scheduler:\n  name: acme\n  quota_share:\n    Pretrain: -0.5\n") ==
        "dir/x.yaml:6:15: scheduler.quota_share.Pretrain: expected a number in [0, 1], found '-0.5'");
  CHECK(scheduler_error(kBase + "scheduler: {name: acme, quota_share: {Pretrain: 1}}\n") == "no error");
  CHECK(scheduler_error(kBase + "scheduler: {name: acme, quota_share: {Pretraining: 0.5}}\n") ==
        "dir/x.yaml:3:39: scheduler.quota_share: expected a job type (Pretrain, Eval, SFT, MLLM, Debug, Other), "
        "found 'Pretraining'");
}

TEST_CASE("a parameter of the wrong type is an error naming its place") {
  CHECK(scheduler_error(kBase + "scheduler: {name: las, restart_overhead_s: soon}\n") ==
        "dir/x.yaml:3:44: scheduler.restart_overhead_s: expected a number in [0, 315360000], found 'soon'");
  CHECK(scheduler_error(kBase + "scheduler: {name: las, thresholds_gpu_s: 800}\n") ==
        "dir/x.yaml:3:42: scheduler.thresholds_gpu_s: expected a list of numbers > 0, found '800'");
  CHECK(scheduler_error(kBase + "scheduler: {name: acme, preemption: maybe}\n") ==
        "dir/x.yaml:3:37: scheduler.preemption: expected true or false, found 'maybe'");
  CHECK(scheduler_error(kBase + "scheduler: {name: easy-backfill, estimate: guess}\n") ==
        "dir/x.yaml:3:44: scheduler.estimate: expected one of exact, factor, type_limit, found 'guess'");
  CHECK(scheduler_error(kBase + "scheduler: {name: acme}\n", {"scheduler.max_job_test=1.5"}) ==
        "--set scheduler.max_job_test: scheduler.max_job_test: expected a whole number >= 1, found '1.5'");
}

TEST_CASE("parameter text becomes the numbers and flags yaml-cpp's as<T>() gave") {
  const auto args = [](const std::string& text) {
    return policy_from_text("scheduler", "{name: p, v: " + text + "}", "<test>", 1);
  };
  for (const char* text : {"60", "-0.5", "1e3", "6.5e-3", "0.1", "1209604", "+2", ".5", "7.", ".inf", "-.Inf", "010"}) {
    INFO(text);
    CHECK(args(text).number("v", 0, Range{}, "") == YAML::Load(text).as<double>());
  }
  for (const char* text : {"500", "0x10", "010", "-3", "+7"}) {
    INFO(text);
    CHECK(args(text).whole("v", 0, Range{}, "") == YAML::Load(text).as<int>());
  }
  for (const char* text : {"true", "False", "YES", "no", "on", "Off", "y", "N"}) {
    INFO(text);
    CHECK(args(text).flag("v", false, "") == YAML::Load(text).as<bool>());
  }
  for (const char* text : {"'1.5x'", "[1]", "1.5"}) {
    INFO(text);
    CHECK_THROWS_AS(args(text).whole("v", 0, Range{}, ""), InputError);
  }
  CHECK_THROWS_AS(args("tRue").flag("v", false, ""), InputError);
}
