#include "io/sha256.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/core/error.hpp"

namespace acmesim {

namespace {

class Digest {
 public:
  Digest() : context_{EVP_MD_CTX_new(), EVP_MD_CTX_free} {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
      throw std::runtime_error("SHA-256: OpenSSL could not start a digest");
    }
  }
  void add(const void* data, std::size_t size) {
    if (EVP_DigestUpdate(context_.get(), data, size) != 1) throw std::runtime_error("SHA-256: digest update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(context_.get(), digest.data(), &size) != 1) {
      throw std::runtime_error("SHA-256: digest final failed");
    }
    std::string out;
    out.reserve(2 * size);
    for (unsigned int i = 0; i < size; ++i) out += fmt::format("{:02x}", digest[i]);
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context_;
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Digest digest;
  digest.add(bytes.data(), bytes.size());
  return digest.hex();
}

std::string sha256_file_hex(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{std::fopen(path.c_str(), "rb"), std::fclose};
  if (!file) throw InputError(fmt::format("{}: cannot read the file ({})", path, std::strerror(errno)));
  Digest digest;
  // 64 KiB reads: as fast as larger ones on a 128 MB trace, and small enough that hashing a small
  // file does not allocate and zero a large buffer (under AddressSanitizer that was most of a
  // fuzz execution of the trace reader).
  std::vector<char> block(std::size_t{1} << 16);
  while (const std::size_t n = std::fread(block.data(), 1, block.size(), file.get())) digest.add(block.data(), n);
  if (std::ferror(file.get())) throw InputError(fmt::format("{}: read error ({})", path, std::strerror(errno)));
  return digest.hex();
}

}  // namespace acmesim
