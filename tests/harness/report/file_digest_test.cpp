// The manifests' SHA-256 (OpenSSL libcrypto) on the FIPS 180-4 known answers, read from files.
#include "harness/report/file_digest.hpp"

#include <gtest/gtest.h>

#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness::test {
namespace {

std::optional<std::string> digest_of(const std::string& name, const std::string& content) {
  const auto file = fresh_dir("file-digest-" + name) / "data";
  write_file(file, content);
  return sha256_file_hex(file);
}

TEST(FileDigest, KnownAnswers) {
  EXPECT_EQ(digest_of("empty", ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest_of("abc", "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest_of("two-blocks", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Larger than one read chunk, so the file is hashed in pieces.
  EXPECT_EQ(digest_of("million", std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Pieces of any size give the digest of the whole, and bytes in memory the file's.
TEST(FileDigest, PiecesGiveTheDigestOfTheWhole) {
  const std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  Sha256 sha;
  for (std::size_t at = 0; at < text.size(); at += 7) sha.update(std::string_view(text).substr(at, 7));
  EXPECT_EQ(sha.hex(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FileDigest, UnreadableFileHasNoDigest) {
  EXPECT_EQ(sha256_file_hex(fresh_dir("file-digest-missing") / "no-such-file"), std::nullopt);
}

}  // namespace
}  // namespace mrc::harness::test
