#include "io/timestamp.hpp"

#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <cstdlib>

namespace acmesim {

namespace {

bool digits(std::string_view text, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  out = value;
  return true;
}

}  // namespace

std::optional<Timestamp> parse_timestamp(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, month) || text[7] != '-' ||
      !digits(text, 8, 2, day) || (text[10] != ' ' && text[10] != 'T') || !digits(text, 11, 2, hour) ||
      text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;

  std::size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const std::size_t first = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == first) return std::nullopt;
  }
  int offset = 0;
  if (pos < text.size()) {
    if (text[pos] == 'Z' && pos + 1 == text.size()) {
      offset = 0;
    } else if ((text[pos] == '+' || text[pos] == '-') && text.size() == pos + 6 && text[pos + 3] == ':') {
      int oh = 0, om = 0;
      if (!digits(text, pos + 1, 2, oh) || !digits(text, pos + 4, 2, om) || oh > 14 || om > 59) return std::nullopt;
      offset = (text[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    } else {
      return std::nullopt;
    }
  }
  const auto days = std::chrono::sys_days{date}.time_since_epoch().count();
  const std::int64_t local = std::int64_t{days} * 86400 + hour * 3600 + minute * 60 + second;
  return Timestamp{local - std::int64_t{offset} * 60, offset};
}

std::string format_timestamp(std::int64_t unix_seconds, int utc_offset_minutes) {
  const std::int64_t local = unix_seconds + std::int64_t{utc_offset_minutes} * 60;
  std::int64_t days = local / 86400;
  std::int64_t rest = local % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  const std::chrono::year_month_day date{std::chrono::sys_days{std::chrono::days{days}}};
  const int off = std::abs(utc_offset_minutes);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}{}{:02d}:{:02d}", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), rest / 3600,
                     (rest / 60) % 60, rest % 60, utc_offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
}

TimestampWriter::TimestampWriter(std::int64_t epoch_unix_seconds, int utc_offset_minutes)
    : epoch_{epoch_unix_seconds}, offset_{utc_offset_minutes} {
  const std::string full = format_timestamp(0, offset_);
  suffix_ = full.substr(19);
}

void TimestampWriter::append(std::string& out, std::int64_t ms_since_epoch) {
  std::int64_t secs = ms_since_epoch / 1000;
  if (ms_since_epoch % 1000 < 0) --secs;
  const std::int64_t local = epoch_ + secs + std::int64_t{offset_} * 60;
  std::int64_t day = local / 86400;
  std::int64_t rest = local % 86400;
  if (rest < 0) {
    rest += 86400;
    --day;
  }
  if (day != cached_day_) {
    cached_day_ = day;
    cached_date_ = format_timestamp((day * 86400) - std::int64_t{offset_} * 60, offset_).substr(0, 11);
  }
  out += cached_date_;
  const auto two = [&out](std::int64_t v) {
    out.push_back(static_cast<char>('0' + v / 10));
    out.push_back(static_cast<char>('0' + v % 10));
  };
  two(rest / 3600);
  out.push_back(':');
  two((rest / 60) % 60);
  out.push_back(':');
  two(rest % 60);
  out += suffix_;
}

}  // namespace acmesim
