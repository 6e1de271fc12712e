// `acmesim policies`: every policy of every slot with its one-line summary.
#include <fmt/format.h>

#include "app/command.hpp"

namespace acmesim::app {

namespace {

void list_policies(const Catalog& catalog) {
  const auto print = [](const auto& registry) {
    fmt::print("{}:\n", registry.slot());
    for (const auto& e : registry.entries()) fmt::print("  {:<22} {}\n", e.name, e.summary);
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
  CLI::App* cmd = app.add_subcommand("policies", "List every policy by slot with a one-line summary");
  cmd->callback([&context] { list_policies(context.catalog); });
}

}  // namespace acmesim::app
