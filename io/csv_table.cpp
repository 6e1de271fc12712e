// The TableReader of policies' CSV files (failures `replay`), with the CSV reader of traces.
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "io/csv_reader.hpp"
#include "io/policy_yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

std::string resolve_table_path(const std::string& written, const std::string& origin) {
  namespace fs = std::filesystem;
  const fs::path file(written);
  return (file.is_absolute() || origin.empty() ? file : fs::path(origin).parent_path() / file)
      .lexically_normal()
      .string();
}

namespace {

class CsvTableReader final : public TableReader {
 public:
  Table read(const std::string& written, const std::string& origin,
             const std::vector<std::string>& columns) const override {
    const std::string path = resolve_table_path(written, origin);
    if (columns.empty()) throw std::logic_error("CsvTableReader: asked for no column");
    Table table;
    table.path = path;
    table.columns = columns;
    csv::CsvReader reader{path, "file", csv::CsvReader::BlankLines::Skip};
    if (!reader.next_line()) {
      throw input_error(place(path, 1, 1), "header", fmt::format("'{}'", fmt::join(columns, ",")), "an empty file");
    }
    const std::vector<std::string_view> wanted(columns.begin(), columns.end());
    const csv::HeaderMap header = csv::map_header(reader.cells(), wanted);
    if (!header.duplicated.empty()) {
      throw input_error(place(path, 1), "header", "each column once", fmt::format("'{}' twice", header.duplicated));
    }
    for (std::size_t c = 0; c < columns.size(); ++c) table.present.push_back(header.has(c));
    while (reader.next_line()) {
      const auto cells = reader.cells();
      if (const std::string_view problem = csv::shape_problem(reader, header); !problem.empty()) {
        throw input_error(place(path, reader.line()), "row", "one value per header column", problem);
      }
      Table::Row row;
      row.line = reader.line();
      for (std::size_t c = 0; c < columns.size(); ++c) {
        row.cells.emplace_back(header.has(c) ? cells[static_cast<std::size_t>(header.index[c])] : std::string_view{});
      }
      table.rows.push_back(std::move(row));
    }
    return table;
  }
};

}  // namespace

std::shared_ptr<const TableReader> csv_table_reader() { return std::make_shared<const CsvTableReader>(); }

}  // namespace acmesim
