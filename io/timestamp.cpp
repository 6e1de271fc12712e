#include "io/timestamp.hpp"

#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>

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

/// The day number (days since 1970-01-01) of "YYYY-MM-DD" at the front of `text`, if valid.
std::optional<std::int64_t> day_number(std::string_view text) {
  int year = 0, month = 0, day = 0;
  if (!digits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' || !digits(text, 5, 2, month) || text[7] != '-' ||
      !digits(text, 8, 2, day)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days{date}.time_since_epoch().count();
}

/// The rest of a timestamp after its date, given the date's day number.
std::optional<Timestamp> parse_after_date(std::string_view text, std::int64_t days) {
  int hour = 0, minute = 0, second = 0;
  if (text.size() < 19 || (text[10] != ' ' && text[10] != 'T') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 60) return std::nullopt;

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
  const std::int64_t local = days * 86400 + hour * 3600 + minute * 60 + second;
  return Timestamp{local - std::int64_t{offset} * 60, offset};
}

}  // namespace

std::optional<Timestamp> parse_timestamp(std::string_view text) {
  const auto days = day_number(text);
  if (!days) return std::nullopt;
  return parse_after_date(text, *days);
}

std::optional<Timestamp> TimestampParser::parse(std::string_view text) {
  if (text.size() < 10) return std::nullopt;
  if (std::memcmp(text.data(), date_, sizeof date_) != 0 || day_ == INT64_MIN) {
    const auto days = day_number(text);
    if (!days) return std::nullopt;
    std::memcpy(date_, text.data(), sizeof date_);
    day_ = *days;
  }
  return parse_after_date(text, day_);
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

std::size_t TimestampWriter::format(char* into, std::int64_t ms_since_epoch) {
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
  char* out = into;
  std::memcpy(out, cached_date_.data(), cached_date_.size());
  out += cached_date_.size();
  const auto two = [&out](std::int64_t v) {
    *out++ = static_cast<char>('0' + v / 10);
    *out++ = static_cast<char>('0' + v % 10);
  };
  two(rest / 3600);
  *out++ = ':';
  two((rest / 60) % 60);
  *out++ = ':';
  two(rest % 60);
  std::memcpy(out, suffix_.data(), suffix_.size());
  out += suffix_.size();
  return static_cast<std::size_t>(out - into);
}

}  // namespace acmesim
