#include "harness/certify/bundle_crypto.hpp"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

// A PEM file is a few hundred bytes: anything over this is not one of ours.
constexpr std::uintmax_t kMaxKeyFileBytes = 64 * 1024;

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

std::string read_small_file(const fs::path& p, std::string_view what) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw KeyError(p.string() + ": " + std::string(what) + " not found (no such file)");
  if (fs::file_size(p, ec) > kMaxKeyFileBytes) {
    throw KeyError(p.string() + ": not a " + std::string(what) + " (over 64 KiB)");
  }
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  if (!in && !in.eof()) throw KeyError(p.string() + ": cannot read " + std::string(what));
  return s.str();
}

Ed25519PublicKey raw_public(EVP_PKEY* k, const fs::path& p) {
  Ed25519PublicKey pub{};
  std::size_t len = pub.size();
  if (EVP_PKEY_get_raw_public_key(k, pub.data(), &len) != 1 || len != pub.size()) {
    throw KeyError(p.string() + ": cannot take the raw public key: " + openssl_error());
  }
  return pub;
}

Pkey load_private(const fs::path& p) {
  const std::string text = read_small_file(p, "private key");
  Bio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
  Pkey k(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, &EVP_PKEY_free);
  if (!k) throw KeyError(p.string() + ": not a PEM private key (" + openssl_error() + ")");
  if (EVP_PKEY_get_id(k.get()) != EVP_PKEY_ED25519) throw KeyError(p.string() + ": not an Ed25519 key");
  return k;
}

std::string pem_of(EVP_PKEY* k, bool private_key) {
  Bio bio(BIO_new(BIO_s_mem()), &BIO_free);
  const int ok = private_key ? PEM_write_bio_PrivateKey(bio.get(), k, nullptr, nullptr, 0, nullptr, nullptr)
                             : PEM_write_bio_PUBKEY(bio.get(), k);
  if (!bio || ok != 1) throw KeyError("cannot encode the key as PEM: " + openssl_error());
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// Writes `text` to `p` with `mode`; O_EXCL unless `force` (then an existing file is truncated
// and its mode set, so an old world-readable file cannot keep a new private key readable).
void write_key_file(const fs::path& p, const std::string& text, mode_t mode, bool force) {
  // --force overwrites a key file, never what is not one: as root, opening /dev/null and
  // fchmod-ing it 0600 would lock every other user out of it.
  struct stat st {};
  if (force && ::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw KeyError(p.string() + ": exists and is not a regular file (a device, a link, a FIFO, ...); keygen writes "
                                "and overwrites regular files only");
  }
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
  const int fd = ::open(p.c_str(), flags, mode);
  if (fd < 0) {
    const int e = errno;
    if (e == EEXIST) throw KeyError(p.string() + ": exists; give --force to overwrite it");
    throw KeyError(p.string() + ": cannot write: " + std::strerror(e));
  }
  bool ok = ::fchmod(fd, mode) == 0;
  std::size_t done = 0;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int e = errno;
  ok = (::close(fd) == 0) && ok;
  if (!ok) throw KeyError(p.string() + ": cannot write: " + std::strerror(e));
}

}  // namespace

Ed25519PublicKey generate_key_files(const fs::path& key, bool force) {
  const fs::path pub_path = fs::path(key.string() + ".pub");
  std::error_code ec;
  if (!force) {
    for (const auto& p : {key, pub_path}) {
      if (fs::exists(fs::symlink_status(p, ec))) throw KeyError(p.string() + ": exists; give --force to overwrite it");
    }
  }
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr),
                                                                   &EVP_PKEY_CTX_free);
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &raw) != 1) {
    throw KeyError("cannot generate an Ed25519 key: " + openssl_error());
  }
  const Pkey k(raw, &EVP_PKEY_free);
  write_key_file(key, pem_of(k.get(), true), 0600, force);
  write_key_file(pub_path, pem_of(k.get(), false), 0644, force);
  return raw_public(k.get(), key);
}

Ed25519PublicKey public_key_of_private_file(const fs::path& key) {
  const Pkey k = load_private(key);
  return raw_public(k.get(), key);
}

Ed25519PublicKey read_public_key_file(const fs::path& p) {
  const std::string text = read_small_file(p, "public key");
  Bio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
  const Pkey k(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr, &EVP_PKEY_free);
  if (!k) throw KeyError(p.string() + ": not a PEM public key (" + openssl_error() + ")");
  if (EVP_PKEY_get_id(k.get()) != EVP_PKEY_ED25519) throw KeyError(p.string() + ": not an Ed25519 key");
  return raw_public(k.get(), p);
}

std::string sign_with_key_file(const fs::path& key, std::string_view message) {
  const Pkey k = load_private(key);
  const MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::string sig(64, '\0');
  std::size_t len = sig.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      len != 64) {
    throw KeyError(key.string() + ": cannot sign: " + openssl_error());
  }
  return sig;
}

bool signature_valid(const Ed25519PublicKey& pub, std::string_view message, std::string_view signature) {
  if (signature.size() != 64) return false;
  const Pkey k(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub.data(), pub.size()), &EVP_PKEY_free);
  const MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  const bool ok = k && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) == 1 &&
                  EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                                   reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  ERR_clear_error();
  return ok;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    hex += kHex[c >> 4];
    hex += kHex[c & 0xF];
  }
  return hex;
}

std::string from_hex(std::string_view hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() % 2) throw std::invalid_argument("odd number of hex digits");
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) throw std::invalid_argument("not a lower-case hex digit");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string key_fingerprint(const Ed25519PublicKey& pub) {
  return sha256_hex(std::string_view(reinterpret_cast<const char*>(pub.data()), pub.size())).substr(0, 32);
}

}  // namespace mrc::harness
