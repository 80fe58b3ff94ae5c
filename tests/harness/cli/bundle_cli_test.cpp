// keygen, bundle and verify on a real report of two cases (one with a golden) run in-process:
// verify says OK on the fresh bundle and names what is wrong after each tamper.
#include "harness/certify/bundle_crypto.hpp"
#include "harness/cli/commands.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

struct Cli {
  int rc = -1;
  std::string out, err;
};

Cli keygen(const fs::path& key, bool force = false) {
  Cli c;
  std::ostringstream out, err;
  c.rc = cli::run_keygen({.out = key, .force = force}, out, err);
  c.out = out.str();
  c.err = err.str();
  return c;
}

Cli verify(const fs::path& bundle, const std::string& pubkey, const fs::path& cases = source_dir() / "cases") {
  Cli c;
  std::ostringstream out, err;
  c.rc = cli::run_verify({.bundle = bundle, .pubkey = pubkey, .cases = cases.string()}, out, err);
  c.out = out.str();
  c.err = err.str();
  return c;
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Offset of a member's data: its header is the 512-aligned block whose name field holds `name`.
std::size_t data_offset(const std::string& tar, const std::string& name) {
  for (std::size_t off = 0; off + 512 <= tar.size(); off += 512) {
    if (tar.compare(off, name.size() + 1, name + '\0') == 0) return off + 512;
  }
  ADD_FAILURE() << name << " not in the archive";
  return 0;
}

class BundleCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    RunOptions o;
    o.cases = {case_file("spray-v-001").string(), case_file("spray-v-020").string()};
    o.out = dir_->path() / "report";
    o.suite_version = "0.9.0";
    o.git_hash = "feedbee";
    const SuiteRun r = run(o);
    ASSERT_TRUE(r.has_result) << r.err;
    ASSERT_EQ(keygen(dir_->path() / "signer.key").rc, 0);
    ASSERT_EQ(keygen(dir_->path() / "other.key").rc, 0);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path path(const std::string& name) { return dir_->path() / name; }
  static Cli bundle(const fs::path& out, const std::string& key = "signer.key") {
    Cli c;
    std::ostringstream o, e;
    cli::BundleCliOptions b;
    b.report_dir = path("report");
    b.out = out;
    b.key = path(key);
    b.cases = (source_dir() / "cases").string();
    b.suite_version = "0.9.0";
    b.git_hash = "feedbee";
    c.rc = cli::run_bundle(b, o, e);
    c.out = o.str();
    c.err = e.str();
    return c;
  }
  static std::string fingerprint(const std::string& key) {
    return harness::key_fingerprint(harness::read_public_key_file(path(key + ".pub")));
  }
  static TempDir* dir_;
};
TempDir* BundleCli::dir_ = nullptr;

TEST_F(BundleCli, AFreshBundleIsOKAndTheSameTwice) {
  const Cli b = bundle(path("a.mrcb"));
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(b.out.find("2 cases"), std::string::npos) << b.out;
  ASSERT_EQ(bundle(path("b.mrcb")).rc, 0);
  EXPECT_EQ(slurp(path("a.mrcb")), slurp(path("b.mrcb")));
  const Cli v = verify(path("a.mrcb"), path("signer.key.pub").string());
  EXPECT_EQ(v.rc, 0) << v.out << v.err;
  EXPECT_NE(v.out.find(", 2 cases, signed by " + fingerprint("signer.key") + "\n"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.rfind("bundle OK: ", 0), 0u) << v.out;
  const Cli unpinned = verify(path("a.mrcb"), "");
  EXPECT_EQ(unpinned.rc, 0);
  EXPECT_NE(unpinned.out.find("signature valid for key " + fingerprint("signer.key") + "; give --pubkey to check the signer\n"),
            std::string::npos)
      << unpinned.out;
}

TEST_F(BundleCli, TamperedEvidenceAndResultAreNamed) {
  ASSERT_EQ(bundle(path("t.mrcb")).rc, 0);
  const std::string good = slurp(path("t.mrcb"));
  std::string evidence = good;
  evidence[data_offset(good, "evidence/spray-v-020.pcapng") + 100] ^= 0x01;
  spit(path("t1.mrcb"), evidence);
  const Cli e = verify(path("t1.mrcb"), path("signer.key.pub").string());
  EXPECT_EQ(e.rc, 1);
  EXPECT_EQ(e.out, "evidence/spray-v-020.pcapng: changed: its sha256 differs from the manifest's\nbundle NOT OK: 1 problem\n");

  std::string result = good;
  result[data_offset(good, "results.json") + 20] ^= 0x01;
  spit(path("t2.mrcb"), result);
  const Cli r = verify(path("t2.mrcb"), path("signer.key.pub").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "results.json: changed: its sha256 differs from the manifest's\nbundle NOT OK: 1 problem\n");
}

TEST_F(BundleCli, WrongKeyIsNamed) {
  ASSERT_EQ(bundle(path("k.mrcb")).rc, 0);
  const Cli v = verify(path("k.mrcb"), path("other.key.pub").string());
  EXPECT_EQ(v.rc, 1);
  EXPECT_NE(v.out.find("not the --pubkey key " + fingerprint("other.key")), std::string::npos) << v.out;
  ASSERT_EQ(bundle(path("k2.mrcb"), "other.key").rc, 0);
  EXPECT_EQ(verify(path("k2.mrcb"), path("signer.key.pub").string()).rc, 1);
  const Cli missing = verify(path("k.mrcb"), path("no-such.pub").string());
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("--pubkey: " + path("no-such.pub").string()), std::string::npos) << missing.err;
}

TEST_F(BundleCli, TruncatedBundlesAreUnreadable) {
  ASSERT_EQ(bundle(path("c.mrcb")).rc, 0);
  const std::string good = slurp(path("c.mrcb"));
  const std::size_t evidence = data_offset(good, "evidence/spray-v-020.pcapng");
  const std::size_t sig_header = data_offset(good, "manifest.sig") - 512;
  for (const std::size_t cut : {std::size_t{300}, evidence - 200, evidence + 1000, sig_header, good.size() - 700}) {
    spit(path("cut.mrcb"), good.substr(0, cut));
    const Cli v = verify(path("cut.mrcb"), path("signer.key.pub").string());
    EXPECT_EQ(v.rc, 2) << cut;
    EXPECT_NE(v.err.find("truncated"), std::string::npos) << cut << ": " << v.err;
  }
}

TEST_F(BundleCli, ACaseFileOfAnotherSuiteVersionIsNamed) {
  ASSERT_EQ(bundle(path("s.mrcb")).rc, 0);
  const fs::path suite = path("suite");
  fs::create_directories(suite);
  fs::copy(source_dir() / "cases", suite / "cases", fs::copy_options::recursive);
  fs::copy(source_dir() / "pcaps", suite / "pcaps", fs::copy_options::recursive);
  ASSERT_EQ(verify(path("s.mrcb"), path("signer.key.pub").string(), suite / "cases").rc, 0);
  std::ofstream(suite / "cases/spray/spray-v-001.yaml", std::ios::app) << "# a later edit\n";
  const Cli v = verify(path("s.mrcb"), path("signer.key.pub").string(), suite / "cases");
  EXPECT_EQ(v.rc, 1);
  EXPECT_NE(v.out.find("cases/spray/spray-v-001.yaml (case spray-v-001): differs from this suite's tree"), std::string::npos)
      << v.out;
  EXPECT_NE(v.out.find("the bundle is from suite 0.9.0 (git feedbee)"), std::string::npos) << v.out;
}

TEST_F(BundleCli, KeygenDoesNotOverwrite) {
  const Cli again = keygen(path("signer.key"));
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.err.find("exists; give --force"), std::string::npos) << again.err;
  const Cli fresh = keygen(path("fresh.key"));
  EXPECT_EQ(fresh.rc, 0);
  EXPECT_NE(fresh.out.find("fingerprint " + fingerprint("fresh.key")), std::string::npos) << fresh.out;
}

}  // namespace
}  // namespace mrc::run::testing
