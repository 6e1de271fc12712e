#include "io/output_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace acmesim {

namespace {
/// The temporary files being written, for remove_partial_outputs(); see the header for why this
/// is process-wide. More files open at once than slots (compare and a sweep write a handful per
/// thread) only means the extra ones are not removed on a signal.
std::array<std::atomic<const char*>, 64> open_partials{};
static_assert(std::atomic<const char*>::is_always_lock_free, "remove_partial_outputs() runs in a signal handler");

int list_partial(const char* path) {
  for (std::size_t i = 0; i < open_partials.size(); ++i) {
    const char* expected = nullptr;
    if (open_partials[i].compare_exchange_strong(expected, path)) return static_cast<int>(i);
  }
  return -1;
}

void unlist_partial(int slot) {
  if (slot >= 0) open_partials[static_cast<std::size_t>(slot)].store(nullptr);
}

/// Removes an incomplete output, only if it is a regular file (never /dev/full or a pipe).
bool remove_incomplete(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::filesystem::remove(path, ec);
}

/// Where `path` is written: a temporary file beside it, unless `path` exists and is not a
/// regular file (a device or a pipe cannot be replaced by a rename).
std::string written_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) return path;
  return hidden_beside(path, ".partial");
}
}  // namespace

std::string hidden_beside(const std::string& path, std::string_view suffix) {
  const std::filesystem::path final_path{path};
  // Appended piece by piece: `"." + name` trips g++ 12's -Wrestrict false positive.
  std::string name{"."};
  name += final_path.filename().string();
  name += suffix;
  return (final_path.parent_path() / name).string();
}

OutputFile::OutputFile(std::string path)
    : path_{std::move(path)}, written_{written_path(path_)}, file_{std::fopen(written_.c_str(), "wb")} {
  if (!file_) throw InputError(fmt::format("{}: cannot open for writing ({})", path_, std::strerror(errno)));
  if (written_ != path_) slot_ = list_partial(written_.c_str());
}

int list_for_removal(const char* path) noexcept { return list_partial(path); }
void unlist_for_removal(int slot) noexcept { unlist_partial(slot); }

void remove_partial_outputs() noexcept {
  for (auto& slot : open_partials) {
    if (const char* path = slot.load()) ::unlink(path);
  }
}

OutputFile::~OutputFile() {
  if (file_) {  // not closed: an exception is on its way, the file is incomplete
    std::fclose(file_);
    remove_incomplete(written_);
  }
  unlist_partial(slot_);
}

void OutputFile::write(const char* data, std::size_t size) {
  if (error_ != 0 || size == 0) return;
  if (std::fwrite(data, 1, size, file_) != size) error_ = errno != 0 ? errno : EIO;
}

void OutputFile::close() {
  if (!file_) return;
  const bool replace = written_ != path_;
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno != 0 ? errno : EIO;
  if (std::fclose(file_) != 0 && error_ == 0) error_ = errno != 0 ? errno : EIO;
  file_ = nullptr;
  if (error_ == 0 && replace && std::rename(written_.c_str(), path_.c_str()) != 0) error_ = errno != 0 ? errno : EIO;
  unlist_partial(slot_);
  slot_ = -1;
  if (error_ != 0) {
    const bool removed = remove_incomplete(written_);
    throw InputError(fmt::format("{}: cannot write ({}){}", path_, std::strerror(error_),
                                 removed ? "; nothing was left under that name" : ""));
  }
}

}  // namespace acmesim
