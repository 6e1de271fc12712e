#pragma once
/// SHA-256 digests (OpenSSL's libcrypto), as lowercase hex: a trace's checksum in summary.json,
/// and the identity of a resolved scenario (its default output folder).
///
/// Cost: O(bytes); a file is read in 1 MiB blocks (~1.5 GB/s with the CPU's SHA extensions).
#include <string>
#include <string_view>

namespace acmesim {

std::string sha256_hex(std::string_view bytes);
/// InputError naming `path` if it cannot be read.
std::string sha256_file_hex(const std::string& path);

}  // namespace acmesim
