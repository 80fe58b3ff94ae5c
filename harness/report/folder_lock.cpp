#include "harness/report/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

// "pid 4242 since 2026-11-30T07:12:03Z: mrc-conform run --out r" (the command line as the kernel
// has it, words joined by spaces, cut at 300 characters).
std::string holder_text() {
  std::string cmd;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  for (char ch = 0; in.get(ch) && cmd.size() < 300;) cmd += ch == '\0' ? ' ' : ch;
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  char when[32] = "?";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (gmtime_r(&now, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return "pid " + std::to_string(::getpid()) + " since " + when + ": " + cmd;
}

// What the holder wrote, printable only, on one line (a lock file is anyone's to write).
std::string read_holder(int fd) {
  char buf[512];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s;
  for (ssize_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(buf[i]);
    if (c == '\n') break;
    s += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
  }
  return s.empty() ? "a process that has not said who it is yet" : s;
}

}  // namespace

std::unique_ptr<FolderLock> FolderLock::take(const fs::path& target, std::string* why) {
  fs::path file = target;
  file += std::string(kLockSuffix);
  // The file a holder removes on release may be opened by another process in between: lock, then
  // check that the name still leads to the locked file, else try again with the new one.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (why) *why = "cannot create " + file.string() + " (the folder's lock): " + std::strerror(errno);
      return nullptr;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (why) {
        *why = err == EWOULDBLOCK ? "in use by another run (" + read_holder(fd) + "; " + file.string() +
                                        "): wait for it to end, or give another folder"
                                  : "cannot lock " + file.string() + ": " + std::strerror(err);
      }
      ::close(fd);
      return nullptr;
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) != 0 || ::stat(file.c_str(), &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string text = holder_text() + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) < 0) {
      // Who holds it is a courtesy to the one refused; the lock itself is what counts.
    }
    return std::unique_ptr<FolderLock>(new FolderLock(std::move(file), fd));
  }
  if (why) *why = "cannot lock " + file.string() + ": it was replaced under us again and again";
  return nullptr;
}

void FolderLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());  // while still held: whoever opens the name next makes a new file
  ::close(fd_);
  fd_ = -1;
}

FolderLock::~FolderLock() { release(); }

}  // namespace mrc::harness
