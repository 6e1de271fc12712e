// `acmesim policies`: every policy of every slot with its one-line summary.
#include <fmt/format.h>

#include <memory>

#include "app/command.hpp"

namespace acmesim::app {

namespace {

/// `params`: each policy's parameters too, with type, default, valid range and help.
void list_policies(const Catalog& catalog, bool params) {
  const auto print = [params](const auto& registry) {
    fmt::print("{}:\n", registry.slot());
    for (const auto& e : registry.entries()) {
      fmt::print("  {:<22} {}\n", e.name, e.summary);
      if (!params) continue;
      for (const ParamInfo& p : registry.parameters(e.name)) {
        fmt::print("      {:<24} {}, default {}{}{}: {}\n", p.key, p.type, p.fallback, p.range.empty() ? "" : ", ",
                   p.range, p.help);
      }
    }
  };
  print(catalog.schedulers);
  print(catalog.placements);
  print(catalog.evaluations);
  print(catalog.outcomes);
  print(catalog.failures);
  print(catalog.recoveries);
}

}  // namespace

void add_policies(CLI::App& app, Context& context) {
  auto params = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("policies", "List every policy by slot with a one-line summary");
  cmd->add_flag("--params", *params, "Also list each policy's parameters: type, default, valid range, help");
  add_log_options(*cmd, context.log);
  cmd->callback([params, &context] { list_policies(context.catalog, *params); });
}

}  // namespace acmesim::app
