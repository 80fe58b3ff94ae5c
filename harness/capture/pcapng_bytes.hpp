// A pcapng file already in memory (a certification bundle's member, harness/certify/replay.hpp), read
// as read_capture_file() reads a file (pcapng.hpp). Apart from pcapng.hpp so that the many files
// that include it do not depend on this one's callers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/capture/pcapng.hpp"

namespace mrc::harness {

// Every interface of the pcapng `bytes`; `origin` names it in errors. Classic pcap is not read
// this way (libpcap reads files only). Returns "" on success, else the error.
std::string read_pcapng_bytes(const std::filesystem::path& origin, const std::string& bytes, std::vector<ReadInterface>& out);

}  // namespace mrc::harness
