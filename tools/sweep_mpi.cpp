#include "tools/sweep_mpi.hpp"

#include <fmt/format.h>

#include <boost/mpi/status.hpp>
#include <boost/optional.hpp>
#include <boost/serialization/string.hpp>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace acmesim {

namespace {

namespace mpi = boost::mpi;

// Messages: a worker's request for one run, rank 0's answer (a run, or "" for no more), a row.
constexpr int kRequest = 1;
constexpr int kAssign = 2;
constexpr int kResult = 3;

std::string key_text(RunKey key) { return fmt::format("{} {}", key.point, key.seed); }

RunKey parse_key(std::string_view text) {
  RunKey key;
  const char* end = text.data() + text.size();
  const auto [mid, e1] = std::from_chars(text.data(), end, key.point);
  const auto [last, e2] = std::from_chars(mid + 1, end, key.seed);
  if (e1 != std::errc{} || e2 != std::errc{} || last != end) {
    throw std::logic_error(fmt::format("sweep over MPI: a malformed run '{}'", text));
  }
  return key;
}

class MpiRemoteWorkers final : public RemoteWorkers {
 public:
  explicit MpiRemoteWorkers(const mpi::communicator& world)
      : world_{world}, stopped_(static_cast<std::size_t>(world.size()), false) {}

  bool serve(const std::function<std::optional<RunKey>()>& take,
             const std::function<void(RunKey, std::string)>& done) override {
    bool any = false;
    // Only this protocol's tags: another message of the job (a caller's own) is not ours to take.
    while (const boost::optional<mpi::status> status = world_.iprobe(mpi::any_source, kRequest)) {
      any = true;
      const int source = status->source();
      int unused = 0;
      world_.recv(source, kRequest, unused);
      if (const std::optional<RunKey> key = take()) {
        world_.send(source, kAssign, key_text(*key));
        ++outstanding_;
      } else {
        world_.send(source, kAssign, std::string{});
        if (!stopped_[static_cast<std::size_t>(source)]) {
          stopped_[static_cast<std::size_t>(source)] = true;
          ++stopped_count_;
        }
      }
    }
    while (const boost::optional<mpi::status> status = world_.iprobe(mpi::any_source, kResult)) {
      any = true;
      std::string message;
      world_.recv(status->source(), kResult, message);
      const std::size_t tab = message.find('\t');
      --outstanding_;
      done(parse_key(std::string_view(message).substr(0, tab)), message.substr(tab + 1));
    }
    return any;
  }

  bool finished() const override {
    return stopped_count_ == static_cast<std::size_t>(world_.size() - 1) && outstanding_ == 0;
  }

 private:
  mpi::communicator world_;
  std::vector<bool> stopped_;  // per rank: told there is no more work
  std::size_t stopped_count_ = 0;
  std::size_t outstanding_ = 0;  // runs handed out, rows not yet back
};

}  // namespace

std::unique_ptr<RemoteWorkers> mpi_remote_workers(const mpi::communicator& world) {
  return std::make_unique<MpiRemoteWorkers>(world);
}

std::size_t serve_sweep_as_worker(const mpi::communicator& world, const SweepRuns& runs, const std::string& out,
                                  unsigned threads) {
  RunQueue local;
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::string> outbox;  // finished rows, sent by this (the MPI) thread
  RunPool pool{runs, out, threads, local, [&](RunKey key, std::string row) {
                 {
                   const std::lock_guard lock{mutex};
                   outbox.push_back(key_text(key) + "\t" + row);
                 }
                 ready.notify_one();
               }};
  std::size_t in_flight = 0;
  std::size_t ran = 0;
  bool no_more = false;
  for (;;) {
    while (!no_more && in_flight < threads) {
      world.send(0, kRequest, 0);
      std::string answer;
      world.recv(0, kAssign, answer);
      if (answer.empty()) {
        no_more = true;
        local.close();
      } else {
        local.push(parse_key(answer));
        ++in_flight;
      }
    }
    if (no_more && in_flight == 0) break;
    std::deque<std::string> rows;
    {
      std::unique_lock lock{mutex};
      ready.wait_for(lock, std::chrono::milliseconds(100), [&] { return !outbox.empty(); });
      rows.swap(outbox);
    }
    for (const std::string& row : rows) {
      world.send(0, kResult, row);
      --in_flight;
      ++ran;
    }
    if (pool.failed()) break;
  }
  pool.join();  // rethrows a run's error
  return ran;
}

}  // namespace acmesim
