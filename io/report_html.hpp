#pragma once
/// The report page of `acmesim report` as value types, and its writer: one self-contained HTML
/// file, charts drawn in the browser by Vega (Debian's libjs-vega, inlined when the page is
/// written: the page loads nothing over the network). Each chart becomes a Vega spec (JSON, its
/// data inline). The page's own script renders every chart with the SVG renderer and records on
/// <body> whether all went well: data-report-status="ok" and data-charts="N" once every chart has
/// drawn at least one data mark, else "error: ..." (a script error, a Vega error or warning, or a
/// chart that drew nothing), which tests read back from a headless browser (docs/design.md).
#include <optional>
#include <string>
#include <vector>

#include "io/run_dir.hpp"

namespace acmesim {

/// Lines (with an optional confidence band), bars stacked by series, or bars grouped by series.
enum class ChartKind : std::uint8_t { Lines, StackedBars, GroupedBars };
enum class AxisScale : std::uint8_t { Linear, Log, Categorical };

/// One datum: a point of a line (x, or `category` on a categorical axis) or a bar (`category`).
struct ChartRow {
  std::string series;
  double x = 0;
  std::string category;
  double y = 0;
  std::optional<double> low;  // a band around y (a confidence interval), where there is one
  std::optional<double> high;
};

struct ChartSeries {
  std::string name;
  std::string colour;  // CSS colour
};

struct Chart {
  std::string title;
  std::string caption;  // a sentence under the chart: what is drawn and how
  ChartKind kind = ChartKind::Lines;
  std::string x_title;
  std::string y_title;
  AxisScale x_scale = AxisScale::Linear;
  std::vector<std::string> categories;  // the categorical axis' values in order
  std::vector<ChartSeries> series;      // legend order and colours
  std::vector<ChartRow> rows;
  /// Points drawn as open circles over the lines, coloured by series (a reference's points).
  std::vector<ChartRow> markers;
  std::string markers_label;    // their legend entry
  std::optional<double> y_max;  // a fixed top of the y axis (100 for percentages)
  bool y_from_zero = true;      // false: the y axis spans the data (small differences of large values)
  bool y_percent_format = false;
};

/// A table; the first `label_columns` columns are text, the others numbers (right-aligned).
struct ReportTable {
  std::string caption;
  std::vector<std::string> header;
  struct Row {
    std::vector<std::string> cells;
    bool emphasis = false;  // a total row
  };
  std::vector<Row> rows;
  std::size_t label_columns = 1;
};

struct Section {
  std::string title;
  std::vector<std::string> notes;  // paragraphs of plain text
  std::vector<Chart> charts;
  std::vector<ReportTable> tables;
  std::vector<KeyValueTree> trees;  // shown as nested key/value tables
  bool tables_first = false;        // tables above the charts (a summary of what they show)
};

struct ReportPage {
  std::string title;
  std::string subtitle;
  std::vector<Section> sections;
};

/// Chart `index` of a page as a Vega spec (JSON text), its data inline. Numbers are written to
/// 5 significant digits: a chart needs no more, and the page stays small.
std::string vega_spec(const Chart& chart);

/// The Vega library as one script: `path` is Debian's folder of Vega modules
/// (/usr/share/javascript/vega, whose modules are tied together here in dependency order) or one
/// bundled vega(.min).js. InputError naming the path when it is missing or incomplete.
std::string load_vega_library(const std::string& path);
/// Where Debian's libjs-vega puts the library.
inline constexpr const char* kDebianVegaPath = "/usr/share/javascript/vega";

/// The whole page: styles, the Vega library, every chart's spec and the script that renders them.
std::string report_html(const ReportPage& page, const std::string& vega_library);

/// Writes `html` to `path` through OutputFile (a temporary file renamed into place).
void write_report_file(const std::string& path, const std::string& html);

}  // namespace acmesim
