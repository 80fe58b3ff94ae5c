// One writer per report folder: a second command given the same --out while the first still
// writes it would delete evidence the first one's report names. The holder takes an exclusive
// flock(2) on `<out>.lock` beside the folder and writes who it is into it (pid, start time,
// command line); a second one is refused with that text. The kernel drops the lock when the
// holder exits, however it exits, so a killed run never leaves the folder locked; the file itself
// is removed when the holder lets go (a second Ctrl-C may leave it, stale and harmless).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace mrc::harness {

inline constexpr std::string_view kLockSuffix = ".lock";

class FolderLock {
 public:
  // Takes the lock of the report folder `target` (an absolute, normal path). Null when another
  // process holds it (*why: "in use by another run: <holder>") or the lock file cannot be made
  // (*why: the file and the reason).
  static std::unique_ptr<FolderLock> take(const std::filesystem::path& target, std::string* why);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  // Removes the lock file and lets go (idempotent; the destructor does it too).
  void release() noexcept;

 private:
  FolderLock(std::filesystem::path file, int fd) : file_(std::move(file)), fd_(fd) {}
  std::filesystem::path file_;
  int fd_ = -1;
};

}  // namespace mrc::harness
