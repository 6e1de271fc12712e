#pragma once
/// A sweep across the ranks of an MPI job (`mpirun -np K acmesim sweep ...`, or `srun`), with
/// Boost.MPI. Rank 0 holds the journal and the queue of runs, longest first; every other rank
/// asks it for one run per idle thread, runs it and sends back its row, which rank 0 commits to
/// the journal. Assignment is dynamic, so ranks finish together however much runs differ in
/// length; a run is handed out once, and results.csv is written by rank 0 alone, the same file as
/// a one-process sweep's. Only the main thread of a rank calls MPI (MPI_THREAD_FUNNELED).
#include <boost/mpi/communicator.hpp>
#include <memory>
#include <string>

#include "tools/sweep.hpp"

namespace acmesim {

/// Rank 0's view of the other ranks of `world`, for run_sweep().
std::unique_ptr<RemoteWorkers> mpi_remote_workers(const boost::mpi::communicator& world);

/// A rank other than 0: asks rank 0 for runs, `threads` at a time, until told to stop, and sends
/// back each run's row; returns how many it ran. A run that throws rethrows here (the caller
/// aborts the job).
std::size_t serve_sweep_as_worker(const boost::mpi::communicator& world, const SweepRuns& runs, const std::string& out,
                                  unsigned threads);

}  // namespace acmesim
