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
// Errors name file:line:column, the column, what was expected and what was found.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "policies/factories.hpp"

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
    const std::string file = args.get<std::string>("file", "");
    if (file.empty()) {
      throw InputError(fmt::format("{}: failures 'replay': key 'file': expected the path of a CSV of node events "
                                   "(time_s,node,event,reason), found nothing",
                                   args.where()));
    }
    namespace fs = std::filesystem;
    const std::string origin = args.where_file();
    const bool from_file = fs::path(origin).has_extension();
    path_ = (fs::path(file).is_absolute() || !from_file ? fs::path(file) : fs::path(origin).parent_path() / file)
                .lexically_normal()
                .string();
    read();
  }

  void start(const ClusterSpec& cluster, SimTime first) override {
    for (const Row& r : rows_) {
      if (r.node >= static_cast<std::uint32_t>(cluster.gpu_nodes)) {
        throw InputError(fmt::format("{}:{}:{}: column 'node': expected a GPU node index 0..{}, found '{}'", path_,
                                     r.line, node_column_, cluster.gpu_nodes - 1, r.node));
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
  void read() {
    std::ifstream in(path_);
    if (!in) throw InputError(fmt::format("{}: cannot open the node-event file (failures 'replay')", path_));
    std::string text;
    std::size_t line_no = 0;
    std::vector<std::string> header;
    while (std::getline(in, text)) {
      ++line_no;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (text.empty()) continue;
      std::vector<std::string> cells;
      std::vector<std::size_t> columns;  // 1-based character column where each cell starts
      std::size_t begin = 0;
      while (true) {
        const std::size_t comma = text.find(',', begin);
        cells.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        columns.push_back(begin + 1);
        if (comma == std::string::npos) break;
        begin = comma + 1;
      }
      if (header.empty()) {
        header = cells;
        const std::vector<std::string> expected{"time_s", "node", "event", "reason"};
        if (header.size() < 3 || !std::equal(header.begin(), header.begin() + 3, expected.begin()) ||
            (header.size() >= 4 && header[3] != "reason") || header.size() > 4) {
          throw InputError(fmt::format("{}:{}:1: header: expected 'time_s,node,event[,reason]', found '{}'", path_,
                                       line_no, text));
        }
        continue;
      }
      const auto bad = [&](std::size_t i, const char* what) {
        throw InputError(fmt::format("{}:{}:{}: column '{}': expected {}, found '{}'", path_, line_no,
                                     i < columns.size() ? columns[i] : text.size() + 1, header[std::min(i, header.size() - 1)],
                                     what, i < cells.size() ? cells[i] : std::string()));
      };
      if (cells.size() != header.size()) bad(std::min(cells.size(), header.size() - 1), "one value per header column");
      Row row{};
      row.line = line_no;
      {
        const std::string& c = cells[0];
        double v = 0;
        const auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), v);
        if (ec != std::errc{} || p != c.data() + c.size() || !std::isfinite(v) || v < 0) {
          bad(0, "seconds >= 0 since the trace's first submission");
        }
        row.time_s = v;
      }
      {
        const std::string& c = cells[1];
        const auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), row.node);
        if (ec != std::errc{} || p != c.data() + c.size()) bad(1, "a GPU node index (0, 1, ...)");
        node_column_ = columns[1];
      }
      if (cells[2] == "fail") {
        row.up = false;
      } else if (cells[2] == "repair") {
        row.up = true;
      } else {
        bad(2, "'fail' or 'repair'");
      }
      row.reason = row.up ? FailureReason::None : FailureReason::NodeFailure;
      if (cells.size() == 4 && !cells[3].empty()) {
        const auto reason = parse_failure_reason(cells[3]);
        if (!reason) bad(3, "a failure reason such as NVLinkError, CUDAError, NodeFailure, ECCError, NetworkError");
        if (!row.up) row.reason = *reason;
      }
      if (!rows_.empty() && row.time_s < rows_.back().time_s) bad(0, "rows in time order (this one is earlier than the last)");
      rows_.push_back(row);
    }
    if (header.empty()) throw InputError(fmt::format("{}:1:1: header: expected 'time_s,node,event[,reason]', found an empty file", path_));
    // At one instant, repairs come before failures (the engine's phase order).
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      if (a.time_s != b.time_s) return a.time_s < b.time_s;
      return a.up && !b.up;
    });
  }

  std::string path_;
  std::vector<Row> rows_;
  std::size_t next_ = 0;
  std::size_t node_column_ = 1;
  SimTime first_{};
};

}  // namespace

std::unique_ptr<FailureModel> make_replay_failures(const PolicyArgs& args) {
  return std::make_unique<ReplayFailures>(args);
}

}  // namespace acmesim::policies
