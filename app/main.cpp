// acmesim: the command line. Each command lives in its own file (app/command.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "app/command.hpp"
#include "io/outputs.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"

#ifndef ACMESIM_CONFIG_DIR
#define ACMESIM_CONFIG_DIR "configs"
#endif

int main(int argc, char** argv) {
  using namespace acmesim;
  const Catalog catalog = builtin_catalog();
  app::Context context{catalog, ACMESIM_CONFIG_DIR, std::string(ACMESIM_CONFIG_DIR) + "/default.yaml"};
  CLI::App cli{
      "acmesim: a discrete-event simulator of LLM-development GPU datacenters (the Acme clusters of "
      "Hu et al., NSDI'24)"};
  cli.require_subcommand(1);
  cli.set_version_flag("--version", acmesim_version());
  app::add_run(cli, context);
  app::add_compare(cli, context);
  app::add_policies(cli, context);
  app::add_stats(cli, context);
  app::add_synth(cli, context);
  app::add_failures(cli, context);
  app::add_eval_bench(cli, context);
  app::add_eval_cluster(cli, context);
  try {
    cli.parse(argc, argv);  // runs the chosen command's callback
    return context.exit_code;
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a wrong command line is bad input like any other.
    return cli.exit(e) == 0 ? 0 : 2;
  } catch (const InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const SimulationError& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "internal error: unexpected exception: {} (please report it with the command line)\n", e.what());
    return 3;
  } catch (...) {
    fmt::print(stderr, "internal error: unknown exception (please report it with the command line)\n");
    return 3;
  }
}
