// The bracket every file of a report folder (and a certification bundle) is written in: a new
// `<path>.tmp`, filled, fsynced, renamed over `<path>`, so a reader sees the previous complete
// file or the new complete one, never a torn one; a second Ctrl-C during the write waits for it or
// removes the .tmp (report_folder.hpp). write_file_atomically and copy_file_atomically
// (report.hpp) are this with bytes in memory and with a file a chunk at a time.
#pragma once

#include <filesystem>
#include <functional>

namespace mrc::harness {

// `fill` writes the content to the open descriptor of `<path>.tmp` (it must not close it) and
// throws on failure. Throws ReportError for the bracket's own failures (create, fsync, close,
// rename) naming the file; whatever `fill` throws passes through. Either way nothing is left of
// the .tmp and `path` is untouched.
void write_through_tmp(const std::filesystem::path& path, const std::function<void(int fd)>& fill);

}  // namespace mrc::harness
