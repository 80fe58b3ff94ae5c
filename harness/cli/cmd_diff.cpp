// `mrc-conform diff`: the golden differ on any two captures. An evidence file holds one interface
// per tap: --iface picks one, or two files of the same interface names are compared name by name.
// Packet indexes and filters in the output are the file's (frame number - 1), so Wireshark finds
// them whatever interface they are on.
#include <algorithm>
#include <filesystem>
#include <ostream>

#include "harness/capture/pcapng.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/diff.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitFail;
using run::kExitPass;

namespace {

std::string names_of(const std::vector<harness::ReadInterface>& f) {
  std::string s;
  for (const auto& i : f) s += (s.empty() ? "" : ", ") + i.capture.tap();
  return s;
}

std::vector<std::string> sorted_names(const std::vector<harness::ReadInterface>& f) {
  std::vector<std::string> v;
  for (const auto& i : f) v.push_back(i.capture.tap());
  std::sort(v.begin(), v.end());
  return v;
}

const harness::ReadInterface* find(const std::vector<harness::ReadInterface>& f, const std::string& name) {
  for (const auto& i : f) {
    if (i.capture.tap() == name) return &i;
  }
  return nullptr;
}

// The interface of `file` to compare: the only one, or the one named `iface`; nullptr after
// writing the error.
const harness::ReadInterface* pick(const std::vector<harness::ReadInterface>& f, const std::string& path,
                                   const std::string& iface, std::ostream& err) {
  if (f.empty()) {
    err << "error: " << path << ": no interface description block, no packets to compare\n";
    return nullptr;
  }
  if (f.size() == 1) return &f.front();
  if (const auto* i = find(f, iface)) return i;
  err << "error: " << path << ": no interface named '" << iface << "'; --iface takes one of: " << names_of(f) << '\n';
  return nullptr;
}

// Indexes and filters of the interface's packets -> the file's.
void to_file_positions(harness::DiffReport& r, const harness::ReadInterface& a, const harness::ReadInterface& b) {
  for (harness::Difference& d : r.differences) {
    if (d.index_a >= 0 && static_cast<std::size_t>(d.index_a) < a.file_index.size()) {
      d.index_a = a.file_index[static_cast<std::size_t>(d.index_a)];
      d.filter_a = harness::retarget_frame_filter(d.filter_a, d.index_a);
    }
    if (d.index_b >= 0 && static_cast<std::size_t>(d.index_b) < b.file_index.size()) {
      d.index_b = b.file_index[static_cast<std::size_t>(d.index_b)];
      d.filter_b = harness::retarget_frame_filter(d.filter_b, d.index_b);
    }
  }
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
  std::vector<harness::ReadInterface> fa;
  std::vector<harness::ReadInterface> fb;
  for (const auto& [path, into] : {std::pair{&o.a, &fa}, std::pair{&o.b, &fb}}) {
    if (std::string e = harness::read_capture_file(*path, *into); !e.empty()) {
      err << "error: " << e << '\n';
      return kExitBadInput;
    }
  }
  // The pairs to compare: (A's interface, B's interface).
  std::vector<std::pair<const harness::ReadInterface*, const harness::ReadInterface*>> pairs;
  if (!o.iface.empty() || (fa.size() <= 1 && fb.size() <= 1)) {
    const auto* a = pick(fa, o.a, o.iface, err);
    const auto* b = a ? pick(fb, o.b, o.iface, err) : nullptr;
    if (!a || !b) return kExitBadInput;
    pairs.emplace_back(a, b);
  } else if (const auto names = sorted_names(fa);
             names == sorted_names(fb) && std::adjacent_find(names.begin(), names.end()) == names.end()) {
    for (const auto& i : fa) pairs.emplace_back(&i, find(fb, i.capture.tap()));
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

  harness::DiffOptions opt;
  opt.masks = run::split_lists(o.masks);
  opt.window = std::max<std::uint32_t>(1, o.window);
  opt.tolerance_ns = o.tolerance_ns;
  opt.tolerance_pct = o.tolerance_pct;
  opt.max_differences = std::max<std::size_t>(o.max_lines, 1);
  opt.name_a = o.a;
  opt.name_b = o.b;
  bool identical = true;
  for (const auto& [a, b] : pairs) {
    harness::DiffReport r = harness::diff_captures(a->capture, b->capture, opt);
    if (!r.ok()) {
      err << "error: " << r.error << '\n';
      return kExitBadInput;
    }
    to_file_positions(r, *a, *b);
    if (pairs.size() > 1) out << "interface " << a->capture.tap() << ":\n";
    out << harness::render_diff(r, opt, o.max_lines);
    identical = identical && r.identical();
  }
  return identical ? kExitPass : kExitFail;
}

}  // namespace mrc::cli
