// Failure model `replay`: node failures and repairs read from a CSV incident log.
//
//   time_s,node,event,reason
//   3600,12,fail,NVLinkError
//   9000,12,repair,
//
// time_s: seconds since the trace's first submission (SimTime 0 is that instant); node: GPU
// node index 0..nodes-1; event: fail or repair; reason: a Table 3 reason name (optional; a
// failure without one is a NodeFailure). Rows must be in time order. A failure of a node that is
// already down is counted and changes nothing; a repair of a node that is up is ignored.
// Errors name file:line, the column, what was expected and what was found.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

struct Row {
  double time_s;
  std::uint32_t node;
  bool up;
  FailureReason reason;
  std::size_t line;
};

class ReplayFailures final : public FailureModel {
 public:
  explicit ReplayFailures(const PolicyArgs& args) {
    const Table table = args.table("file", {"time_s", "node", "event", "reason"},
                                   "node failures and repairs, one per row; relative to the scenario's folder");
    path_ = table.path;
    read(table);
  }

  void start(const ClusterSpec& cluster, SimTime first) override {
    for (const Row& r : rows_) {
      if (r.node >= static_cast<std::uint32_t>(cluster.gpu_nodes)) {
        throw input_error(place(path_, static_cast<long>(r.line)), "column 'node'",
                          fmt::format("a GPU node index 0..{}", cluster.gpu_nodes - 1), std::to_string(r.node));
      }
    }
    first_ = first;
  }

  std::optional<NodeEvent> next() override {
    if (next_ == rows_.size()) return std::nullopt;
    const Row& r = rows_[next_++];
    return NodeEvent{first_ + from_seconds(r.time_s), NodeId{r.node}, r.up, r.reason};
  }

 private:
  void read(const Table& table) {
    if (table.path.empty()) return;  // describing the parameters only
    std::vector<std::string> missing;
    for (std::size_t c = 0; c < 3; ++c) {
      if (!table.present[c]) missing.push_back(table.columns[c]);
    }
    if (!missing.empty()) {
      throw input_error(place(table.path, 1), "header", "'time_s,node,event[,reason]'",
                        fmt::format("no column {}", fmt::join(missing, ", ")));
    }
    for (const Table::Row& cells : table.rows) {
      const auto bad = [&](std::size_t c, std::string_view expected) {
        throw input_error(place(table.path, static_cast<long>(cells.line)),
                          fmt::format("column '{}'", table.columns[c]), expected, cells.cells[c]);
      };
      Row row{};
      row.line = cells.line;
      {
        const std::string& c = cells.cells[0];
        double v = 0;
        const auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), v);
        if (ec != std::errc{} || p != c.data() + c.size() || !std::isfinite(v) || v < 0) {
          bad(0, "seconds >= 0 since the trace's first submission");
        }
        row.time_s = v;
      }
      {
        const std::string& c = cells.cells[1];
        const auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), row.node);
        if (ec != std::errc{} || p != c.data() + c.size()) bad(1, "a GPU node index (0, 1, ...)");
      }
      if (cells.cells[2] == "fail") {
        row.up = false;
      } else if (cells.cells[2] == "repair") {
        row.up = true;
      } else {
        bad(2, "'fail' or 'repair'");
      }
      row.reason = row.up ? FailureReason::None : FailureReason::NodeFailure;
      if (!cells.cells[3].empty()) {
        const auto reason = parse_failure_reason(cells.cells[3]);
        if (!reason) bad(3, "a failure reason such as NVLinkError, CUDAError, NodeFailure, ECCError, NetworkError");
        if (!row.up) row.reason = *reason;
      }
      if (!rows_.empty() && row.time_s < rows_.back().time_s)
        bad(0, "rows in time order (this one is earlier than the last)");
      rows_.push_back(row);
    }
    // At one instant, repairs come before failures (the engine's phase order).
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      if (a.time_s != b.time_s) return a.time_s < b.time_s;
      return a.up && !b.up;
    });
  }

  std::string path_;
  std::vector<Row> rows_;
  std::size_t next_ = 0;
  SimTime first_{};
};

}  // namespace

std::unique_ptr<FailureModel> make_replay_failures(const PolicyArgs& args) {
  return std::make_unique<ReplayFailures>(args);
}

}  // namespace acmesim::policies
