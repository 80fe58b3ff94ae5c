#include "harness/agentproto/token_file.hpp"

#include <sys/stat.h>

#include <fstream>

#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto {

std::string read_token_file(const std::string& path, std::string& token) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot be read (it does not exist or is not accessible)";
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                              : "not a file";
    return std::string("is ") + what + ", not a regular file holding the token";
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxTokenFileBytes) {
    return "is " + std::to_string(st.st_size) + " bytes; a token file holds one line of at most " +
           std::to_string(limit::kToken) + " bytes (" + std::to_string(kMaxTokenFileBytes) + " bytes at most in all)";
  }
  std::ifstream f(path);
  token.clear();
  if (!f || !std::getline(f, token)) return "cannot be read, or is empty";
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
  return {};
}

}  // namespace mrc::agentproto
