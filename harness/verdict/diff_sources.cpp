// The packet sources of the streaming diff (diff_stream.hpp): a capture in memory, and one
// interface of a capture file read by its own CaptureStream.
#include <memory>
#include <string>

#include "harness/verdict/diff_stream.hpp"

namespace mrc::harness {

std::string CaptureSource::rewind() {
  i_ = 0;
  return {};
}

bool CaptureSource::next(SourcePacket& p) {
  if (i_ >= c_.size()) return false;
  p.ts_ns = c_.packet(i_).ts_ns;
  p.bytes = c_.bytes(i_);
  p.handle = i_;
  p.label = static_cast<std::int64_t>(i_);
  ++i_;
  return true;
}

std::string CaptureSource::fetch(std::uint64_t handle, SourcePacket& p) {
  if (handle >= c_.size()) return "packet " + std::to_string(handle) + " is not in the capture";
  p.ts_ns = c_.packet(handle).ts_ns;
  p.bytes = c_.bytes(handle);
  p.handle = handle;
  p.label = static_cast<std::int64_t>(handle);
  return {};
}

FileInterfaceSource::FileInterfaceSource(const std::filesystem::path& path, std::uint32_t iface)
    : path_(path), iface_(iface) {
  open_error_ = s_.open(path);
}

bool FileInterfaceSource::next(SourcePacket& p) {
  while (s_.next(sp_)) {
    if (sp_.iface != iface_) continue;
    p.ts_ns = sp_.ts_ns;
    p.bytes = sp_.bytes;
    p.handle = sp_.offset;
    p.label = static_cast<std::int64_t>(sp_.file_index);
    return true;
  }
  return false;
}

std::unique_ptr<PacketSource> CaptureSource::reopen() const { return std::make_unique<CaptureSource>(c_); }

std::unique_ptr<PacketSource> FileInterfaceSource::reopen() const {
  auto s = std::make_unique<FileInterfaceSource>(path_, iface_);
  if (!s->open_error().empty()) return nullptr;
  s->adopt_interfaces(s_);
  return s;
}

void FileInterfaceSource::learn_from(const PacketSource& reader) {
  if (const auto* f = dynamic_cast<const FileInterfaceSource*>(&reader)) s_.adopt_interfaces(f->s_);
}

std::string FileInterfaceSource::fetch(std::uint64_t handle, SourcePacket& p) {
  // A source the diff has not read (another reader makes its rows) learns the interface here: its
  // description comes before the interface's first packet.
  while (s_.interfaces().size() <= iface_ && s_.error().empty() && s_.next(sp_)) {
  }
  // file_index is only for messages here; the offset finds the record
  if (std::string e = s_.fetch(handle, 0, sp_); !e.empty()) return e;
  p.ts_ns = sp_.ts_ns;
  p.bytes = sp_.bytes;
  p.handle = handle;
  p.label = static_cast<std::int64_t>(sp_.file_index);
  return {};
}

}  // namespace mrc::harness
