// SHA-256 (FIPS 180-4), for the golden manifest's checksums. Our own small implementation so the
// harness needs no crypto library.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace mrc::run {

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> data);
  std::array<std::uint8_t, 32> finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
};

// Lower-case hex digest.
std::string sha256_hex(std::span<const std::uint8_t> data);

}  // namespace mrc::run
