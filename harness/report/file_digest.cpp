#include "harness/report/file_digest.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <stdexcept>

namespace mrc::harness {
namespace {

[[noreturn]] void digest_failed() {
  char buf[256] = {};
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  throw std::runtime_error(std::string("SHA-256 failed: ") + buf);
}

std::string hex_of(const unsigned char* md, unsigned int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 0xF];
  }
  return hex;
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    digest_failed();
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::update(std::string_view bytes) {
  if (EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) != 1) digest_failed();
}

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_, md, &n) != 1) digest_failed();
  return hex_of(md, n);
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 sha;
  sha.update(bytes);
  return sha.hex();
}

std::optional<std::string> sha256_file_hex(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    Sha256 sha;
    std::array<char, 1 << 16> chunk;
    while (in) {
      in.read(chunk.data(), chunk.size());
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got > 0) sha.update(std::string_view(chunk.data(), got));
    }
    if (in.bad()) return std::nullopt;
    return sha.hex();
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

}  // namespace mrc::harness
