// The certification bundle on a small report folder of two real cases (one with a golden): what
// the manifest pins, byte-identical bundles, and every tamper verify must name.
#include "harness/certify/bundle.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "harness/certify/tar_archive.hpp"
#include "harness/report/file_digest.hpp"
#include "tests/harness/certify/tar_test_support.hpp"
#include "harness/report/report.hpp"
#include "reference/wire/wire_revision.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using testing::Member;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CaseResult case_result(const std::string& id, Verdict v) {
  CaseResult c;
  c.id = id;
  c.title = id;
  c.area = "spray";
  c.file = "cases/spray/" + id + ".yaml";
  c.level = "MUST";
  c.behaviour = "valid";
  c.seed = 7;
  c.verdict = v;
  c.evidence_files = {"evidence/" + id + "/dut.p1.tx.pcapng"};
  return c;
}

// A suite tree (clauses.yaml, two case files, the golden one of them names) and a report folder
// of a run of those two cases, in a fresh temp folder.
class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "mrc-bundle-test-XXXXXX").string();
    root_ = ::mkdtemp(t.data());
    const fs::path src(MRC_SOURCE_DIR);
    fs::create_directories(suite() / "cases" / "spray");
    fs::create_directories(suite() / "pcaps" / "spray");
    fs::copy_file(src / "cases" / "clauses.yaml", suite() / "cases" / "clauses.yaml");
    for (const char* id : {"spray-v-001", "spray-v-020"}) {
      fs::copy_file(src / "cases" / "spray" / (std::string(id) + ".yaml"), suite() / "cases" / "spray" / (std::string(id) + ".yaml"));
    }
    fs::copy_file(src / "pcaps" / "spray" / "spray-v-020.pcapng", suite() / "pcaps" / "spray" / "spray-v-020.pcapng");
    run_.meta.suite_version = "0.1.0";
    run_.meta.git_hash = "abc1234";
    run_.meta.wire = std::string(wire::kWireRevision);
    run_.meta.dut = "reference";
    run_.meta.dut_capabilities = {"spray"};
    run_.meta.testbed = "mini";
    run_.meta.command_line = "mrc-conform run --tags spraying";
    run_.cases = {case_result("spray-v-001", Verdict::kPass), case_result("spray-v-020", Verdict::kPass)};
    write_report();
    generate_key_files(root_ / "signer.key", false);
    generate_key_files(root_ / "other.key", false);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write_report() {
    write_reports(run_, report());
    for (const auto& c : run_.cases) {
      fs::create_directories(report() / "evidence" / c.id);
      std::ofstream(report() / c.evidence_files.front(), std::ios::binary) << "EVIDENCE-OF-" << c.id << std::string(700, '\x5a');
    }
    std::ofstream(report() / ".lock") << "dotfiles stay out";
  }
  fs::path suite() const { return root_ / "suite"; }
  fs::path report() const { return root_ / "report"; }
  BundleRequest request() const {
    BundleRequest r;
    r.report_dir = report();
    r.key = root_ / "signer.key";
    r.cases_dir = suite() / "cases";
    r.suite_version = "0.1.0";
    r.git_hash = "abc1234";
    r.out = root_ / "bundle.mrcb";
    return r;
  }
  // The bytes of the bundle file `r` makes.
  static std::string bundle_bytes(const BundleRequest& r) {
    make_bundle(r);
    return testing::file_bytes(r.out);
  }
  std::vector<Member> members_of(const std::string& bytes) const {
    testing::put_file(root_ / "members.mrcb", bytes);
    return testing::read_members(root_ / "members.mrcb");
  }
  std::string tar_of(const std::vector<Member>& members) const {
    testing::write_members(root_ / "written.mrcb", members);
    return testing::file_bytes(root_ / "written.mrcb");
  }
  Ed25519PublicKey pub(const char* key) const { return read_public_key_file(root_ / (std::string(key) + ".pub")); }
  // verify_bundle on a bundle file holding `bytes`.
  BundleCheck verify(const std::string& bytes, const char* key = "signer.key") const {
    testing::put_file(root_ / "verify.mrcb", bytes);
    return verify_bundle(root_ / "verify.mrcb", pub(key), suite() / "cases");
  }
  static std::string joined(const BundleCheck& c) {
    std::string s;
    for (const auto& p : c.problems) s += p + "\n";
    return s;
  }

  fs::path root_;
  RunResult run_;
};

TEST_F(BundleTest, AFreshBundleVerifiesAndPinsWhatTheRunUsed) {
  const BundleMade made = make_bundle(request());
  EXPECT_EQ(made.cases, 2u);
  EXPECT_EQ(made.files, 5u);  // results.json, junit.xml, index.html, two evidence files; no .lock
  const std::string bytes = testing::file_bytes(request().out);
  EXPECT_EQ(made.bytes, bytes.size());
  EXPECT_FALSE(fs::exists(root_ / "bundle.mrcb.tmp"));
  const BundleCheck ok = verify(bytes);
  EXPECT_TRUE(ok.problems.empty()) << joined(ok);
  EXPECT_EQ(ok.fingerprint, key_fingerprint(pub("signer.key")));
  EXPECT_EQ(ok.files, 5u);
  EXPECT_EQ(ok.cases, 2u);

  const auto members = members_of(bytes);
  ASSERT_GE(members.size(), 3u);
  EXPECT_EQ(members.front().name, "manifest.json");
  EXPECT_EQ(members.back().name, "manifest.sig");
  for (std::size_t i = 2; i + 1 < members.size(); ++i) EXPECT_LT(members[i - 1].name, members[i].name);
  const auto m = nlohmann::json::parse(members.front().data);
  EXPECT_EQ(m["schema"], "mrc-conform/bundle/1");
  EXPECT_EQ(m["run"]["git_hash"], "abc1234");
  EXPECT_EQ(m["run"]["wire"], std::string(wire::kWireRevision));
  EXPECT_EQ(m["run"]["dut_capabilities"], nlohmann::json::array({"spray"}));
  EXPECT_EQ(m["run"]["wall_clock"]["recorded"], false);
  EXPECT_FALSE(m["run"]["wall_clock"].contains("started_at"));  // no invented times
  EXPECT_EQ(m["cases"][1]["id"], "spray-v-020");
  EXPECT_EQ(m["cases"][1]["file_sha256"], *sha256_file_hex(suite() / "cases/spray/spray-v-020.yaml"));
  EXPECT_EQ(m["cases"][1]["seed"], 7);
  EXPECT_EQ(m["cases"][1]["verdict"], "PASS");
  EXPECT_EQ(m["cases"][1]["evidence"], nlohmann::json::array({"evidence/spray-v-020/dut.p1.tx.pcapng"}));
  ASSERT_EQ(m["suite"]["goldens"].size(), 1u);
  EXPECT_EQ(m["suite"]["goldens"][0]["path"], "pcaps/spray/spray-v-020.pcapng");
  EXPECT_EQ(m["suite"]["goldens"][0]["cases"], nlohmann::json::array({"spray-v-020"}));
  EXPECT_EQ(m["suite"]["clauses"]["sha256"], *sha256_file_hex(suite() / "cases/clauses.yaml"));
  EXPECT_EQ(m["signer"]["fingerprint"], ok.fingerprint);
  for (const auto& f : m["files"]) EXPECT_NE(f["path"], ".lock");
}

TEST_F(BundleTest, SameReportAndKeySameBytes) {
  EXPECT_EQ(bundle_bytes(request()), bundle_bytes(request()));
}

TEST_F(BundleTest, WallClockTimesAreCarriedWhenTheRunRecordedThem) {
  run_.meta.started_at = "2026-11-25T01:00:00Z";
  run_.meta.wall_seconds = 61.4;
  write_report();
  const auto m = nlohmann::json::parse(members_of(bundle_bytes(request())).front().data);
  EXPECT_EQ(m["run"]["wall_clock"]["started_at"], "2026-11-25T01:00:00Z");
  EXPECT_EQ(m["run"]["wall_clock"]["ended_at"], "2026-11-25T01:01:01Z");
}

TEST_F(BundleTest, OneChangedEvidenceByteIsNamed) {
  std::string bytes = bundle_bytes(request());
  const auto at = bytes.find("EVIDENCE-OF-spray-v-020");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 30] ^= 0x01;
  const BundleCheck c = verify(bytes);
  ASSERT_EQ(c.problems.size(), 1u) << joined(c);
  EXPECT_EQ(c.problems[0], "evidence/spray-v-020/dut.p1.tx.pcapng: changed: its sha256 differs from the manifest's");
}

TEST_F(BundleTest, AChangedResultIsNamedAndAForgedManifestBreaksTheSignature) {
  const std::string good = bundle_bytes(request());
  auto members = members_of(good);
  auto find = [&](const std::string& name) -> Member& {
    for (auto& m : members) {
      if (m.name == name) return m;
    }
    throw std::runtime_error(name);
  };
  std::string& results = find("results.json").data;
  const auto pass = results.find("\"PASS\"");
  ASSERT_NE(pass, std::string::npos);
  results.replace(pass, 6, "\"FAIL\"");
  const BundleCheck c = verify(tar_of(members));
  ASSERT_EQ(c.problems.size(), 1u) << joined(c);
  EXPECT_EQ(c.problems[0], "results.json: changed: its sha256 differs from the manifest's");

  // The forger also rewrites the manifest's hash: now the signature gives it away.
  auto manifest = nlohmann::ordered_json::parse(members.front().data);
  for (auto& f : manifest["files"]) {
    if (f["path"] == "results.json") f["sha256"] = sha256_hex(results);
  }
  members.front().data = manifest.dump(2) + "\n";
  const BundleCheck forged = verify(tar_of(members));
  ASSERT_EQ(forged.problems.size(), 1u) << joined(forged);
  EXPECT_NE(forged.problems[0].find("manifest.sig: the signature does not verify with key"), std::string::npos);
}

// A verdict holds on the wire it was judged on: a run of another wire revision, or one from before
// the revision was recorded, is not bundled, and a bundle of one does not verify.
TEST_F(BundleTest, AnotherWireRevisionIsRefused) {
  const std::string good = bundle_bytes(request());
  for (const std::string other : {"mrc-1.0 spec-derived, model rev 99", ""}) {
    auto members = members_of(good);
    auto manifest = nlohmann::ordered_json::parse(members.front().data);
    if (other.empty()) {
      manifest["run"].erase("wire");
    } else {
      manifest["run"]["wire"] = other;
    }
    members.front().data = manifest.dump(2) + "\n";
    members.back().data = to_hex(sign_with_key_file(root_ / "signer.key", members.front().data)) + "\n";
    const BundleCheck c = verify(tar_of(members));
    ASSERT_EQ(c.problems.size(), 1u) << joined(c);
    EXPECT_EQ(c.problems[0].rfind("manifest.json: /run/wire: ", 0), 0u) << c.problems[0];
    EXPECT_NE(c.problems[0].find("this suite judges on wire revision \"" + std::string(wire::kWireRevision) + "\""),
              std::string::npos)
        << c.problems[0];
    EXPECT_NE(c.problems[0].find(other.empty() ? "the run names no wire revision" : "\"" + other + "\""),
              std::string::npos)
        << c.problems[0];

    if (other.empty()) continue;  // a results.json without the revision is an older schema's
    run_.meta.wire = other;
    write_report();
    try {
      (void)make_bundle(request());
      ADD_FAILURE() << "a run of wire revision '" << other << "' was bundled";
    } catch (const BundleInputError& e) {
      EXPECT_NE(std::string(e.what()).find("results.json: the run "), std::string::npos) << e.what();
    }
  }
}

TEST_F(BundleTest, MissingAndAddedMembersAreNamed) {
  auto members = members_of(bundle_bytes(request()));
  members.erase(members.begin() + 1);  // evidence/spray-v-001/...
  members.insert(members.end() - 1, Member{"evidence/extra.pcapng", "x"});
  const BundleCheck c = verify(tar_of(members));
  EXPECT_EQ(joined(c),
            "evidence/spray-v-001/dut.p1.tx.pcapng: in the manifest, missing from the bundle\n"
            "evidence/extra.pcapng: in the bundle, not in the manifest (added)\n"
            "evidence/spray-v-001/dut.p1.tx.pcapng (evidence of case spray-v-001): named by the case, not in the "
            "bundle\n");
}

// A report whose results name evidence that is not on disk (deleted, never written) certifies a
// verdict nobody can look at: bundle refuses it, and a signed bundle without it (one made before
// bundle refused, or by hand) does not verify, the evidence and its case named.
TEST_F(BundleTest, EvidenceTheResultsNameMustBeThere) {
  const std::string good = bundle_bytes(request());
  fs::remove(report() / "evidence/spray-v-020/dut.p1.tx.pcapng");
  try {
    (void)make_bundle(request());
    ADD_FAILURE() << "a report without its evidence was bundled";
  } catch (const BundleInputError& e) {
    EXPECT_NE(std::string(e.what()).find("case spray-v-020 names evidence evidence/spray-v-020/dut.p1.tx.pcapng, which is "
                                         "not in " + report().string() + ": the report is incomplete"),
              std::string::npos)
        << e.what();
  }
  auto members = members_of(good);
  members.erase(std::remove_if(members.begin(), members.end(),
                               [](const Member& m) { return m.name == "evidence/spray-v-020/dut.p1.tx.pcapng"; }),
                members.end());
  auto manifest = nlohmann::ordered_json::parse(members.front().data);
  auto& files = manifest["files"];
  for (auto it = files.begin(); it != files.end(); ++it) {
    if ((*it)["path"] == "evidence/spray-v-020/dut.p1.tx.pcapng") {
      files.erase(it);
      break;
    }
  }
  members.front().data = manifest.dump(2) + "\n";
  members.back().data = to_hex(sign_with_key_file(root_ / "signer.key", members.front().data)) + "\n";
  const BundleCheck c = verify(tar_of(members));
  EXPECT_EQ(joined(c), "evidence/spray-v-020/dut.p1.tx.pcapng (evidence of case spray-v-020): named by the case, not in "
                       "the bundle\n");
}

// What verify prints for the certifier: the DUT's identity, the suite and wire, the conformance and
// the counts, the run's times; read from the signed manifest and the bundle's results.json.
TEST_F(BundleTest, TheSummarySaysWhatWasCertified) {
  run_.meta.dut = "agent:10.0.0.2:7471";
  run_.meta.dut_version = "acme-nic-fw 4.2 (mrc-dut-agent), protocol version 5";
  run_.cases[1].verdict = Verdict::kFail;
  run_.meta.started_at = "2026-11-30T07:00:00Z";
  run_.meta.wall_seconds = 65.0;
  write_report();
  const BundleCheck c = verify(bundle_bytes(request()));
  ASSERT_TRUE(c.problems.empty()) << joined(c);
  std::string text;
  for (const std::string& l : summary_lines(c.summary)) text += l + "\n";
  EXPECT_EQ(text, "DUT: agent:10.0.0.2:7471 (acme-nic-fw 4.2 (mrc-dut-agent), protocol version 5)\n"
                  "suite: 0.1.0 (git abc1234), wire " + std::string(wire::kWireRevision) + "\n"
                  "conformant: no (profile full)\n"
                  "cases: 2: 1 PASS, 1 FAIL, 0 UNSUPPORTED, 0 INCONCLUSIVE, 0 ERROR\n"
                  "run: 2026-11-30T07:00:00Z to 2026-11-30T07:01:05Z\n");
}

TEST_F(BundleTest, AnotherKeyIsNamed) {
  const std::string bytes = bundle_bytes(request());
  const BundleCheck wrong = verify(bytes, "other.key");
  ASSERT_FALSE(wrong.problems.empty());
  EXPECT_NE(wrong.problems[0].find("the manifest names signer key " + key_fingerprint(pub("signer.key")) +
                                   ", not the --pubkey key " + key_fingerprint(pub("other.key"))),
            std::string::npos)
      << joined(wrong);
  // Signed by the other key, checked against ours.
  BundleRequest r = request();
  r.key = root_ / "other.key";
  EXPECT_FALSE(verify(bundle_bytes(r)).problems.empty());
  // No --pubkey: valid, but the signer is only named.
  testing::put_file(root_ / "unpinned.mrcb", bytes);
  const BundleCheck unpinned = verify_bundle(root_ / "unpinned.mrcb", std::nullopt, suite() / "cases");
  EXPECT_TRUE(unpinned.problems.empty()) << joined(unpinned);
  ASSERT_EQ(unpinned.notes.size(), 1u);
  EXPECT_EQ(unpinned.notes[0], "signature valid for key " + key_fingerprint(pub("signer.key")) + "; give --pubkey to check the signer");
}

TEST_F(BundleTest, TruncatedBundlesAreUnreadable) {
  const std::string bytes = bundle_bytes(request());
  const auto members = members_of(bytes);
  const std::size_t manifest_blocks = (members.front().data.size() + 511) / 512;
  const std::size_t sig_header = bytes.size() - 1024 - 512 - 512;  // the signature is one block of data
  for (const std::size_t cut : {std::size_t{100}, std::size_t{512 + 200}, (1 + manifest_blocks) * 512 + 300, sig_header,
                                bytes.size() - 1024, bytes.size() - 1}) {
    try {
      verify(bytes.substr(0, cut));
      ADD_FAILURE() << "cut at " << cut << " verified";
    } catch (const BundleInputError& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << cut << ": " << e.what();
    }
  }
}

TEST_F(BundleTest, ACaseFileOrGoldenOfAnotherSuiteIsNamed) {
  const std::string bytes = bundle_bytes(request());
  std::ofstream(suite() / "cases/spray/spray-v-020.yaml", std::ios::app) << "# edited\n";
  fs::remove(suite() / "pcaps/spray/spray-v-020.pcapng");
  const BundleCheck c = verify(bytes);
  EXPECT_EQ(joined(c),
            "cases/spray/spray-v-020.yaml (case spray-v-020): differs from this suite's tree (" +
                (suite() / "cases/spray/spray-v-020.yaml").string() + "); the bundle is from suite 0.1.0 (git abc1234)\n" +
                "pcaps/spray/spray-v-020.pcapng (golden): not in this suite's tree (" +
                (suite() / "pcaps/spray/spray-v-020.pcapng").string() + "); the bundle is from suite 0.1.0 (git abc1234)\n");
}

TEST_F(BundleTest, PartialReportsAndMissingInputsAreRefused) {
  auto message = [](const BundleRequest& r) -> std::string {
    try {
      make_bundle(r);
    } catch (const BundleInputError& e) {
      return e.what();
    }
    return "(made)";
  };
  run_.interrupted = true;
  write_reports(run_, report());
  EXPECT_NE(message(request()).find("the report is marked interrupted: a partial run certifies nothing"), std::string::npos)
      << message(request());
  BundleRequest partial = request();
  partial.allow_partial = true;
  EXPECT_EQ(nlohmann::json::parse(members_of(bundle_bytes(partial)).front().data)["run"]["interrupted"], true);

  BundleRequest no_report = request();
  no_report.report_dir = root_;
  EXPECT_NE(message(no_report).find("results.json: no such file"), std::string::npos) << message(no_report);
  fs::remove(suite() / "pcaps/spray/spray-v-020.pcapng");
  partial.cases_dir = suite() / "cases";
  EXPECT_NE(message(partial).find("golden of case spray-v-020: " + (suite() / "pcaps/spray/spray-v-020.pcapng").string() +
                                  " not found"),
            std::string::npos)
      << message(partial);
}

TEST_F(BundleTest, TheExpectationFileTravelsWithTheRun) {
  std::ofstream(root_ / "dut.expect.yaml") << "- case: spray-v-001\n  verdict: FAIL\n";
  BundleRequest r = request();
  r.expectations = root_ / "dut.expect.yaml";
  const std::string bytes = bundle_bytes(r);
  const auto members = members_of(bytes);
  const auto m = nlohmann::json::parse(members.front().data);
  EXPECT_EQ(m["expectations"], "inputs/expectations.yaml");
  bool found = false;
  for (const auto& mem : members) found = found || (mem.name == "inputs/expectations.yaml" && mem.data == slurp(root_ / "dut.expect.yaml"));
  EXPECT_TRUE(found);
  EXPECT_TRUE(verify(bytes).problems.empty());
}

// The bundle file appears whole or not at all: a file that changes between the hashing pass and the
// writing pass (the manifest would not match it) and an output folder that does not exist leave
// neither the bundle nor its .tmp.
TEST_F(BundleTest, AFileChangedWhileBundlingOrAnUnwritableOutputLeavesNoFile) {
  BundleRequest r = request();
  bool changed = false;
  r.progress = [&](std::uint64_t done, std::uint64_t total) {
    if (done < total || changed) return;
    std::ofstream(report() / "evidence/spray-v-020/dut.p1.tx.pcapng", std::ios::app) << "late frame";
    changed = true;
  };
  try {
    make_bundle(r);
    ADD_FAILURE() << "a file that changed after it was hashed was bundled";
  } catch (const BundleInputError& e) {
    EXPECT_NE(std::string(e.what()).find("dut.p1.tx.pcapng: changed while it was being bundled (now longer than when it was "
                                         "hashed)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(changed);
  EXPECT_FALSE(fs::exists(r.out));
  EXPECT_FALSE(fs::exists(root_ / "bundle.mrcb.tmp"));

  BundleRequest nowhere = request();
  nowhere.out = root_ / "no-such-folder" / "b.mrcb";
  EXPECT_THROW(make_bundle(nowhere), BundleWriteError);
  EXPECT_FALSE(fs::exists(root_ / "no-such-folder"));
}

// A bundle written into the report folder it packs: neither it nor a .tmp left by an earlier
// attempt becomes a member.
TEST_F(BundleTest, TheBundleAndItsTmpInsideTheReportAreNotPacked) {
  std::ofstream(report() / "b.mrcb.tmp") << "left by a killed bundle";
  BundleRequest r = request();
  r.out = report() / "b.mrcb";
  EXPECT_EQ(make_bundle(r).files, 5u);
  EXPECT_EQ(make_bundle(r).files, 5u);  // again, over the first
  for (const auto& m : testing::read_members(r.out)) EXPECT_FALSE(m.name.starts_with("b.mrcb")) << m.name;
}

// A bundle as the hand-written ustar writer (until commit 8dc68f8) wrote it: its headers end their
// numbers with NUL and leave devmajor/devminor empty (tar_archive_test.cpp pins the fixture of that
// writer). Rewritten to that form, a fresh bundle still verifies: verify reads the bundles made
// before libarchive.
TEST_F(BundleTest, ABundleInTheHandWrittenWritersFormVerifies) {
  const std::string now = bundle_bytes(request());
  std::string old = now;
  std::size_t off = 0;
  for (const Member& m : members_of(now)) {
    char* h = old.data() + off;
    auto octal = [&](std::size_t at, std::size_t len, std::uint64_t v) {
      std::snprintf(h + at, len, "%0*llo", static_cast<int>(len - 1), static_cast<unsigned long long>(v));
    };
    octal(100, 8, 0644);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, m.data.size());
    octal(136, 12, 0);
    std::memset(h + 329, 0, 16);  // devmajor, devminor
    unsigned sum = 0;
    for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    std::snprintf(h + 148, 7, "%06o", sum);
    h[155] = ' ';
    off += 512 + (m.data.size() + 511) / 512 * 512;
  }
  ASSERT_NE(old, now);
  EXPECT_EQ(std::string(old.data() + 100, 8), std::string("0000644\0", 8));
  const BundleCheck c = verify(old);
  EXPECT_TRUE(c.problems.empty()) << joined(c);
  EXPECT_EQ(c.files, 5u);
}

TEST_F(BundleTest, ArchivesThatAreNoBundleAreUnreadable) {
  EXPECT_THROW(verify(tar_of(std::vector<Member>{{"a.txt", "x"}})), BundleInputError);
  EXPECT_THROW(verify("just text\n"), BundleInputError);
  EXPECT_THROW(verify(""), BundleInputError);
  EXPECT_THROW(verify(tar_of(std::vector<Member>{{"manifest.json", "not json"}, {"manifest.sig", "00"}})),
               BundleInputError);
}

}  // namespace
}  // namespace mrc::harness
