// The reference endpoint as a DUT plugin: libmrc_reference_plugin.so, reached by the harness
// through mrc_dut_plugin.h alone, so that running the library through it proves the ABI carries
// everything a case needs (tests/harness/dut/plugin_identity_test.cpp). ARGS are the `reference:`
// spelling's defect and variant names, comma-separated ("" = the plain reference).
//
// Inside, it is ReferenceDut, the same core the in-process `reference` binding drives.
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "harness/dut/plugin/mrc_dut_plugin.h"
#include "harness/dut/plugin_abi.hpp"
#include "harness/dut/profile_setup.hpp"
#include "harness/dut/reference_dut.hpp"
#include "reference/transport/qp_types.hpp"

namespace pa = mrc::harness::plugin_abi;
using mrc::harness::DutStatus;

struct mrc_dut {
  explicit mrc_dut(mrc::harness::ReferencePolicy p) : dut(std::move(p)) {}
  mrc::harness::ReferenceDut dut;
  mrc::harness::ReferenceHost host;
  bool attached = false;
  mrc::transport::TxFrame scratch;  // poll_frame's buffer, copied out to the harness's
  std::vector<mrc::harness::CompletionRecord> completions;
  std::vector<mrc::harness::EvEventRecord> events;
  std::string error;
};

namespace {

// DutStatus -> the ABI's int: 0, a positive errno (a refusal), or MRC_DUT_BROKEN.
int result(mrc_dut* d, const DutStatus& st) {
  if (st.ok()) return 0;
  d->error = st.message;
  if (st.code == DutStatus::Code::kRejected && st.err > 0) return st.err;
  return MRC_DUT_BROKEN;
}

int not_applied(mrc_dut* d, const char* call) {
  d->error = std::string(call) + "() before attach() and apply()";
  return MRC_DUT_BROKEN;
}

mrc_dut* create(const char* args, char* err, size_t err_len) {
  const std::string_view text = args != nullptr ? args : "";
  if (text.empty()) return new (std::nothrow) mrc_dut(mrc::harness::ReferencePolicy{});
  std::string why;
  auto policy = mrc::harness::parse_reference_policy(text, &why);
  if (!policy) {
    pa::copy_text(why, err, err_len);
    return nullptr;
  }
  return new (std::nothrow) mrc_dut(std::move(*policy));
}

void destroy(mrc_dut* d) { delete d; }

void last_error(const mrc_dut* d, char* buf, size_t len) { pa::copy_text(d->error, buf, len); }

int capabilities(const mrc_dut*, char* buf, size_t len) {
  pa::copy_text(pa::join_words(mrc::harness::ReferenceDut::capabilities()), buf, len);
  return 0;
}

int restrict_device(mrc_dut* d, const char* caps_off, uint32_t depth) {
  return result(d, d->dut.restrict_device({pa::split_words(caps_off), depth}));
}

int attach(mrc_dut* d, const mrc_dut_host* h) {
  std::copy(h->mac, h->mac + 6, d->host.mac.begin());
  std::copy(h->gid, h->gid + 16, d->host.gid.begin());
  d->host.ipv4_addr = h->ipv4;
  d->host.num_ports = static_cast<std::uint8_t>(h->planes);
  d->host.port_mask = mrc::harness::port_mask_of(h->planes);
  d->attached = true;
  return 0;
}

// Before apply() there is no endpoint: frames are dropped and no time is due.
void frame_in(mrc_dut* d, uint8_t port, const uint8_t* frame, size_t len, uint64_t now) {
  if (auto* p = d->dut.port()) p->on_frame(port, {frame, len}, now);
}
void advance(mrc_dut* d, uint64_t now) {
  if (auto* p = d->dut.port()) p->advance(now);
}
int frame_out(mrc_dut* d, uint8_t* buf, size_t* len, uint8_t* port) {
  auto* p = d->dut.port();
  if (p == nullptr || !p->poll_frame(d->scratch)) return 0;
  std::memcpy(buf, d->scratch.bytes.data(), d->scratch.len);
  *len = d->scratch.len;
  *port = d->scratch.port;
  return 1;
}
uint64_t next_deadline(const mrc_dut* d) {
  auto* p = const_cast<mrc_dut*>(d)->dut.port();
  return p != nullptr ? p->next_deadline() : UINT64_MAX;
}
int set_port_up(mrc_dut* d, uint8_t port, int up) {
  if (d->dut.port() == nullptr) return not_applied(d, "set_port_up");
  return result(d, d->dut.port_admin(port, up != 0));
}

int apply(mrc_dut* d, const mrc_dut_setup* s, mrc_dut_local* local) {
  if (!d->attached) return not_applied(d, "apply");
  mrc::harness::DutLocal out;
  if (int rc = result(d, d->dut.apply(d->host, pa::from_c(*s), out))) return rc;
  if (!pa::fill_c(out, *local)) {
    d->error = "apply(): the harness gave room for " + std::to_string(local->qpns_capacity) + " QPNs, " +
               std::to_string(out.qpns.size()) + " needed";
    return MRC_DUT_BROKEN;
  }
  return 0;
}

int connect(mrc_dut* d, const mrc_dut_local* remote) { return result(d, d->dut.connect(pa::from_c(*remote))); }

int write_memory(mrc_dut* d, uint64_t offset, const uint8_t* bytes, size_t len) {
  return result(d, d->dut.fill_local(offset, {bytes, len}));
}
int read_memory(const mrc_dut* d, uint64_t offset, uint8_t* out, size_t len) {
  auto* m = const_cast<mrc_dut*>(d);
  return result(m, m->dut.read_local(offset, {out, len}));
}
int post_write(mrc_dut* d, const mrc_dut_write* w, uint64_t) { return result(d, d->dut.post_write(pa::from_c(*w))); }
int post_recv(mrc_dut* d, uint32_t qp, uint64_t wr_id) { return result(d, d->dut.post_recv(qp, wr_id)); }

// The endpoint's queues drain into the instance's and go out `max` at a time.
size_t poll_completions(mrc_dut* d, mrc_dut_completion* out, size_t max, uint64_t now) {
  d->dut.poll_completions(d->completions, now);
  const size_t n = std::min(max, d->completions.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& c = d->completions[i];
    out[i] = mrc_dut_completion{c.wr_id, c.status, c.is_send ? 1 : 0, c.has_imm ? 1 : 0, c.imm, c.byte_len};
  }
  d->completions.erase(d->completions.begin(), d->completions.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}
size_t poll_ev_events(mrc_dut* d, mrc_dut_ev_event* out, size_t max, uint64_t now) {
  d->dut.poll_ev_events(d->events, now);
  const size_t n = std::min(max, d->events.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& e = d->events[i];
    out[i] = mrc_dut_ev_event{e.ev_index, e.port, e.state, e.drop_count};
  }
  d->events.erase(d->events.begin(), d->events.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

int set_ev_denied(mrc_dut* d, uint32_t ev, int denied) { return result(d, d->dut.set_ev_denied(ev, denied != 0)); }
int ep_op(mrc_dut* d, mrc_dut_ep_op op, uint32_t ev, uint8_t tc, uint64_t) {
  switch (op) {
    case MRC_DUT_EP_EV_PROBE: return result(d, d->dut.probe_ev(ev, tc));
    case MRC_DUT_EP_PORT_STATUS_UPDATE: return result(d, d->dut.port_status_update());
  }
  d->error = "unknown endpoint operation " + std::to_string(static_cast<int>(op));
  return EINVAL;
}
int set_profile_online(mrc_dut* d, int online) { return result(d, d->dut.set_profile_online(online != 0)); }
int ev_profile_op(mrc_dut* d, const mrc_dut_ev_profile_op* op) { return result(d, d->dut.ev_profile_op(pa::from_c(*op))); }
int cc_profile_op(mrc_dut* d, const mrc_dut_cc_profile_op* op) { return result(d, d->dut.cc_profile_op(pa::from_c(*op))); }
int replace_ev(mrc_dut* d, const mrc_dut_replace_ev* op) { return result(d, d->dut.replace_ev(pa::from_c(*op))); }

size_t ev_table(const mrc_dut* d, mrc_dut_ev_record* out, size_t max) {
  const auto table = d->dut.ev_table();
  for (size_t i = 0; i < std::min(max, table.size()); ++i) {
    const auto& e = table[i];
    out[i] = mrc_dut_ev_record{e.index, e.port, e.echo, e.state, e.denied ? 1 : 0};
  }
  return table.size();
}

size_t counters(const mrc_dut* d, mrc_dut_counter* out, size_t max) {
  const auto all = d->dut.counters();
  for (size_t i = 0; i < std::min(max, all.size()); ++i) {
    out[i] = mrc_dut_counter{};
    pa::copy_text(all[i].first, out[i].name, MRC_DUT_NAME_LEN);
    out[i].value = all[i].second;
  }
  return all.size();
}

int reset(mrc_dut* d) {
  d->dut.reset();
  d->attached = false;
  d->completions.clear();
  d->events.clear();
  return 0;
}

const mrc_dut_plugin kTable = {
    MRC_DUT_PLUGIN_ABI_VERSION,
    sizeof(mrc_dut_plugin),
    "mrc-conform reference endpoint",
    "MRC 1.0 wire (spec-derived, mrc-wire-model.md W1-W19)",
    create,
    destroy,
    last_error,
    capabilities,
    restrict_device,
    attach,
    frame_in,
    advance,
    frame_out,
    next_deadline,
    set_port_up,
    apply,
    connect,
    write_memory,
    read_memory,
    post_write,
    post_recv,
    poll_completions,
    poll_ev_events,
    set_ev_denied,
    ep_op,
    set_profile_online,
    ev_profile_op,
    cc_profile_op,
    replace_ev,
    ev_table,
    counters,
    reset,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const mrc_dut_plugin* mrc_dut_plugin_entry(void) { return &kTable; }
