#include "io/csv_reader.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "tests/support.hpp"

using acmesim::InputError;
using acmesim::csv::CsvReader;
using acmesim::testing::gzip;

namespace {

using Rows = std::vector<std::vector<std::string>>;

Rows read_all(CsvReader& reader) {
  Rows rows;
  while (reader.next_line()) {
    rows.emplace_back(reader.cells().begin(), reader.cells().end());
  }
  return rows;
}

Rows read_text(const std::string& text, CsvReader::BlankLines blank = CsvReader::BlankLines::AreRows) {
  CsvReader reader{CsvReader::InMemory{}, "t.csv", text, blank};
  return read_all(reader);
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const auto dir = acmesim::testing::scratch_dir() / "csv_reader_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

/// A table of `rows` lines of varying length, long enough to cross many 1 MiB blocks.
std::string big_table(int rows) {
  std::string text = "id,name,value\n";
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i) + ",\"n," + std::string(static_cast<std::size_t>(i % 97), 'x') + "\"," +
            std::to_string(i * 7) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("CSV cells are split at commas outside quotes, trimmed, and unquoted with doubled quotes kept once") {
  const Rows rows = read_text("a, b ,\"c,d\",\" e \",\"say \"\"hi\"\"\",x\"y\"z,\t\n");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0] == std::vector<std::string>{"a", "b", "c,d", " e ", "say \"hi\"", "x\"y\"z", ""});
}

TEST_CASE("CSV lines end with LF or CRLF, the last may lack its end, and a byte order mark is skipped") {
  CHECK(read_text("\xEF\xBB\xBFh1,h2\r\n1,2\r\n3,4") == Rows{{"h1", "h2"}, {"1", "2"}, {"3", "4"}});
  CHECK(read_text("").empty());
  CHECK(read_text("only\n") == Rows{{"only"}});
}

TEST_CASE("Blank CSV lines are rows of one empty cell, or skipped when asked, and still count as lines") {
  CHECK(read_text("h\n\n1\n") == Rows{{"h"}, {""}, {"1"}});
  CsvReader reader{CsvReader::InMemory{}, "t.csv", "h\n \t\n1\n", CsvReader::BlankLines::Skip};
  REQUIRE(reader.next_line());
  CHECK(reader.line() == 1);
  REQUIRE(reader.next_line());
  CHECK(reader.cells()[0] == "1");
  CHECK(reader.line() == 3);
  CHECK_FALSE(reader.next_line());
}

TEST_CASE("An unclosed quote and a NUL byte are reported as the line's problem, the next line reads clean") {
  CsvReader reader{CsvReader::InMemory{}, "t.csv", std::string("a,\"b\nc\0d\ne,f\n", 12)};
  REQUIRE(reader.next_line());
  CHECK(reader.problem() == CsvReader::LineProblem::UnclosedQuote);
  REQUIRE(reader.next_line());
  CHECK(reader.problem() == CsvReader::LineProblem::NulByte);
  REQUIRE(reader.next_line());
  CHECK(reader.problem() == CsvReader::LineProblem::None);
  CHECK(reader.line() == 3);
}

TEST_CASE("A file read in blocks, plain or gzip, gives the rows and line numbers of the same text in memory") {
  const std::string text = big_table(60000);  // about 3.5 MB: lines cross block boundaries
  const Rows expected = read_text(text);
  REQUIRE(expected.size() == 60001);
  for (const std::string& bytes : {text, gzip(text)}) {
    CsvReader reader{write_file("big.csv", bytes), "file"};
    Rows rows;
    unsigned lines = 0;
    while (reader.next_line()) {
      rows.emplace_back(reader.cells().begin(), reader.cells().end());
      lines = reader.line();
    }
    CHECK(lines == 60001);
    CHECK(rows == expected);
  }
}

TEST_CASE("A gzip file of a MiB or more, inflated ahead on a second thread, gives the rows of the same text") {
  // Random numbers compress poorly, so the gzip file itself passes 1 MiB (the threshold for the thread).
  std::mt19937_64 random{7};
  std::string text = "a,b,c\n";
  for (int i = 0; i < 120000; ++i) text += fmt::format("{},{},{}\n", random(), random() % 1000, i);
  const std::string compressed = gzip(text);
  REQUIRE(compressed.size() > (std::size_t{1} << 20));
  const Rows expected = read_text(text);
  CsvReader reader{write_file("random.csv.gz", compressed), "file"};
  Rows rows;
  while (reader.next_line()) rows.emplace_back(reader.cells().begin(), reader.cells().end());
  CHECK(rows == expected);
}

TEST_CASE("Concatenated gzip members read as one file, as gzip itself reads them") {
  CsvReader reader{write_file("members.csv.gz", gzip("h\n1\n") + gzip("2\n")), "file"};
  CHECK(read_all(reader) == Rows{{"h"}, {"1"}, {"2"}});
}

TEST_CASE("Damage anywhere in gzip data is found by check_rest_intact, before the rows would show it") {
  const std::string compressed = gzip(big_table(60000));
  std::string flipped = compressed;
  flipped[flipped.size() - 6] = static_cast<char>(~flipped[flipped.size() - 6]);  // in the CRC
  CsvReader reader{write_file("flipped.csv.gz", flipped), "file"};
  REQUIRE(reader.next_line());
  CHECK_THROWS_WITH(reader.check_rest_intact(), Catch::Contains("the gzip data is damaged or cut short"));
}

TEST_CASE("A folder or a missing file is named with the reason, as the kind of file the caller asked for") {
  const auto dir = acmesim::testing::scratch_dir() / "csv_reader_test";
  std::filesystem::create_directories(dir);
  CHECK_THROWS_WITH(CsvReader(dir.string(), "trace file"), Catch::Contains("expected a trace file (CSV"));
  CHECK_THROWS_WITH(CsvReader((dir / "none.csv").string(), "trace file"),
                    Catch::Contains("cannot open the trace file (No such file or directory)"));
}

TEST_CASE("A header maps wanted column names to cells, ignores others and names a wanted one given twice") {
  const std::vector<std::string_view> header{"x", "b", "a", "b"};
  const std::vector<std::string_view> wanted{"a", "b", "c"};
  const auto map = acmesim::csv::map_header(header, wanted);
  CHECK(map.index[0] == 2);
  CHECK(map.has(1));
  CHECK_FALSE(map.has(2));
  CHECK(map.cells == 4);
  CHECK(map.duplicated == "b");
}
