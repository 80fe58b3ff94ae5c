// Ed25519 keys and signatures for certification bundles (OpenSSL libcrypto: EVP_PKEY Ed25519,
// EVP_DigestSign/Verify with no digest, PEM). A key's fingerprint is the first 16 bytes of the
// SHA-256 of its raw 32-byte public key, in hex: short enough to read aloud, long enough that no
// one makes a second key with the same fingerprint.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/report/file_digest.hpp"  // sha256_hex, Sha256

namespace mrc::harness {

// A key file missing, unreadable, not PEM, not Ed25519, or not writable: what() names the file.
class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Ed25519PublicKey = std::array<std::uint8_t, 32>;

// Makes a key pair; writes `key` (PKCS#8 PEM private key, mode 0600) and `key`.pub (PEM public
// key). Without `force` an existing `key` or `key`.pub is refused. Returns the public key.
Ed25519PublicKey generate_key_files(const std::filesystem::path& key, bool force);

// The public half of a private key file. Throws KeyError.
Ed25519PublicKey public_key_of_private_file(const std::filesystem::path& key);
// A PEM public key file (what generate_key_files writes as KEY.pub). Throws KeyError.
Ed25519PublicKey read_public_key_file(const std::filesystem::path& pub);

// The 64-byte Ed25519 signature of `message` with the private key in `key`. Throws KeyError.
std::string sign_with_key_file(const std::filesystem::path& key, std::string_view message);
// Whether `signature` (64 bytes) is `message`'s signature by `pub`.
bool signature_valid(const Ed25519PublicKey& pub, std::string_view message, std::string_view signature);

std::string key_fingerprint(const Ed25519PublicKey& pub);
std::string to_hex(std::string_view bytes);
// Lower-case hex back to bytes; nullopt-free: throws std::invalid_argument on a bad digit or length.
std::string from_hex(std::string_view hex);
}  // namespace mrc::harness
