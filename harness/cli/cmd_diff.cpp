// `mrc-conform diff`: the golden differ on any two captures. An evidence file holds one interface
// per tap: --iface picks one, or two files of the same interface names are compared name by name.
// Packet indexes and filters in the output are the file's (frame number - 1), so Wireshark finds
// them whatever interface they are on. Both files are streamed (diff_stream.hpp): a scan of the
// records alone refuses a damaged file before anything is compared and finds the interfaces,
// then the diff reads the packets.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <system_error>
#include <thread>

#include "harness/capture/capture_stream.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/diff.hpp"
#include "harness/verdict/diff_stream.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitFail;
using run::kExitPass;

namespace {

using Names = std::vector<harness::StreamInterface>;

std::string names_of(const Names& f) {
  std::string s;
  for (const auto& i : f) s += (s.empty() ? "" : ", ") + i.tap;
  return s;
}

std::vector<std::string> sorted_names(const Names& f) {
  std::vector<std::string> v;
  for (const auto& i : f) v.push_back(i.tap);
  std::sort(v.begin(), v.end());
  return v;
}

int find(const Names& f, const std::string& name) {
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i].tap == name) return static_cast<int>(i);
  }
  return -1;
}

// The interface of `file` to compare: the only one, or the one named `iface`; -1 after writing
// the error.
int pick(const Names& f, const std::string& path, const std::string& iface, std::ostream& err) {
  if (f.empty()) {
    err << "error: " << path << ": no interface description block, no packets to compare\n";
    return -1;
  }
  if (f.size() == 1) return 0;
  if (const int i = find(f, iface); i >= 0) return i;
  err << "error: " << path << ": no interface named '" << iface << "'; --iface takes one of: " << names_of(f) << '\n';
  return -1;
}

// Reads the whole file's records once, in bounded memory, without decoding a packet: a damaged
// file is refused before anything is compared, and the interfaces are known however late their
// descriptions come.
std::string scan(const std::string& path, harness::CaptureStream& s, Names& names) {
  if (std::string e = s.open(path); !e.empty()) return e;
  harness::StreamPacket p;
  while (s.next(p)) {
  }
  names = s.interfaces();
  return s.error();
}

// The interfaces a file describes before its first packet: an evidence file describes all its
// taps up front. 0 when it cannot be read.
std::size_t interfaces_up_front(const std::string& path) {
  harness::CaptureStream s;
  if (!s.open(path).empty()) return 0;
  harness::StreamPacket p;
  s.next(p);
  return s.interfaces().size();
}

// The usual pair, one interface in each file: the diff reads each file once and learns on the way
// that it has one interface (which only reading a file through can tell). False, with nothing
// written, when that is not so or anything failed: the scan then says what a scan says.
bool diff_single_interfaces(const DiffCliOptions& o, const harness::DiffOptions& opt, std::string& text,
                            bool& identical) {
  if (interfaces_up_front(o.a) != 1 || interfaces_up_front(o.b) != 1) return false;
  harness::FileInterfaceSource sa(o.a, 0);
  harness::FileInterfaceSource sb(o.b, 0);
  if (!sa.open_error().empty() || !sb.open_error().empty()) return false;
  const harness::DiffReport r = harness::diff_streams(sa, sb, opt);
  if (!r.ok() || sa.interfaces().size() != 1 || sb.interfaces().size() != 1) return false;
  text = harness::render_diff(r, opt, o.max_lines);
  identical = r.identical();
  return true;
}

}  // namespace

int run_diff(const DiffCliOptions& o, std::ostream& out, std::ostream& err) {
  for (const auto& f : {o.a, o.b}) {
    // libpcap's own message repeats the path
    if (std::error_code ec; !std::filesystem::is_regular_file(f, ec)) {
      err << "error: " << f << (std::filesystem::exists(f, ec) ? ": not a regular file\n" : ": no such file\n");
      return kExitBadInput;
    }
  }
  harness::DiffOptions opt;
  opt.masks = run::split_lists(o.masks);
  opt.window = std::max<std::uint32_t>(1, o.window);
  opt.tolerance_ns = o.tolerance_ns;
  opt.tolerance_pct = o.tolerance_pct;
  opt.max_differences = std::max<std::size_t>(o.max_lines, 1);
  opt.name_a = o.a;
  opt.name_b = o.b;
  opt.dscp.trimmed = static_cast<std::uint8_t>(o.trimmed_dscp & 63);
  opt.dscp.trimmed_lasthop = static_cast<std::uint8_t>(o.trimmed_lasthop_dscp & 63);
  bool identical_one = true;
  if (std::string text; diff_single_interfaces(o, opt, text, identical_one)) {
    out << text;
    return identical_one ? kExitPass : kExitFail;
  }
  Names fa;
  Names fb;
  harness::CaptureStream scan_a;  // kept: the diff's sources take their interfaces
  harness::CaptureStream scan_b;
  // Both scans at once (two cores, two files); A's error is the one told when both are bad.
  std::string eb;
  std::thread tb;
  try {
    tb = std::thread([&] { eb = scan(o.b, scan_b, fb); });
  } catch (const std::system_error&) {
    eb = scan(o.b, scan_b, fb);
  }
  std::string ea = scan(o.a, scan_a, fa);
  if (tb.joinable()) tb.join();
  for (const std::string* e : {&ea, &eb}) {
    if (!e->empty()) {
      err << "error: " << *e << '\n';
      return kExitBadInput;
    }
  }
  // The pairs to compare: (A's interface, B's interface).
  std::vector<std::pair<int, int>> pairs;
  if (!o.iface.empty() || (fa.size() <= 1 && fb.size() <= 1)) {
    const int a = pick(fa, o.a, o.iface, err);
    const int b = a >= 0 ? pick(fb, o.b, o.iface, err) : -1;
    if (a < 0 || b < 0) return kExitBadInput;
    pairs.emplace_back(a, b);
  } else if (const auto names = sorted_names(fa);
             names == sorted_names(fb) && std::adjacent_find(names.begin(), names.end()) == names.end()) {
    for (std::size_t i = 0; i < fa.size(); ++i) pairs.emplace_back(static_cast<int>(i), find(fb, fa[i].tap));
  } else {
    for (const auto& [path, f] : {std::pair{&o.a, &fa}, std::pair{&o.b, &fb}}) {
      if (f->size() > 1) {
        err << "error: " << *path << " has " << f->size() << " interfaces (" << names_of(*f)
            << "); name the one to compare with --iface NAME (two files with the same interface names are compared "
               "interface by interface)\n";
      }
    }
    return kExitBadInput;
  }

  bool identical = true;
  std::string text;  // printed once every pair is compared: an error prints nothing else
  for (const auto& [a, b] : pairs) {
    // Each pair streams both files (diff_stream.hpp): memory bounded by the window, not the files.
    harness::FileInterfaceSource sa(o.a, static_cast<std::uint32_t>(a));
    harness::FileInterfaceSource sb(o.b, static_cast<std::uint32_t>(b));
    for (const auto* s : {&sa, &sb}) {
      if (!s->open_error().empty()) {
        err << "error: " << s->open_error() << '\n';
        return kExitBadInput;
      }
    }
    sa.adopt_interfaces(scan_a);
    sb.adopt_interfaces(scan_b);
    const harness::DiffReport r = harness::diff_streams(sa, sb, opt);
    if (!r.ok()) {
      err << "error: " << r.error << '\n';
      return kExitBadInput;
    }
    if (pairs.size() > 1) text += "interface " + fa[static_cast<std::size_t>(a)].tap + ":\n";
    text += harness::render_diff(r, opt, o.max_lines);
    identical = identical && r.identical();
  }
  out << text;
  return identical ? kExitPass : kExitFail;
}

}  // namespace mrc::cli
