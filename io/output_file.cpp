#include "io/output_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace acmesim {

namespace {
/// Removes an incomplete output, only if it is a regular file (never /dev/full or a pipe).
bool remove_incomplete(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::filesystem::remove(path, ec);
}
}  // namespace

OutputFile::OutputFile(std::string path) : path_{std::move(path)}, file_{std::fopen(path_.c_str(), "wb")} {
  if (!file_) throw InputError(fmt::format("{}: cannot open for writing ({})", path_, std::strerror(errno)));
}

OutputFile::~OutputFile() {
  if (file_) {  // not closed: an exception is on its way, the file is incomplete
    std::fclose(file_);
    remove_incomplete(path_);
  }
}

void OutputFile::write(const char* data, std::size_t size) {
  if (error_ != 0 || size == 0) return;
  if (std::fwrite(data, 1, size, file_) != size) error_ = errno != 0 ? errno : EIO;
}

void OutputFile::close() {
  if (!file_) return;
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno != 0 ? errno : EIO;
  if (std::fclose(file_) != 0 && error_ == 0) error_ = errno != 0 ? errno : EIO;
  file_ = nullptr;
  if (error_ != 0) {
    const bool removed = remove_incomplete(path_);
    throw InputError(fmt::format("{}: cannot write ({}){}", path_, std::strerror(error_),
                                 removed ? "; the incomplete file was removed" : ""));
  }
}

}  // namespace acmesim
