// acmesim: the command line. Each command lives in its own file (app/command.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "app/command.hpp"
#include "app/log.hpp"
#include "io/output_file.hpp"
#include "io/outputs.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"

#ifndef ACMESIM_CONFIG_DIR
#define ACMESIM_CONFIG_DIR "configs"
#endif

namespace {

/// CLI11 reads an unknown option as a positional argument when the command takes one, so
/// `run --sed 3` would report "File does not exist: 3". Checking every `--name` against the chosen
/// command's options first gives the error the user needs, with "did you mean" for a typo.
void reject_unknown_options(const CLI::App& cli, int argc, char** argv) {
  const CLI::App* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return;  // everything after it is positional
    if (command == nullptr) {
      if (arg.rfind("-", 0) == 0) continue;  // an option of acmesim itself (--help, --version)
      for (const CLI::App* sub : cli.get_subcommands({})) {
        if (sub->get_name() == arg) command = sub;
      }
      if (command == nullptr) {
        std::vector<std::string> commands;
        for (const CLI::App* sub : cli.get_subcommands({})) commands.push_back(sub->get_name());
        throw acmesim::unknown_name_error("acmesim", "command line", "command", commands, arg);
      }
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) continue;
    const std::string name = arg.substr(2, arg.find('=') - 2);
    std::vector<std::string> known;
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& long_name : option->get_lnames()) known.push_back(long_name);
    }
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    for (std::string& option : known) option = "--" + option;
    throw acmesim::unknown_name_error(fmt::format("acmesim {}", command->get_name()), "command line", "option", known,
                                      "--" + name);
  }
}

/// The name of the subcommand on the command line, or "" if none was recognised.
std::string chosen_command(const CLI::App& cli) {
  for (const CLI::App* sub : cli.get_subcommands()) return sub->get_name();
  return {};
}

/// Ctrl-C or a SIGTERM (Slurm's scancel, a timeout) stops a command at once: the temporary files
/// of outputs still being written are removed, outputs already complete stay, and the exit code
/// is 130. Only async-signal-safe calls here.
extern "C" void on_interrupt(int) {
  acmesim::remove_partial_outputs();
  constexpr char message[] = "\nacmesim: interrupted; no incomplete output was left\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(130);
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A closed pipe on stdout (`acmesim stats t.csv | head`) is an EPIPE write error handled in
  // main(), not a death by signal that would leave temporary files behind.
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace acmesim;
  const Catalog catalog = builtin_catalog();
  const std::shared_ptr<spdlog::logger> log = app::make_logger();
  app::Context context{catalog, ACMESIM_CONFIG_DIR, std::string(ACMESIM_CONFIG_DIR) + "/default.yaml", *log,
                       shell_command_line(argc, argv)};
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
  app::add_sweep(cli, context);
  app::add_report(cli, context);
  install_signal_handlers();
  try {
    reject_unknown_options(cli, argc, argv);
    cli.parse(argc, argv);  // runs the chosen command's callback
    return context.exit_code;
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a wrong command line is bad input like any other, worded so.
    if (e.get_exit_code() == 0) return cli.exit(e);
    const std::string command = chosen_command(cli);
    log->error("command line: {}\nRun 'acmesim {}--help' for the options.", e.what(),
               command.empty() ? command : command + " ");
    return 2;
  } catch (const InputError& e) {
    log->error("{}", e.what());
    return 2;
  } catch (const SimulationError& e) {
    log->critical("{}", e.what());
    return 3;
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder that cannot be created or read (a file where an output folder goes, no permission).
    log->error("{}: {}", e.path1().string(), e.code().message());
    return 2;
  } catch (const std::system_error& e) {
    // Printing to stdout failed (fmt throws system_error): the reader went away (`| head`), which
    // is no error of ours, or stdout is a full disk or a broken device, the user's environment.
    if (e.code() == std::errc::broken_pipe) return 0;
    log->error("{}", std::string_view{e.what()}.rfind("cannot write to file", 0) == 0
                         ? fmt::format("standard output: cannot write ({})", e.code().message())
                         : std::string{e.what()});
    return 2;
  } catch (const std::exception& e) {
    log->critical("unexpected exception: {} (please report it with the command line)", e.what());
    return 3;
  } catch (...) {
    log->critical("unknown exception (please report it with the command line)");
    return 3;
  }
}
