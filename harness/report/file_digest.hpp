// SHA-256 digests (OpenSSL libcrypto) for the manifests the suite writes: the golden pcaps'
// pcaps/MANIFEST and certification bundles (harness/certify/), whose members are hashed as they
// stream. All in lower-case hex.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace mrc::harness {

// SHA-256 of bytes given piece by piece. Throws std::runtime_error when libcrypto fails.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  // Lower-case hex of everything given; the object is spent.
  std::string hex();

 private:
  ::evp_md_ctx_st* ctx_;
};

// Of bytes in memory. Throws std::runtime_error when libcrypto fails.
std::string sha256_hex(std::string_view bytes);

// Of a file's bytes, read a chunk at a time; nullopt when it cannot be read.
std::optional<std::string> sha256_file_hex(const std::filesystem::path& file);

}  // namespace mrc::harness
