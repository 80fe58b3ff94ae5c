// Reading whole captures: every packet of every interface of a file, through CaptureStream
// (capture_stream.hpp: pcapng parsed there, classic pcap through libpcap).
#include "harness/capture/capture_stream.hpp"
#include "harness/capture/pcapng.hpp"
#include "harness/capture/pcapng_bytes.hpp"

namespace mrc::harness {

namespace {

// Every packet of an opened stream into one ReadInterface per interface, in file order (an
// interface without packets too). `err` is open()'s result.
std::string collect(CaptureStream& s, std::string err, std::vector<ReadInterface>& out) {
  const auto sync = [&] {
    while (out.size() < s.interfaces().size()) {
      const StreamInterface& i = s.interfaces()[out.size()];
      out.emplace_back();
      out.back().name = i.name;
      out.back().capture.set_tap(i.tap);
    }
  };
  if (err.empty()) {
    StreamPacket p;
    while (s.next(p)) {
      sync();
      ReadInterface& ri = out[p.iface];
      ri.capture.add(p.ts_ns, p.bytes, p.origlen, p.port);
      ri.file_index.push_back(static_cast<std::uint32_t>(p.file_index));
    }
    err = s.error();
  }
  sync();
  for (auto& i : out) i.capture.integrity().offered = i.capture.integrity().captured;
  return err;
}

}  // namespace

std::string read_capture_file(const std::filesystem::path& path, std::vector<ReadInterface>& out) {
  out.clear();
  CaptureStream s;
  std::string err = s.open(path);
  return collect(s, std::move(err), out);
}

std::string read_pcapng_bytes(const std::filesystem::path& origin, const std::string& bytes, std::vector<ReadInterface>& out) {
  out.clear();
  CaptureStream s;
  std::string err = s.open_bytes(origin, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  return collect(s, std::move(err), out);
}

std::string read_capture(const std::filesystem::path& path, Capture& out) {
  std::vector<ReadInterface> ifaces;
  const std::string err = read_capture_file(path, ifaces);
  out.clear();
  out.set_tap(path.stem().string());
  if (ifaces.size() > 1 && err.empty()) {
    std::string names;
    for (const auto& i : ifaces) names += (names.empty() ? "" : ", ") + i.capture.tap();
    return path.string() + ": " + std::to_string(ifaces.size()) + " interfaces (" + names +
           "); name one (mrc-conform diff --iface NAME)";
  }
  if (!ifaces.empty()) {
    const Capture& c = ifaces.front().capture;
    for (std::size_t i = 0; i < c.size(); ++i) {
      out.add(c.packet(i).ts_ns, c.bytes(i), c.packet(i).origlen, c.packet(i).port);
    }
  }
  out.integrity().offered = out.integrity().captured;
  return err;
}

}  // namespace mrc::harness
