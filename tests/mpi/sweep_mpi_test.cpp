// Run by CTest as `mpiexec -n 2 acmesim_mpi_tests`: a sweep whose runs rank 0 hands out to both
// ranks writes, byte for byte, the results.csv of a one-process sweep, and both ranks do runs.
#include "tools/sweep_mpi.hpp"

#include <spdlog/sinks/null_sink.h>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "policies/catalog.hpp"
#include "tests/catch_runner.hpp"
#include "tests/support.hpp"
#include "tools/sweep.hpp"

namespace {

using namespace acmesim;
namespace fs = std::filesystem;
namespace mpi = boost::mpi;

}  // namespace

TEST_CASE("a sweep on two MPI ranks writes the same results.csv as one process, and both ranks run") {
  const mpi::communicator world;
  REQUIRE(world.size() == 2);
  std::string dir = world.rank() == 0 ? testing::scratch_dir().string() : std::string{};
  mpi::broadcast(world, dir, 0);  // one folder for both ranks: rank 0's
  const fs::path out = fs::path(dir) / "mpi-sweep";
  const Catalog catalog = builtin_catalog();
  SweepRuns runs{load_sweep(testing::kSource + "/configs/sweeps/smoke.yaml"), catalog};
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  if (world.rank() != 0) {
    runs.read_traces(runs.all_runs(), log);
    const std::size_t ran = serve_sweep_as_worker(world, runs, out.string(), 1);
    world.send(0, 99, ran);
    return;
  }
  fs::remove_all(out);
  SweepOptions options;
  options.out = out.string();
  options.threads = 1;
  const auto remote = mpi_remote_workers(world);
  const SweepReport report = run_sweep(runs, options, remote.get(), log);
  std::size_t ran_by_rank_1 = 0;
  world.recv(1, 99, ran_by_rank_1);
  CHECK(report.ran == 8);
  CHECK(ran_by_rank_1 > 0);
  CHECK(ran_by_rank_1 < 8);

  const fs::path alone = fs::path(dir) / "one-process-sweep";
  fs::remove_all(alone);
  options.out = alone.string();
  options.threads = 2;
  run_sweep(runs, options, nullptr, log);
  CHECK(testing::slurp(out / "results.csv") == testing::slurp(alone / "results.csv"));
  CHECK(!testing::slurp(out / "results.csv").empty());
}

int main(int argc, char** argv) {
  mpi::environment environment{argc, argv, mpi::threading::funneled};
  return acmesim::testing::run_catch_session(argc, argv);
}
