// Bundle signing keys: files and modes keygen writes, signatures that bite on one changed byte or
// another key, key files that are not keys.
#include "harness/certify/bundle_crypto.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "harness/report/file_digest.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

struct TempFolder {
  TempFolder() {
    std::string t = (fs::temp_directory_path() / "mrc-key-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempFolder() { fs::remove_all(path); }
  fs::path path;
};

TEST(BundleCrypto, KeygenWritesAPrivateKeyOnlyItsOwnerReads) {
  TempFolder t;
  const fs::path key = t.path / "signer.key";
  const Ed25519PublicKey pub = generate_key_files(key, false);
  struct stat st{};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(key);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "-----BEGIN PRIVATE KEY-----");  // PKCS#8
  EXPECT_EQ(public_key_of_private_file(key), pub);
  EXPECT_EQ(read_public_key_file(fs::path(key.string() + ".pub")), pub);
  const std::string fp = key_fingerprint(pub);
  EXPECT_EQ(fp.size(), 32u);
  EXPECT_EQ(fp, sha256_hex(std::string_view(reinterpret_cast<const char*>(pub.data()), 32)).substr(0, 32));
}

TEST(BundleCrypto, KeygenRefusesToOverwriteWithoutForce) {
  TempFolder t;
  const fs::path key = t.path / "k";
  const Ed25519PublicKey first = generate_key_files(key, false);
  try {
    generate_key_files(key, false);
    FAIL() << "overwrote";
  } catch (const KeyError& e) {
    EXPECT_NE(std::string(e.what()).find("exists; give --force"), std::string::npos) << e.what();
  }
  EXPECT_EQ(public_key_of_private_file(key), first);  // untouched
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  const Ed25519PublicKey second = generate_key_files(key, true);
  EXPECT_NE(second, first);
  struct stat st{};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // --force does not keep an old, wider mode
}

TEST(BundleCrypto, SignatureBitesOnAChangedByteAndAnotherKey) {
  TempFolder t;
  const Ed25519PublicKey a = generate_key_files(t.path / "a", false);
  const Ed25519PublicKey b = generate_key_files(t.path / "b", false);
  const std::string msg = "{\"schema\": \"mrc-conform/bundle/1\"}\n";
  const std::string sig = sign_with_key_file(t.path / "a", msg);
  ASSERT_EQ(sig.size(), 64u);
  EXPECT_EQ(sig, sign_with_key_file(t.path / "a", msg));  // Ed25519 is deterministic
  EXPECT_TRUE(signature_valid(a, msg, sig));
  EXPECT_FALSE(signature_valid(b, msg, sig));
  std::string changed = msg;
  changed[5] ^= 1;
  EXPECT_FALSE(signature_valid(a, changed, sig));
  EXPECT_FALSE(signature_valid(a, msg, sig.substr(0, 63)));
}

TEST(BundleCrypto, FilesThatAreNotKeysAreNamed) {
  TempFolder t;
  std::ofstream(t.path / "text") << "hello\n";
  for (const auto& f : {t.path / "text", t.path / "missing"}) {
    try {
      public_key_of_private_file(f);
      FAIL() << f;
    } catch (const KeyError& e) {
      EXPECT_NE(std::string(e.what()).find(f.string()), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_public_key_file(f), KeyError);
  }
  generate_key_files(t.path / "k", false);
  EXPECT_THROW(read_public_key_file(t.path / "k"), KeyError);         // a private key is no public key
  EXPECT_THROW(public_key_of_private_file(t.path / "k.pub"), KeyError);
}

TEST(BundleCrypto, HexRoundTrip) {
  EXPECT_EQ(to_hex(std::string_view("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ(from_hex("00ff10"), std::string("\x00\xff\x10", 3));
  EXPECT_THROW(from_hex("0"), std::invalid_argument);
  EXPECT_THROW(from_hex("zz"), std::invalid_argument);
}

}  // namespace
}  // namespace mrc::harness
