// Reading the agent's shared token from a file (`--agent-token-file`, `mrc-dut-agent
// --token-file`): the first line, surrounding blanks and CR dropped. Only a regular file of at
// most kMaxTokenFileBytes is read, so a FIFO nobody writes, /dev/zero or a huge file is refused at
// once instead of blocking or growing for ever.
#pragma once

#include <string>

namespace mrc::agentproto {

inline constexpr std::size_t kMaxTokenFileBytes = 4096;

// "" and the token, or why the file cannot serve (naming what it is).
std::string read_token_file(const std::string& path, std::string& token);

}  // namespace mrc::agentproto
