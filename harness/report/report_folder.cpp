#include "harness/report/report_folder.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <set>

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

// What the signal handler reads: fixed buffers, published by an atomic flag, so it needs no lock
// and no allocation. Up to kMaxStaged folders at a time (interop nests each pair's run in its own).
constexpr std::size_t kMaxStaged = 4;
struct HandlerEntry {
  char target[PATH_MAX];
  char staging[PATH_MAX];
  std::atomic<bool> live{false};
};
HandlerEntry g_entries[kMaxStaged];
std::mutex g_entries_mu;  // guards registration (never taken by the handler)
// Report files being written (write_file_atomically). The handler waits for the other threads'
// writes to finish before it moves the folder, so no .tmp is carried into place half written; a
// write the signal interrupted on the handler's own thread never resumes, so its .tmp is removed.
std::atomic<int> g_writes_active{0};
std::atomic<bool> g_closing{false};
thread_local char t_tmp[PATH_MAX];
thread_local volatile std::sig_atomic_t t_writing = 0;

// The handler's bound on another thread's write in flight (a report file is written and fsynced
// in milliseconds; a stalled disk must not keep a second Ctrl-C from ending the process).
constexpr long kWriteWaitNs = 2'000'000'000;
// How long a write that starts after the second signal waits for the handler to end the process.
constexpr long kClosingWaitNs = 10'000'000'000;

long elapsed_ns(const timespec& from) {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - from.tv_sec) * 1'000'000'000L + (now.tv_nsec - from.tv_nsec);
}

void nap() {
  const timespec ms{0, 1'000'000};
  ::nanosleep(&ms, nullptr);
}

bool copy_path(char* into, const fs::path& p) {
  const std::string& s = p.native();
  if (s.size() + 1 > PATH_MAX) return false;
  std::memcpy(into, s.c_str(), s.size() + 1);
  return true;
}

void register_entry(const StagedFolder& f) {
  std::lock_guard<std::mutex> lock(g_entries_mu);
  for (auto& e : g_entries) {
    if (e.live.load()) continue;
    if (!copy_path(e.target, f.target) || !copy_path(e.staging, f.staging)) return;
    e.live.store(true);
    return;
  }
}

void unregister_entry(const StagedFolder& f) {
  std::lock_guard<std::mutex> lock(g_entries_mu);
  for (auto& e : g_entries) {
    if (e.live.load() && f.staging.native() == e.staging) e.live.store(false);
  }
}

// "reports/latest/" -> "/abs/reports/latest": the sibling names need a last component.
fs::path normal_target(const fs::path& out) {
  std::error_code ec;
  fs::path p = fs::absolute(out, ec).lexically_normal();
  if (ec) p = out.lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

fs::path with_suffix(const fs::path& p, std::string_view suffix) {
  fs::path s = p;
  s += std::string(suffix);
  return s;
}

// What a report folder of this tool may hold. Anything else in --out means it is not one (a home
// folder, a source tree): it is refused, since a complete run replaces the folder whole.
bool report_entry(const std::string& name) {
  static const std::set<std::string, std::less<>> kNames{
      "results.json", "junit.xml",     "index.html",     "evidence",       "campaign.json", "campaign.html",
      "variants.json", "variants.html", "falsefail.json", "interop.json",  "pairs",         ".reserve",
      "shard.json",   "kills"};
  return kNames.contains(name) || name.ends_with(".tmp");
}

// The first entry of `dir` that is not part of a report ("" when none).
std::string foreign_entry(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!report_entry(name)) return name;
  }
  return "";
}

bool holds_something(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fs::exists(dir, ec);
  return fs::directory_iterator(dir, ec) != fs::directory_iterator();
}

// The renames of place_staged: the previous report aside, the staged folder in, the previous
// report removed.
Placement move_into_place(const StagedFolder& f, bool complete) {
  Placement p;
  p.dir = f.staging;
  if (!complete && f.had_previous) {
    p.kept_previous = true;
    return p;
  }
  std::error_code ec;
  const fs::path old = with_suffix(f.target, kOldSuffix);
  fs::remove_all(old, ec);
  const bool moved_aside = fs::exists(f.target, ec);
  if (moved_aside) {
    fs::rename(f.target, old, ec);
    if (ec) {
      p.error = "cannot move the previous " + f.target.string() + " aside: " + ec.message();
      return p;
    }
  }
  fs::rename(f.staging, f.target, ec);
  if (ec) {
    p.error = "cannot move " + f.staging.string() + " into place: " + ec.message();
    std::error_code back;
    if (moved_aside) fs::rename(old, f.target, back);
    return p;
  }
  p.dir = f.target;
  if (moved_aside) fs::remove_all(old, ec);
  return p;
}

}  // namespace

StagedFolder stage_report_folder(const fs::path& out, std::string* why) {
  StagedFolder f;
  const fs::path target = normal_target(out);
  auto fail = [&](const std::string& what) {
    if (why) *why = "--out " + out.string() + ": " + what;
    return StagedFolder{};
  };
  if (target == target.root_path() || target.filename().empty()) return fail("cannot take a report: give a folder below /");
  std::error_code ec;
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) return fail("exists and is not a folder");
  // The lock first: everything below reads or removes what another run may be writing.
  fs::create_directories(target.parent_path(), ec);
  std::string held;
  std::shared_ptr<FolderLock> lock = FolderLock::take(target, &held);
  if (!lock) return fail(held);
  if (fs::is_directory(target, ec)) {
    if (std::string other = foreign_entry(target); !other.empty()) {
      return fail("holds " + other + ", which is not part of a report; give an empty folder or one a previous run "
                  "wrote (a complete run replaces it whole)");
    }
  }
  f.target = target;
  f.lock = std::move(lock);
  f.staging = with_suffix(target, kStagingSuffix);
  f.had_previous = holds_something(target);
  for (const fs::path& stale : {f.staging, with_suffix(target, kOldSuffix)}) {
    fs::remove_all(stale, ec);
    if (ec) return fail("cannot remove the stale " + stale.string() + " of an earlier run: " + ec.message());
  }
  fs::create_directories(f.staging, ec);
  if (ec) return fail("cannot create " + f.staging.string() + ": " + ec.message());
  const fs::path probe = f.staging / ".mrc-conform-write-test";
  {
    std::ofstream p(probe);
    if (!(p << "x") || !p.flush()) {
      fs::remove_all(f.staging, ec);
      return fail("cannot write into " + f.staging.string());
    }
  }
  fs::remove(probe, ec);
  if (!f.had_previous) {  // the handler may swap it in only then
    register_entry(f);
    f.registered = true;
  }
  return f;
}

Placement place_staged(StagedFolder& f, bool complete) {
  // The handler of a second Ctrl-C waits for this (it would otherwise find the folder neither
  // registered nor in place), and the folder stays registered until it is in place.
  if (!begin_report_write(nullptr)) {
    Placement stopped;
    stopped.dir = f.staging;
    stopped.error = "not placed: the process is being stopped";
    return stopped;
  }
  Placement p = move_into_place(f, complete);
  if (f.registered) unregister_entry(f);
  f.registered = false;
  end_report_write();
  if (f.lock) f.lock->release();
  return p;
}

void discard_staged(StagedFolder& f) {
  if (f.registered) unregister_entry(f);
  f.registered = false;
  std::error_code ec;
  if (!f.staging.empty()) fs::remove_all(f.staging, ec);
  if (f.lock) f.lock->release();
}

bool begin_report_write(const fs::path* tmp) noexcept {
  g_writes_active.fetch_add(1);
  if (g_closing.load()) {
    // The handler is placing the folder and ending the process; a file started now could land in
    // it half written. Wait (bounded) for the end instead of writing.
    g_writes_active.fetch_sub(1);
    timespec from{};
    ::clock_gettime(CLOCK_MONOTONIC, &from);
    while (elapsed_ns(from) < kClosingWaitNs) nap();
    return false;
  }
  t_tmp[0] = '\0';
  if (tmp != nullptr) (void)copy_path(t_tmp, *tmp);
  t_writing = 1;
  return true;
}

void end_report_write() noexcept {
  t_writing = 0;
  g_writes_active.fetch_sub(1);
}

void place_staged_from_signal_handler() noexcept {
  g_closing.store(true);
  // A write this thread was in never resumes: remove its .tmp, and stop counting it.
  // (A placement it interrupted is finished below: rename(2) of the staging folder either already
  // happened, or happens now over the absent or empty target.)
  const bool own = g_writes_active.load() > 0 && t_writing != 0;
  if (own && t_tmp[0] != '\0') ::unlink(t_tmp);
  timespec from{};
  ::clock_gettime(CLOCK_MONOTONIC, &from);
  while (g_writes_active.load() > (own ? 1 : 0) && elapsed_ns(from) < kWriteWaitNs) nap();
  for (std::size_t i = kMaxStaged; i-- > 0;) {
    HandlerEntry& e = g_entries[i];
    if (!e.live.load()) continue;
    // rename(2) replaces an empty folder; a folder with a previous report is never registered
    // for a swap here (stage_report_folder registers only when it was empty or absent).
    ::rmdir(e.target);
    ::rename(e.staging, e.target);
  }
}

}  // namespace mrc::harness
