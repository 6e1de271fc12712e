// The TableReader of policies' CSV files (failures `replay`), with fccp as io/acme_trace.cpp.
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <stdexcept>
// fccp copies file names with strncpy into a fixed buffer; g++ 12 warns about that inside the
// package's header, not about our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "io/policy_yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

// fccp fixes the column count at compile time; policies ask for fewer, the rest are padded
// with names no header has.
constexpr std::size_t kMaxColumns = 8;
using Reader = io::CSVReader<kMaxColumns, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::empty_line_comment>;

class CsvTableReader final : public TableReader {
 public:
  Table read(const std::string& written, const std::string& origin,
             const std::vector<std::string>& columns) const override {
    // Relative to the folder of the file that names it; a path from the command line (origin
    // empty) resolves against the working directory.
    namespace fs = std::filesystem;
    const bool from_file = !origin.empty();
    const fs::path file(written);
    const std::string path =
        (file.is_absolute() || !from_file ? file : fs::path(origin).parent_path() / file).lexically_normal().string();
    if (columns.empty() || columns.size() > kMaxColumns) {
      throw std::logic_error(fmt::format("CsvTableReader: 1..{} columns, asked for {}", kMaxColumns, columns.size()));
    }
    std::array<std::string, kMaxColumns> names;
    for (std::size_t c = 0; c < kMaxColumns; ++c) names[c] = c < columns.size() ? columns[c] : fmt::format("\x1f{}", c);
    Table table;
    table.path = path;
    table.columns = columns;
    try {
      Reader reader(path);
      try {
        reader.read_header(io::ignore_extra_column | io::ignore_missing_column, names[0], names[1], names[2], names[3],
                           names[4], names[5], names[6], names[7]);
      } catch (const io::error::header_missing&) {
        throw input_error(place(path, 1, 1), "header", fmt::format("'{}'", fmt::join(columns, ",")), "an empty file");
      }
      for (const std::string& c : columns) table.present.push_back(reader.has_column(c));
      std::array<char*, kMaxColumns> cells{};
      for (;;) {
        cells.fill(nullptr);
        try {
          if (!reader.read_row(cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7])) break;
        } catch (const io::error::too_few_columns&) {
          throw input_error(place(path, reader.get_file_line()), "row", "one value per header column", "fewer");
        } catch (const io::error::too_many_columns&) {
          throw input_error(place(path, reader.get_file_line()), "row", "one value per header column", "more");
        }
        Table::Row row;
        row.line = reader.get_file_line();
        for (std::size_t c = 0; c < columns.size(); ++c) row.cells.emplace_back(cells[c] ? cells[c] : "");
        table.rows.push_back(std::move(row));
      }
    } catch (const io::error::can_not_open_file&) {
      throw InputError(fmt::format("{}: cannot open the file", path));
    } catch (const io::error::base& e) {
      throw InputError(fmt::format("{}: {}", path, e.what()));
    }
    return table;
  }
};

}  // namespace

std::shared_ptr<const TableReader> csv_table_reader() { return std::make_shared<const CsvTableReader>(); }

}  // namespace acmesim
