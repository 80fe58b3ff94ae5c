#include "harness/run/replay_context.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "harness/verdict/verdict.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::run {
namespace {

using Json = nlohmann::ordered_json;

std::string hex(const std::uint8_t* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 0xF];
  }
  return s;
}

Json number(double v) {  // JSON has no NaN or infinity: those go as text
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

// ---- reading: every value is checked, and a wrong one names its JSON pointer.
struct BadContext : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class In {
 public:
  In(const Json& j, std::string ptr) : j_(j), ptr_(std::move(ptr)) {}

  In at(const std::string& key) const {
    if (!j_.is_object() || !j_.contains(key)) throw BadContext(ptr_ + "/" + key + ": missing");
    return In(j_.at(key), ptr_ + "/" + key);
  }
  In at(std::size_t i) const { return In(j_.at(i), ptr_ + "/" + std::to_string(i)); }
  bool has(const std::string& key) const { return j_.is_object() && j_.contains(key); }
  std::size_t size() const {
    if (!j_.is_array()) fail("expected an array");
    return j_.size();
  }
  std::uint64_t u64() const {
    if (!j_.is_number_unsigned()) fail("expected an unsigned integer");
    return j_.get<std::uint64_t>();
  }
  template <class T>
  T uint() const {
    const std::uint64_t v = u64();
    if (v > std::numeric_limits<T>::max()) fail("out of range (" + std::to_string(v) + ")");
    return static_cast<T>(v);
  }
  std::int64_t i64() const {
    if (!j_.is_number_integer()) fail("expected an integer");
    return j_.get<std::int64_t>();
  }
  int i32() const {
    const std::int64_t v = i64();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) fail("out of range");
    return static_cast<int>(v);
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("expected true or false");
    return j_.get<bool>();
  }
  std::string str() const {
    if (!j_.is_string()) fail("expected a string");
    return j_.get<std::string>();
  }
  double real() const {
    if (j_.is_number()) return j_.get<double>();
    const std::string s = j_.is_string() ? j_.get<std::string>() : "";
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    fail("expected a number");
  }
  std::vector<std::uint8_t> bytes() const {
    const std::string s = str();
    if (s.size() % 2) fail("expected hex digits in pairs");
    std::vector<std::uint8_t> out(s.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
      int v = 0;
      for (char c : {s[2 * i], s[2 * i + 1]}) {
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) fail("expected lower-case hex digits");
        v = v * 16 + d;
      }
      out[i] = static_cast<std::uint8_t>(v);
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& what) const { throw BadContext(ptr_ + ": " + what); }

 private:
  const Json& j_;
  std::string ptr_;
};

template <class T, class F>
std::vector<T> list(const In& a, F&& one) {
  std::vector<T> out;
  const std::size_t n = a.size();
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(one(a.at(i)));
  return out;
}

// Where a frame's ICRC sits when the decoder can check it: the covered bytes [ip, end) and the
// ICRC at `end`; false when the frame does not decode that far or runs past its bytes.
bool icrc_region(std::span<const std::uint8_t> frame, wire::DecodedFrame& f, std::size_t& ip, std::size_t& end) {
  wire::DecodeOptions opt;
  opt.verify_icrc = true;
  if (!wire::decode_frame(frame, f, opt).ok()) return false;
  if (f.frame_length > frame.size() || f.frame_length < f.roce_ip_offset + 4) return false;
  ip = f.roce_ip_offset;
  end = f.frame_length - 4;
  return true;
}

// The frames of `cap` longer than `snaplen` whose ICRC the decoder checks and finds wrong.
std::vector<std::uint32_t> cut_icrc_bad(const harness::Capture& cap, std::uint32_t snaplen) {
  std::vector<std::uint32_t> out;
  wire::DecodedFrame f;
  for (std::size_t i = 0; i < cap.size(); ++i) {
    if (cap.packet(i).caplen <= snaplen) continue;
    std::size_t ip = 0, end = 0;
    if (icrc_region(cap.bytes(i), f, ip, end) && !f.icrc_ok) out.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

}  // namespace

void restore_cut_frame(std::span<const std::uint8_t> cut, std::uint32_t origlen, bool icrc_bad,
                       std::vector<std::uint8_t>& buf) {
  buf.assign(cut.begin(), cut.end());
  buf.resize(std::max<std::size_t>(origlen, cut.size()), 0);
  wire::DecodedFrame f;
  std::size_t ip = 0, end = 0;
  if (!icrc_region(buf, f, ip, end)) return;
  const std::uint32_t icrc = wire::icrc_compute(wire::Bytes(buf.data() + ip, end - ip));
  wire::icrc_write(buf.data() + end, icrc_bad ? ~icrc : icrc);
}

std::string case_context_path(const std::string& case_id) { return "evidence/" + case_id + ".context.json"; }

std::string render_case_context(const SessionResult& s, std::uint32_t snaplen) {
  const harness::CheckContext& c = s.ctx;
  Json j;
  j["schema"] = std::string(kCaseContextSchemaId);
  j["case"] = c.case_id;
  j["session"] = {{"status", std::string(harness::to_string(s.status))},
                  {"message", s.message},
                  {"sim_time_ns", s.sim_time_ns},
                  {"notes", s.notes},
                  {"wire_overrun", s.wire_overrun}};
  // The ACK timeout exponent the runner raised the case to for a slow wire: replay loads it so.
  if (s.wire_timeout) j["session"]["qp_timeout"] = *s.wire_timeout;
  // Why the run stopped early, judged on what it captured: replay judges it so again.
  if (!s.cut_short.empty()) j["session"]["cut_short"] = s.cut_short;
  // Frames from the DUT the bridge lost: replay withholds the same PASSes.
  if (!s.capture_gap.empty()) j["session"]["capture_gap"] = s.capture_gap;
  // The rate the runner evaluated the case's times in F at (a testbed other than the default's).
  if (s.spray_bps) j["session"]["spray_bps"] = *s.spray_bps;
  j["traffic_start_ns"] = c.traffic_start_ns;
  j["end_ns"] = c.end_ns;
  Json taps = Json::array();
  for (const harness::TapCapture& t : c.taps) {
    const harness::CaptureIntegrity& g = t.capture.integrity();
    taps.push_back({{"name", t.name},
                    {"pcap", t.pcap},
                    {"host", t.host},
                    {"port", t.port},
                    {"from_dut", t.from_dut},
                    {"integrity",
                     {{"offered", g.offered},
                      {"captured", g.captured},
                      {"tap_dropped", g.tap_dropped},
                      {"truncated", g.truncated},
                      {"ns_timestamps", g.ns_timestamps}}},
                    {"cut_icrc_bad", cut_icrc_bad(t.capture, snaplen)}});
  }
  j["taps"] = std::move(taps);
  Json faults = Json::array();
  for (const harness::FaultEvent& f : c.faults) {
    faults.push_back({{"at_ns", f.at_ns}, {"kind", f.kind}, {"target", f.target}, {"plane", f.plane}, {"affected_evs", f.affected_evs}});
  }
  j["faults"] = std::move(faults);
  Json expects = Json::array();
  for (const harness::ExpectRecord& e : c.expects) {
    expects.push_back({{"description", e.description},
                       {"window_start_ns", e.window_start_ns},
                       {"window_end_ns", e.window_end_ns},
                       {"matched", e.matched},
                       {"tap", e.tap},
                       {"packet_index", e.packet_index},
                       {"matched_at_ns", e.matched_at_ns},
                       {"mismatch", e.mismatch},
                       {"control", e.control}});
    // Written only for a window a bridge left empty, so every other context file stays as it was.
    if (!e.judged) expects.back()["judged"] = false;
  }
  j["expects"] = std::move(expects);

  const harness::DutObservations& d = c.dut;
  Json dut;
  Json completions = Json::array();
  for (const auto& x : d.completions) {
    completions.push_back({{"at_ns", x.at_ns}, {"wr_id", x.wr_id}, {"status", x.status}, {"is_send", x.is_send},
                           {"has_imm", x.has_imm}, {"imm", x.imm}, {"byte_len", x.byte_len}});
  }
  dut["completions"] = std::move(completions);
  Json ev_events = Json::array();
  for (const auto& x : d.ev_events) {
    ev_events.push_back({{"at_ns", x.at_ns}, {"ev_index", x.ev_index}, {"port", x.port}, {"state", x.state},
                         {"drop_count", x.drop_count}, {"controller_change", x.controller_change}});
  }
  dut["ev_events"] = std::move(ev_events);
  Json evs = Json::array();
  for (const auto& x : d.evs) {
    evs.push_back({{"index", x.index}, {"port", x.port}, {"echo", x.echo}, {"state", x.state}, {"denied", x.denied}});
  }
  dut["evs"] = std::move(evs);
  Json writes = Json::array();
  for (const auto& x : d.writes) {
    writes.push_back({{"wr_id", x.wr_id}, {"posted_ns", x.posted_ns}, {"length", x.length}, {"with_imm", x.with_imm},
                      {"data_verified", x.data_verified}, {"posted_by_dut", x.posted_by_dut}, {"imm", x.imm}});
  }
  dut["writes"] = std::move(writes);
  Json injected = Json::array();
  for (const auto& x : d.injected_writes) {
    injected.push_back({{"psn", x.psn}, {"trimmed", x.trimmed}, {"offset", x.offset},
                        {"payload", hex(x.payload.data(), x.payload.size())}, {"after", hex(x.after.data(), x.after.size())}});
  }
  dut["injected_writes"] = std::move(injected);
  Json counters = Json::array();
  for (const auto& [name, v] : d.counters) counters.push_back(Json::array({name, number(v)}));
  dut["counters"] = std::move(counters);
  dut["ev_fmt_mode"] = d.ev_fmt_mode;
  dut["first_psn"] = d.first_psn;
  dut["dut_qpn"] = d.dut_qpn;
  dut["peer_qpn"] = d.peer_qpn;
  j["dut"] = std::move(dut);

  Json wire_evs = Json::array();
  for (const auto& e : c.dut_wire_evs) {
    wire_evs.push_back({{"wire", hex(e.wire.data(), e.wire.size())}, {"port", e.port}, {"index", e.index}});
  }
  j["limits"] = {{"peer_qpns", c.peer_qpns},
                 {"requester_window_psns", c.requester_window_psns},
                 {"responder_window_psns", c.responder_window_psns},
                 {"wimm_limit", c.wimm_limit},
                 {"ev_min_active", c.ev_min_active},
                 {"dut_pkey", c.dut_pkey},
                 {"ev_event_mask", c.ev_event_mask},
                 {"ev_precise_drop_count", c.ev_precise_drop_count},
                 {"dut_wire_evs", std::move(wire_evs)},
                 {"dut_ev_mode", static_cast<unsigned>(c.dut_ev_mode)}};
  // W13 written only when the case configured other DSCP values, so every other context file stays
  // as it was; absent reads back as W13's defaults.
  const wire::DscpConfig& q = c.dut_dscp;
  const wire::DscpConfig w;
  if (q.trimmable != w.trimmable || q.trimmable_retx != w.trimmable_retx || q.no_trim != w.no_trim ||
      q.trimmed != w.trimmed || q.trimmed_lasthop != w.trimmed_lasthop || q.control != w.control) {
    j["limits"]["dut_dscp"] = {{"trimmable", q.trimmable}, {"trimmable_retx", q.trimmable_retx},
                               {"no_trim", q.no_trim},     {"trimmed", q.trimmed},
                               {"trimmed_lasthop", q.trimmed_lasthop}, {"control", q.control}};
  }
  j["timing_budget"] = {{"ns", c.timing_budget.ns}, {"source", c.timing_budget.source}};
  // Only a bridge's, so every other context file stays as it was: the golden check paces at it.
  if (c.timing_budget.rate_bps != 0) j["timing_budget"]["rate_bps"] = c.timing_budget.rate_bps;
  Json late = Json::array();
  for (const auto& [at, took] : c.late_steps) late.push_back(Json::array({at, took}));
  j["late_steps"] = std::move(late);
  // Written only when a rule never acted, so every other context file stays as it was.
  if (!c.idle_impairments.empty()) j["idle_impairments"] = c.idle_impairments;
  if (!c.unsent_injects.empty()) j["unsent_injects"] = c.unsent_injects;
  return j.dump() + "\n";  // compact: a full run's context files are 3.2 MB so, 4.6 MB indented
}

std::string parse_case_context(std::string_view text, std::string_view origin, SessionResult& out,
                               std::vector<std::vector<std::uint32_t>>& cut_bad) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::string(origin) + ": not JSON (a case context file holds one object)";
  try {
    const In r(j, "");
    if (const std::string id = r.at("schema").str(); id != kCaseContextSchemaId) {
      return std::string(origin) + ": /schema: '" + id + "', this mrc-conform reads " + std::string(kCaseContextSchemaId);
    }
    SessionResult s;
    harness::CheckContext& c = s.ctx;
    c.case_id = r.at("case").str();
    const In ses = r.at("session");
    const std::optional<harness::Verdict> status = harness::verdict_from_string(ses.at("status").str());
    if (!status) ses.at("status").fail("expected PASS, FAIL, UNSUPPORTED, INCONCLUSIVE or ERROR");
    s.status = *status;
    s.message = ses.at("message").str();
    s.sim_time_ns = ses.at("sim_time_ns").u64();
    s.notes = list<std::string>(ses.at("notes"), [](const In& x) { return x.str(); });
    s.wire_overrun = ses.at("wire_overrun").str();
    if (ses.has("qp_timeout")) s.wire_timeout = ses.at("qp_timeout").uint<std::uint8_t>();
    if (ses.has("cut_short")) s.cut_short = ses.at("cut_short").str();
    if (ses.has("capture_gap")) s.capture_gap = ses.at("capture_gap").str();
    if (ses.has("spray_bps")) s.spray_bps = ses.at("spray_bps").u64();
    c.traffic_start_ns = r.at("traffic_start_ns").u64();
    c.end_ns = r.at("end_ns").u64();
    std::vector<std::vector<std::uint32_t>> bad;
    c.taps = list<harness::TapCapture>(r.at("taps"), [&bad](const In& x) {
      bad.push_back(list<std::uint32_t>(x.at("cut_icrc_bad"), [](const In& v) { return v.uint<std::uint32_t>(); }));
      harness::TapCapture t;
      t.name = x.at("name").str();
      t.pcap = x.at("pcap").str();
      t.host = x.at("host").i32();
      t.port = x.at("port").i32();
      t.from_dut = x.at("from_dut").boolean();
      t.capture.set_tap(t.name);
      const In g = x.at("integrity");
      harness::CaptureIntegrity& i = t.capture.integrity();
      i.offered = g.at("offered").u64();
      i.captured = g.at("captured").u64();
      i.tap_dropped = g.at("tap_dropped").u64();
      i.truncated = g.at("truncated").u64();
      i.ns_timestamps = g.at("ns_timestamps").boolean();
      return t;
    });
    c.faults = list<harness::FaultEvent>(r.at("faults"), [](const In& x) {
      harness::FaultEvent f;
      f.at_ns = x.at("at_ns").u64();
      f.kind = x.at("kind").str();
      f.target = x.at("target").str();
      f.plane = x.at("plane").i32();
      f.affected_evs = list<std::uint32_t>(x.at("affected_evs"), [](const In& v) { return v.uint<std::uint32_t>(); });
      return f;
    });
    c.expects = list<harness::ExpectRecord>(r.at("expects"), [](const In& x) {
      harness::ExpectRecord e;
      e.description = x.at("description").str();
      e.window_start_ns = x.at("window_start_ns").u64();
      e.window_end_ns = x.at("window_end_ns").u64();
      e.matched = x.at("matched").boolean();
      e.tap = x.at("tap").str();
      e.packet_index = x.at("packet_index").i64();
      e.matched_at_ns = x.at("matched_at_ns").u64();
      e.mismatch = x.at("mismatch").str();
      e.control = x.at("control").boolean();
      if (x.has("judged")) e.judged = x.at("judged").boolean();
      return e;
    });
    const In dut = r.at("dut");
    harness::DutObservations& d = c.dut;
    d.completions = list<harness::CompletionRecord>(dut.at("completions"), [](const In& x) {
      return harness::CompletionRecord{x.at("at_ns").u64(), x.at("wr_id").u64(), x.at("status").i32(),
                                       x.at("is_send").boolean(), x.at("has_imm").boolean(),
                                       x.at("imm").uint<std::uint32_t>(), x.at("byte_len").uint<std::uint32_t>()};
    });
    d.ev_events = list<harness::EvEventRecord>(dut.at("ev_events"), [](const In& x) {
      return harness::EvEventRecord{x.at("at_ns").u64(), x.at("ev_index").uint<std::uint32_t>(),
                                    x.at("port").uint<std::uint8_t>(), x.at("state").uint<std::uint32_t>(),
                                    x.at("drop_count").uint<std::uint32_t>(), x.at("controller_change").boolean()};
    });
    d.evs = list<harness::EvRecord>(dut.at("evs"), [](const In& x) {
      return harness::EvRecord{x.at("index").uint<std::uint32_t>(), x.at("port").uint<std::uint8_t>(),
                               x.at("echo").uint<std::uint32_t>(), x.at("state").uint<std::uint32_t>(), x.at("denied").boolean()};
    });
    d.writes = list<harness::WriteRecord>(dut.at("writes"), [](const In& x) {
      return harness::WriteRecord{x.at("wr_id").u64(),          x.at("posted_ns").u64(),
                                  x.at("length").uint<std::uint32_t>(), x.at("with_imm").boolean(),
                                  x.at("data_verified").boolean(), x.at("posted_by_dut").boolean(),
                                  x.at("imm").uint<std::uint32_t>()};
    });
    d.injected_writes = list<harness::InjectedWriteRecord>(dut.at("injected_writes"), [](const In& x) {
      return harness::InjectedWriteRecord{x.at("psn").uint<std::uint32_t>(), x.at("trimmed").boolean(), x.at("offset").u64(),
                                          x.at("payload").bytes(), x.at("after").bytes()};
    });
    d.counters = list<std::pair<std::string, double>>(dut.at("counters"), [](const In& x) {
      if (x.size() != 2) x.fail("expected [name, value]");
      return std::pair<std::string, double>{x.at(std::size_t{0}).str(), x.at(std::size_t{1}).real()};
    });
    d.ev_fmt_mode = dut.at("ev_fmt_mode").i32();
    d.first_psn = dut.at("first_psn").uint<std::uint32_t>();
    d.dut_qpn = dut.at("dut_qpn").uint<std::uint32_t>();
    d.peer_qpn = dut.at("peer_qpn").uint<std::uint32_t>();

    const In lim = r.at("limits");
    c.peer_qpns = list<std::uint32_t>(lim.at("peer_qpns"), [](const In& v) { return v.uint<std::uint32_t>(); });
    c.requester_window_psns = lim.at("requester_window_psns").uint<std::uint32_t>();
    c.responder_window_psns = lim.at("responder_window_psns").uint<std::uint32_t>();
    c.wimm_limit = lim.at("wimm_limit").uint<std::uint32_t>();
    c.ev_min_active = lim.at("ev_min_active").uint<std::uint32_t>();
    c.dut_pkey = lim.at("dut_pkey").uint<std::uint16_t>();
    c.ev_event_mask = lim.at("ev_event_mask").uint<std::uint32_t>();
    c.ev_precise_drop_count = lim.at("ev_precise_drop_count").boolean();
    c.dut_dscp = wire::DscpConfig{};
    if (lim.has("dut_dscp")) {
      const In d = lim.at("dut_dscp");
      c.dut_dscp.trimmable = d.at("trimmable").uint<std::uint8_t>();
      c.dut_dscp.trimmable_retx = d.at("trimmable_retx").uint<std::uint8_t>();
      c.dut_dscp.no_trim = d.at("no_trim").uint<std::uint8_t>();
      c.dut_dscp.trimmed = d.at("trimmed").uint<std::uint8_t>();
      c.dut_dscp.trimmed_lasthop = d.at("trimmed_lasthop").uint<std::uint8_t>();
      c.dut_dscp.control = d.at("control").uint<std::uint8_t>();
    }
    c.dut_wire_evs = list<harness::WireEvRecord>(lim.at("dut_wire_evs"), [](const In& x) {
      harness::WireEvRecord e;
      const std::vector<std::uint8_t> b = x.at("wire").bytes();
      if (b.size() != e.wire.size()) x.at("wire").fail("expected " + std::to_string(e.wire.size()) + " bytes");
      std::copy(b.begin(), b.end(), e.wire.begin());
      e.port = x.at("port").uint<std::uint8_t>();
      e.index = x.at("index").uint<std::uint8_t>();
      return e;
    });
    const unsigned mode = lim.at("dut_ev_mode").uint<std::uint8_t>();
    if (mode != 1 && mode != 2 && mode != 4) lim.at("dut_ev_mode").fail("expected 1 (STEV), 2 (SRv6) or 4 (UDP)");
    c.dut_ev_mode = static_cast<wire::EvFmtMode>(mode);
    c.timing_budget.ns = r.at("timing_budget").at("ns").u64();
    c.timing_budget.source = r.at("timing_budget").at("source").str();
    if (r.at("timing_budget").has("rate_bps")) c.timing_budget.rate_bps = r.at("timing_budget").at("rate_bps").u64();
    c.late_steps = list<std::pair<std::uint64_t, std::uint64_t>>(r.at("late_steps"), [](const In& x) {
      if (x.size() != 2) x.fail("expected [scheduled_ns, took_effect_ns]");
      return std::pair<std::uint64_t, std::uint64_t>{x.at(std::size_t{0}).u64(), x.at(std::size_t{1}).u64()};
    });
    if (r.has("idle_impairments")) {
      c.idle_impairments = list<std::string>(r.at("idle_impairments"), [](const In& x) { return x.str(); });
    }
    if (r.has("unsent_injects")) {
      c.unsent_injects = list<std::string>(r.at("unsent_injects"), [](const In& x) { return x.str(); });
    }
    out = std::move(s);
    cut_bad = std::move(bad);
  } catch (const BadContext& e) {
    return std::string(origin) + ": " + e.what();
  }
  return {};
}

}  // namespace mrc::run
