#include "io/report_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/output_file.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr int kChartWidth = 440;
constexpr int kChartHeight = 240;

/// `value` to 5 significant digits, so that its JSON text is short (0.30000000000000004 -> 0.3).
double rounded(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(std::fabs(value))));
  return std::round(value * scale) / scale;
}

Json rows_json(const std::vector<ChartRow>& rows, const Chart& chart) {
  Json values = Json::array();
  for (const ChartRow& row : rows) {
    Json datum;
    datum["s"] = row.series;
    if (chart.kind != ChartKind::Lines || chart.x_scale == AxisScale::Categorical) {
      datum["c"] = row.category;
    } else {
      datum["x"] = rounded(row.x);
    }
    datum["y"] = rounded(row.y);
    if (row.low && row.high) {
      datum["lo"] = rounded(*row.low);
      datum["hi"] = rounded(*row.high);
    }
    // The series' place in the legend: the order bars are stacked in.
    if (chart.kind == ChartKind::StackedBars) {
      for (std::size_t i = 0; i < chart.series.size(); ++i) {
        if (chart.series[i].name == row.series) datum["o"] = i;
      }
    }
    values.push_back(std::move(datum));
  }
  return values;
}

Json colour_scale(const Chart& chart) {
  Json domain = Json::array();
  Json range = Json::array();
  for (const ChartSeries& s : chart.series) {
    domain.push_back(s.name);
    range.push_back(s.colour);
  }
  return {{"name", "colour"}, {"type", "ordinal"}, {"domain", domain}, {"range", range}};
}

Json y_axis(const Chart& chart) {
  Json axis = {{"orient", "left"}, {"scale", "y"}, {"title", chart.y_title}, {"grid", true}, {"tickCount", 6}};
  if (chart.y_percent_format) axis["format"] = "~r";
  return axis;
}

/// The powers of ten from below the smallest positive x of a chart to above its largest.
Json log_ticks(const Chart& chart) {
  double low = 0, high = 0;
  for (const auto* rows : {&chart.rows, &chart.markers}) {
    for (const ChartRow& row : *rows) {
      if (row.x <= 0) continue;
      low = low > 0 ? std::min(low, row.x) : row.x;
      high = std::max(high, row.x);
    }
  }
  Json ticks = Json::array();
  if (low <= 0) return ticks;
  for (int power = static_cast<int>(std::floor(std::log10(low)));
       power <= static_cast<int>(std::ceil(std::log10(high))); ++power) {
    ticks.push_back(std::pow(10.0, power));
  }
  return ticks;
}

Json x_axis(const Chart& chart) {
  Json axis = {{"orient", "bottom"}, {"scale", "x"}, {"title", chart.x_title}, {"labelOverlap", true}};
  if (chart.kind == ChartKind::Lines && chart.x_scale != AxisScale::Categorical) axis["grid"] = true;
  // A log axis labels (and grids) the powers of ten only, as 1, 10, 100, 1k, 10k, ...: its default
  // ticks at 2, 3, ... 9 of each decade crowd a chart of six decades.
  if (chart.x_scale == AxisScale::Log) {
    axis["format"] = "~s";
    axis["values"] = log_ticks(chart);
  }
  if (chart.kind != ChartKind::Lines || chart.x_scale == AxisScale::Categorical) {
    axis["labelAngle"] = chart.categories.size() > 8 ? -30 : 0;
    axis["labelAlign"] = chart.categories.size() > 8 ? "right" : "center";
    axis["labelLimit"] = 160;
  }
  return axis;
}

Json legends(const Chart& chart, const char* channel) {
  Json list = Json::array();
  if (chart.series.size() > 1) {
    Json legend = {{channel, "colour"}, {"orient", "right"}, {"labelLimit", 150}};
    // A line's legend entry is a short line, a bar's a square.
    if (chart.kind == ChartKind::Lines) legend["symbolType"] = "stroke", legend["symbolStrokeWidth"] = 2;
    if (chart.kind != ChartKind::Lines) legend["symbolType"] = "square";
    list.push_back(std::move(legend));
  }
  if (!chart.markers.empty()) {
    list.push_back({{"shape", "marker"},
                    {"orient", "right"},
                    {"symbolFillColor", "white"},
                    {"symbolStrokeColor", "#444"},
                    {"labelLimit", 150}});
  }
  return list;
}

Json y_scale(const Chart& chart, Json domain) {
  Json scale = {{"name", "y"}, {"type", "linear"}, {"range", "height"}, {"nice", true}, {"zero", chart.y_from_zero}};
  if (chart.y_max) {
    scale["domain"] = {0, *chart.y_max};
  } else {
    scale["domain"] = std::move(domain);
  }
  return scale;
}

/// A group that draws `mark` once per series of the data set `data` (Vega's facet): a line or a
/// band is one mark per series, or Vega would join the series into one.
Json per_series(const std::string& data, Json mark) {
  const std::string facet = data + "_of_series";
  mark["from"] = {{"data", facet}};
  return {{"type", "group"},
          {"from", {{"facet", {{"name", facet}, {"data", data}, {"groupby", "s"}}}}},
          {"marks", Json::array({std::move(mark)})}};
}

Json lines_spec(const Chart& chart) {
  const bool categorical = chart.x_scale == AxisScale::Categorical;
  const char* x_field = categorical ? "c" : "x";
  Json data = Json::array();
  data.push_back({{"name", "rows"}, {"values", rows_json(chart.rows, chart)}});
  data.push_back({{"name", "band"},
                  {"source", "rows"},
                  {"transform", Json::array({{{"type", "filter"}, {"expr", "isValid(datum.lo)"}}})}});
  data.push_back({{"name", "markers"}, {"values", rows_json(chart.markers, chart)}});

  Json x_domain;
  if (categorical) {
    x_domain = chart.categories;
  } else {
    Json fields = Json::array({{{"data", "rows"}, {"field", "x"}}});
    if (!chart.markers.empty()) fields.push_back({{"data", "markers"}, {"field", "x"}});
    x_domain = {{"fields", fields}};
  }
  Json x_scale = {{"name", "x"}, {"domain", x_domain}, {"range", "width"}};
  if (categorical) {
    x_scale["type"] = "point";
    x_scale["padding"] = 0.5;
  } else {
    x_scale["type"] = chart.x_scale == AxisScale::Log ? "log" : "linear";
    x_scale["zero"] = false;
    x_scale["nice"] = chart.x_scale == AxisScale::Log;
  }
  Json y_fields = Json::array({{{"data", "rows"}, {"field", "y"}}});
  if (std::any_of(chart.rows.begin(), chart.rows.end(), [](const ChartRow& r) { return r.low.has_value(); })) {
    y_fields.push_back({{"data", "band"}, {"field", "lo"}});
    y_fields.push_back({{"data", "band"}, {"field", "hi"}});
  }
  if (!chart.markers.empty()) y_fields.push_back({{"data", "markers"}, {"field", "y"}});

  Json scales = Json::array({x_scale, y_scale(chart, {{"fields", y_fields}}), colour_scale(chart)});
  if (!chart.markers.empty()) {
    scales.push_back({{"name", "marker"},
                      {"type", "ordinal"},
                      {"domain", Json::array({chart.markers_label})},
                      {"range", Json::array({"circle"})}});
  }
  const Json x = {{"scale", "x"}, {"field", x_field}};
  const Json y = {{"scale", "y"}, {"field", "y"}};
  const Json colour = {{"scale", "colour"}, {"field", "s"}};
  Json marks = Json::array();
  marks.push_back(per_series("band", {{"type", "area"},
                                      {"encode",
                                       {{"enter",
                                         {{"x", x},
                                          {"y", {{"scale", "y"}, {"field", "lo"}}},
                                          {"y2", {{"scale", "y"}, {"field", "hi"}}},
                                          {"fill", colour},
                                          {"fillOpacity", {{"value", 0.18}}}}}}}}));
  marks.push_back(per_series("rows", {{"type", "line"},
                                      {"encode",
                                       {{"enter",
                                         {{"x", x},
                                          {"y", y},
                                          {"stroke", colour},
                                          {"strokeWidth", {{"value", 1.6}}},
                                          {"strokeJoin", {{"value", "round"}}}}}}}}));
  if (categorical) {
    // Points on a categorical axis: a line alone would hide a series of one value.
    marks.push_back({{"type", "symbol"},
                     {"from", {{"data", "rows"}}},
                     {"encode", {{"enter", {{"x", x}, {"y", y}, {"fill", colour}, {"size", {{"value", 36}}}}}}}});
  }
  if (!chart.markers.empty()) {
    marks.push_back({{"type", "symbol"},
                     {"from", {{"data", "markers"}}},
                     {"encode",
                      {{"enter",
                        {{"x", x},
                         {"y", y},
                         {"stroke", colour},
                         {"fill", {{"value", "white"}}},
                         {"strokeWidth", {{"value", 1.4}}},
                         {"size", {{"value", 28}}},
                         {"tooltip", {{"signal", "datum.s + ': ' + format(datum.y, '.1f') + '% at ' + datum.x"}}}}}}}});
  }
  return {{"data", data},
          {"scales", scales},
          {"axes", Json::array({x_axis(chart), y_axis(chart)})},
          {"legends", legends(chart, "stroke")},
          {"marks", marks}};
}

Json bars_spec(const Chart& chart) {
  const bool stacked = chart.kind == ChartKind::StackedBars;
  Json rows = {{"name", "rows"}, {"values", rows_json(chart.rows, chart)}};
  if (stacked) {
    rows["transform"] =
        Json::array({{{"type", "stack"}, {"groupby", Json::array({"c"})}, {"field", "y"}, {"sort", {{"field", "o"}}}}});
  }
  Json series_names = Json::array();
  for (const ChartSeries& s : chart.series) series_names.push_back(s.name);
  const Json x_scale = {{"name", "x"},      {"type", "band"},      {"domain", chart.categories},
                        {"range", "width"}, {"paddingInner", 0.2}, {"paddingOuter", 0.1}};
  const Json y_domain = {{"data", "rows"}, {"field", stacked ? "y1" : "y"}};
  // One bar: across the band of `band_scale` at `x_field`, from `y_low` to `y_high`, coloured by series.
  const auto bar = [](const char* data, const char* band_scale, const char* x_field, Json y_low, Json y_high) {
    return Json{{"type", "rect"},
                {"from", {{"data", data}}},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", band_scale}, {"field", x_field}}},
                    {"width", {{"scale", band_scale}, {"band", 1}}},
                    {"y", std::move(y_high)},
                    {"y2", std::move(y_low)},
                    {"fill", {{"scale", "colour"}, {"field", "s"}}},
                    {"tooltip", {{"signal", "datum.c + ', ' + datum.s + ': ' + format(datum.y, ',.4~r')"}}}}}}}};
  };
  Json marks = Json::array();
  if (stacked) {
    marks.push_back(bar("rows", "x", "c", {{"scale", "y"}, {"field", "y0"}}, {{"scale", "y"}, {"field", "y1"}}));
  } else {
    // Bars side by side within a category: a group per category, a band scale of the series in it.
    marks.push_back({{"type", "group"},
                     {"from", {{"facet", {{"name", "facet"}, {"data", "rows"}, {"groupby", "c"}}}}},
                     {"encode", {{"enter", {{"x", {{"scale", "x"}, {"field", "c"}}}}}}},
                     {"signals", Json::array({{{"name", "width"}, {"update", "bandwidth('x')"}}})},
                     {"scales", Json::array({{{"name", "position"},
                                              {"type", "band"},
                                              {"range", "width"},
                                              {"domain", series_names},
                                              {"paddingInner", 0.08}}})},
                     {"marks", Json::array({bar("facet", "position", "s", {{"scale", "y"}, {"value", 0}},
                                                {{"scale", "y"}, {"field", "y"}})})}});
  }
  return {{"data", Json::array({rows})},
          {"scales", Json::array({x_scale, y_scale(chart, y_domain), colour_scale(chart)})},
          {"axes", Json::array({x_axis(chart), y_axis(chart)})},
          {"legends", legends(chart, "fill")},
          {"marks", marks}};
}

Json spec_json(const Chart& chart) {
  Json spec = {{"description", chart.title},
               {"width", kChartWidth},
               {"height", kChartHeight},
               {"padding", 5},
               {"autosize", "pad"}};
  const Json body = chart.kind == ChartKind::Lines ? lines_spec(chart) : bars_spec(chart);
  for (const auto& [key, value] : body.items()) spec[key] = value;
  return spec;
}

std::string json_text(const Json& json) {
  // Invalid UTF-8 in a name (a path in another encoding) becomes U+FFFD, never an abort.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// JSON text safe inside a <script> element: "</" could close it early (JSON allows "<\/").
std::string json_in_script(std::string text) {
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) {
    text.replace(at, 2, "<\\/");
  }
  return text;
}

/// Script text safe inside a <script> element: only "</script" (any case) ends it early, and
/// "<\/script" means the same in a string, template or regular expression. (Every "</" would be
/// too many: in a regular expression like /</g the backslash would escape its closing slash.)
std::string script_in_script(std::string text) {
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 2)) {
    std::string tag = text.substr(at + 2, 6);
    std::transform(tag.begin(), tag.end(), tag.begin(), [](unsigned char c) { return std::tolower(c); });
    if (tag == "script") text.replace(at, 2, "<\\/");
  }
  return text;
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A module's text without its source-map comment (the map is not inlined: the page loads nothing).
std::string without_source_map(std::string text) {
  const std::size_t at = text.rfind("//# sourceMappingURL=");
  if (at != std::string::npos) text.erase(at);
  return text;
}

/// Debian's libjs-vega: one UMD file per Vega package. Those a report needs (no geo, force,
/// hierarchy, label, voronoi, wordcloud, regression or crossfilter transforms), in dependency
/// order, each with the name other modules require it by.
struct VegaModule {
  const char* name;
  const char* file;
};
constexpr VegaModule kVegaModules[] = {
    {"vega-util", "vega-util"},
    {"vega-time", "vega-time"},
    {"vega-format", "vega-format"},
    {"vega-loader", "vega-loader"},
    {"vega-dataflow", "vega-dataflow"},
    {"vega-scale", "vega-scale"},
    {"vega-canvas", "vega-canvas"},
    {"vega-scenegraph", "vega-scenegraph"},
    {"vega-expression", "vega-expression"},
    {"vega-selections", "vega-selection"},  // required as vega-selections, shipped as vega-selection
    {"vega-statistics", "vega-statistics"},
    {"vega-functions", "vega-functions"},
    {"vega-runtime", "vega-runtime"},
    {"vega-event-selector", "vega-event-selector"},
    {"vega-parser", "vega-parser"},
    {"vega-view", "vega-view"},
    {"vega-transforms", "vega-transforms"},
    {"vega-encode", "vega-encode"},
    {"vega-view-transforms", "vega-view-transforms"},
};

std::string vega_from_modules(const fs::path& dir, const std::string& shown) {
  // Each UMD module takes its CommonJS branch: it is given `module`, `exports` and a `require`
  // that returns the modules loaded before it. (Their browser-global branch would not do: each
  // module replaces window.vega with its own exports.)
  std::string script =
      "var acmesimVegaModules = {};\n"
      "function acmesimVegaRequire(name) {\n"
      "  var loaded = acmesimVegaModules[name];\n"
      "  if (!loaded) throw new Error('the Vega module ' + name + ' is not loaded');\n"
      "  return loaded;\n"
      "}\n";
  for (const VegaModule& module : kVegaModules) {
    const fs::path file = dir / (std::string(module.file) + ".min.js");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      throw input_error(shown, "--vega",
                        "Debian's libjs-vega folder of Vega modules (install libjs-vega) or one bundled vega.min.js",
                        fmt::format("a folder without {}", file.filename().string()));
    }
    script += fmt::format(
        "(function () {{\nvar module = {{exports: {{}}}}, exports = module.exports, require = acmesimVegaRequire;\n{}\n"
        ";acmesimVegaModules['{}'] = module.exports;\n}})();\n",
        without_source_map(read_whole(file)), module.name);
  }
  // What the `vega` package's index does: one namespace, and the transforms registered.
  script += "var vega = Object.assign({}";
  for (const VegaModule& module : kVegaModules) script += fmt::format(", acmesimVegaModules['{}']", module.name);
  script +=
      ");\nObject.assign(acmesimVegaModules['vega-dataflow'].transforms, acmesimVegaModules['vega-transforms'],\n"
      "  acmesimVegaModules['vega-view-transforms'], acmesimVegaModules['vega-encode']);\n";
  return script;
}

void tree_html(const KeyValueTree& tree, std::string& out) {
  out += "<table class=\"kv\">";
  for (const KeyValueTree& child : tree.children) {
    out += fmt::format("<tr><th>{}</th><td>", escape_html(child.key));
    if (child.children.empty()) {
      out += escape_html(child.value);
    } else {
      tree_html(child, out);
    }
    out += "</td></tr>";
  }
  out += "</table>";
}

void table_html(const ReportTable& table, std::string& out) {
  out += "<table class=\"data\">";
  if (!table.caption.empty()) out += fmt::format("<caption>{}</caption>", escape_html(table.caption));
  out += "<thead><tr>";
  for (const std::string& cell : table.header) out += fmt::format("<th>{}</th>", escape_html(cell));
  out += "</tr></thead><tbody>";
  for (const ReportTable::Row& row : table.rows) {
    out += row.emphasis ? "<tr class=\"total\">" : "<tr>";
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      out += fmt::format("<td{}>{}</td>", c < table.label_columns ? "" : " class=\"num\"", escape_html(row.cells[c]));
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
}

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 24px 32px; max-width: 1340px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 14px; margin: 0 0 4px; }
p.subtitle { color: #555; margin: 0 0 16px; }
p.note { color: #444; max-width: 1100px; }
.charts { display: flex; flex-wrap: wrap; gap: 20px 28px; }
figure { margin: 0; width: 650px; }
figcaption { color: #555; font-size: 12.5px; margin-top: 2px; }
table { border-collapse: collapse; font-size: 13px; }
table.data { margin: 12px 0 20px; }
table.data caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
table.data th, table.data td { border-bottom: 1px solid #e4e4e4; padding: 3px 10px; text-align: left; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data tr.total td { font-weight: 600; background: #f6f6f6; }
table.kv { margin: 2px 0; }
table.kv th { text-align: left; font-weight: 500; color: #555; padding: 2px 12px 2px 0; vertical-align: top; white-space: nowrap; }
table.kv td { padding: 2px 0; word-break: break-all; }
table.kv table.kv { border-left: 2px solid #e8e8e8; padding-left: 8px; }
.trees { display: flex; flex-wrap: wrap; gap: 12px 48px; align-items: flex-start; }
)css";

/// The page's script: renders every chart, then says on <body> whether all went well.
constexpr const char* kRenderScript = R"js(
(function () {
  "use strict";
  var body = document.body;
  function fail(message) {
    if (String(body.dataset.reportStatus || "").indexOf("error") !== 0) body.dataset.reportStatus = "error: " + message;
  }
  // Marks that show data (not axes, legends or frames): a chart with none of them drew nothing.
  var dataMarks = { line: 1, area: 1, rect: 1, symbol: 1 };
  function drewData(mark) {
    if (mark.role === "mark" && dataMarks[mark.marktype] && mark.items && mark.items.length > 0) return true;
    var items = mark.items || [];
    for (var i = 0; i < items.length; ++i) {
      var children = items[i].items || [];
      for (var j = 0; j < children.length; ++j) if (drewData(children[j])) return true;
    }
    return false;
  }
  async function render() {
    if (typeof vega === "undefined") throw new Error("the Vega library did not load");
    var charts = JSON.parse(document.getElementById("report-charts").textContent);
    // Vega's errors and warnings (a bad spec, an infinite extent) fail the page.
    var logger = {
      _level: vega.Warn,
      level: function (l) { if (arguments.length) { this._level = l; return this; } return this._level; },
      error: function () { fail("vega: " + Array.prototype.map.call(arguments, String).join(" ")); return this; },
      warn: function () { fail("vega warning: " + Array.prototype.map.call(arguments, String).join(" ")); return this; },
      info: function () { return this; },
      debug: function () { return this; }
    };
    var drawn = 0;
    for (var i = 0; i < charts.length; ++i) {
      var chart = charts[i];
      var view = new vega.View(vega.parse(chart.spec), { renderer: "svg", container: "#" + chart.id, hover: true, logger: logger });
      await view.runAsync();
      if (view.data("rows").length === 0 || !drewData(view.scenegraph().root)) {
        fail("chart " + JSON.stringify(chart.title) + " is empty");
        return;
      }
      ++drawn;
    }
    if (String(body.dataset.reportStatus).indexOf("error") === 0) return;
    body.dataset.charts = String(drawn);
    body.dataset.reportStatus = "ok";
  }
  render().catch(function (e) { fail(e && e.message ? e.message : String(e)); });
})();
)js";

}  // namespace

std::string vega_spec(const Chart& chart) { return json_text(spec_json(chart)); }

std::string load_vega_library(const std::string& path) {
  const fs::path location{path};
  std::error_code ec;
  const fs::file_status status = fs::status(location, ec);
  if (fs::is_directory(status)) return vega_from_modules(location, path);
  if (fs::is_regular_file(status)) {
    std::string text = without_source_map(read_whole(location));
    if (text.find("vega") == std::string::npos) {
      throw input_error(path, "--vega", "the Vega library (a vega.min.js, or Debian's libjs-vega folder)",
                        text.substr(0, 80));
    }
    return text;
  }
  throw input_error(path, "--vega",
                    "the Vega library: Debian's libjs-vega (install libjs-vega: apt-get install libjs-vega) or "
                    "--vega PATH to a folder of its modules or a vega.min.js",
                    "no such file or directory");
}

std::string report_html(const ReportPage& page, const std::string& vega_library) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body data-report-status=\"loading\">\n",
      escape_html(page.title), kStyle);
  // First of all, so that an error anywhere after it (the library included) is recorded.
  out +=
      "<script>\nwindow.onerror = function (message) {\n"
      "  if (String(document.body.dataset.reportStatus).indexOf('error') !== 0)\n"
      "    document.body.dataset.reportStatus = 'error: ' + message;\n};\n"
      "window.addEventListener('unhandledrejection', function (e) {\n"
      "  document.body.dataset.reportStatus = 'error: ' + (e.reason && e.reason.message ? e.reason.message : "
      "e.reason);\n"
      "});\n</script>\n";
  out +=
      fmt::format("<h1>{}</h1>\n<p class=\"subtitle\">{}</p>\n", escape_html(page.title), escape_html(page.subtitle));
  Json charts = Json::array();
  std::size_t chart_index = 0;
  for (const Section& section : page.sections) {
    out += fmt::format("<section>\n<h2>{}</h2>\n", escape_html(section.title));
    for (const std::string& note : section.notes) out += fmt::format("<p class=\"note\">{}</p>\n", escape_html(note));
    if (section.tables_first) {
      for (const ReportTable& table : section.tables) table_html(table, out);
    }
    if (!section.charts.empty()) {
      out += "<div class=\"charts\">\n";
      for (const Chart& chart : section.charts) {
        const std::string id = fmt::format("chart-{}", chart_index++);
        out += fmt::format(
            "<figure><h3>{}</h3><div class=\"chart\" id=\"{}\"></div><figcaption>{}</figcaption></figure>\n",
            escape_html(chart.title), id, escape_html(chart.caption));
        charts.push_back({{"id", id}, {"title", chart.title}, {"spec", spec_json(chart)}});
      }
      out += "</div>\n";
    }
    if (!section.tables_first) {
      for (const ReportTable& table : section.tables) table_html(table, out);
    }
    if (!section.trees.empty()) {
      out += "<div class=\"trees\">\n";
      for (const KeyValueTree& tree : section.trees) {
        out += fmt::format("<div><h3>{}</h3>", escape_html(tree.key));
        tree_html(tree, out);
        out += "</div>\n";
      }
      out += "</div>\n";
    }
    out += "</section>\n";
  }
  out += "<script>\n" + script_in_script(vega_library) + "\n</script>\n";
  out += "<script type=\"application/json\" id=\"report-charts\">" + json_in_script(json_text(charts)) + "</script>\n";
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kRenderScript);
  return out;
}

void write_report_file(const std::string& path, const std::string& html) {
  OutputFile file{path};
  file.write(html);
  file.close();
}

}  // namespace acmesim
