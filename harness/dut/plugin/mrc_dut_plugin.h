/* mrc_dut_plugin.h: the C ABI through which a software model of an MRC NIC (a C or C++ model,
 * a SystemC or Verilator build, any code that can export C symbols) is judged by mrc-conform in
 * the simulated fabric's virtual time. Plain C99; no C++ type crosses it.
 *
 * ---- How a plugin is found and checked -------------------------------------------------------
 * A plugin is a shared library that exports one symbol:
 *
 *     const struct mrc_dut_plugin *mrc_dut_plugin_entry(void);
 *
 * The harness dlopen()s the library inside the child process that runs one case (a crash, an
 * abort or a hang of the model is an ERROR of that case; the run goes on), calls the entry once,
 * and refuses the plugin, naming both numbers, unless `abi_version` equals the harness's
 * MRC_DUT_PLUGIN_ABI_VERSION and `struct_size` is at least the size of the table it knows.
 *
 * ---- Time ---------------------------------------------------------------------------------------
 * The model has no clock of its own. Every time argument is the fabric's virtual time in ns since
 * the case started; times never go backwards. The model does work only inside a call: when a frame
 * arrives (frame_in), when time reaches a deadline it announced (advance), or when a control call
 * asks. Between calls nothing happens, however long the host machine takes.
 *
 * ---- The calling sequence, per case ------------------------------------------------------------
 *   create -> capabilities -> [restrict_device] -> attach -> apply -> connect
 *   -> { frame_in | advance | frame_out | next_deadline | set_port_up | data-path calls |
 *        control calls }* -> ev_table / counters -> reset -> [attach -> apply -> ... again]
 *   -> destroy
 * One thread makes every call on an instance; calls on it never overlap. Instances are
 * independent: an in-process run with several jobs (`run --no-isolate --jobs N`, `campaign`,
 * `variants`) drives several instances from several threads at once, so a plugin keeps no
 * mutable state outside its instance, or guards it. A call made out of this order returns
 * MRC_DUT_BROKEN (the harness's fault, reported as an ERROR), never crashes.
 * The frame-port calls may come at any time after attach(), before apply() too: a model with
 * nothing configured yet drops what arrives, sends nothing and has no deadline (UINT64_MAX).
 *
 * ---- Results --------------------------------------------------------------------------------------
 * Calls that return int return:
 *   0                 success;
 *   a positive errno  the model's host API refused the request (EINVAL, EBUSY, EOPNOTSUPP, ...):
 *                     a DUT behaviour the case judges, exactly as a real NIC's errno would be;
 *   MRC_DUT_BROKEN    the model itself is in no state to answer (an internal error, a call out of
 *                     order): the case is an ERROR. last_error() then says why.
 * A NULL function pointer in the table means "not offered": the harness reports the cases that
 * need the operation as ERROR naming the call, and runs the rest.
 *
 * ---- Buffers ----------------------------------------------------------------------------------------
 * Every pointer the harness passes in is owned by the harness and valid only during the call; a
 * model that needs the data later copies it. Every buffer the harness passes out (frame_out's
 * `buf`, the arrays of poll_*, ev_table, counters, apply's `local`) is owned by the harness, of
 * the capacity stated, and the model writes at most that much. Strings are NUL-terminated UTF-8.
 */
#ifndef MRC_DUT_PLUGIN_H
#define MRC_DUT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change of a struct layout or of a call's meaning. */
#define MRC_DUT_PLUGIN_ABI_VERSION 1u

#define MRC_DUT_BROKEN (-1)

/* Fixed sizes. */
#define MRC_DUT_MAX_FRAME 4513u      /* frame_out's buffer: the largest MRC frame, Ethernet to ICRC */
#define MRC_DUT_EV_BYTES 32u         /* an EV value, compact bits, most significant bit first */
#define MRC_DUT_NAME_LEN 64u         /* counter names, CC config names and values */

/* Opaque instance. */
typedef struct mrc_dut mrc_dut;

/* ---- values ------------------------------------------------------------------------------------ */

enum mrc_dut_format_mode { MRC_DUT_FMT_STEV = 0, MRC_DUT_FMT_SRV6 = 1, MRC_DUT_FMT_UDP = 2 };
enum mrc_dut_ev_mode { MRC_DUT_EV_AUTO = 0, MRC_DUT_EV_EXPLICIT = 1, MRC_DUT_EV_GENERATED = 2 };
enum mrc_dut_profile_state { MRC_DUT_PROFILE_INIT = 0, MRC_DUT_PROFILE_OFFLINE = 1, MRC_DUT_PROFILE_ONLINE = 2 };
/* EV states as the host API's bits: in EV events, ev_table and the event mask. */
enum mrc_dut_ev_state_bits { MRC_DUT_EV_GOOD = 1u << 0, MRC_DUT_EV_ASSUMED_BAD = 1u << 1, MRC_DUT_EV_DENIED = 1u << 2 };
/* Per-QP capability bits (qp_caps). */
enum mrc_dut_qp_cap {
  MRC_DUT_QP_TRIM_NACK_DEST_UNSUPPORTED = 1u << 0,
  MRC_DUT_QP_DYNAMIC_MPR = 1u << 1,
  MRC_DUT_QP_SVC_TIME_DEST_UNSUPPORTED = 1u << 2
};
/* Endpoint operations (the host API's numbering, EV_PROBE = 0). */
enum mrc_dut_ep_op { MRC_DUT_EP_EV_PROBE = 0, MRC_DUT_EP_PORT_STATUS_UPDATE = 1 };

/* One EV-profile field. */
struct mrc_dut_ev_field {
  uint32_t width, init, min, max, mask;
};

/* One explicit EV: `len` bytes of compact EV bits, most significant bit first, and its 1-based
 * egress port (= plane). */
struct mrc_dut_ev_value {
  uint8_t value[MRC_DUT_EV_BYTES];
  uint32_t len;
  uint8_t port;
};

/* NSCC parameters, field for field the host API's; 0 means "the UEC default". */
struct mrc_dut_nscc {
  const char *algorithm; /* "uet-1.0-nscc" */
  int disable_qa;
  uint32_t adjust_bytes_threshold, adjust_period_threshold, base_rtt;
  double eta, fi, fi_scale, gamma, max_md_jump;
  uint32_t max_cwnd;
  uint8_t qa_gate;
  uint32_t qa_threshold, target_delay;
};

/* The six traffic classes' DSCP values (W13), each 0..63. */
struct mrc_dut_dscp {
  uint8_t trimmable, trimmable_retx, no_trim, trimmed, trimmed_lasthop, control;
};

/* QP attributes every QP of the case gets. */
struct mrc_dut_qp_params {
  uint32_t count;           /* QPs to create */
  uint32_t mtu;             /* path MTU bytes: 256..4096 */
  uint8_t mpr, mpr_dest;    /* units of 128 PSNs */
  uint16_t max_wimm, max_wimm_dest;
  uint8_t timeout;          /* ACK timeout 1.024 us x 2^timeout */
  uint8_t retry_linear, retry_exp; /* retry_exp 25 = never give up */
  uint32_t caps;            /* enum mrc_dut_qp_cap bits */
  uint32_t first_psn;       /* starting PSN of every QP, both directions */
};

/* Where the model sits in the fabric (attach). */
struct mrc_dut_host {
  uint8_t mac[6];
  uint8_t gid[16];          /* its IPv6 address */
  uint32_t ipv4;            /* host order; 0 = none */
  uint32_t planes;          /* ports 1..planes exist, one per plane */
};

/* Everything apply() configures: EV format profile 0, EV profile 0, CC profile 0, the QPs (to
 * INIT), one registered buffer. Arrays are `count` entries long. */
struct mrc_dut_setup {
  enum mrc_dut_format_mode format_mode;
  const uint32_t *format_widths; size_t format_widths_count;
  enum mrc_dut_ev_mode ev_mode;
  const struct mrc_dut_ev_field *fields; size_t fields_count;
  const struct mrc_dut_ev_value *evs; size_t evs_count;    /* explicit mode, in index order */
  uint32_t generate_count;                                 /* generated / auto: EVs to draw */
  uint64_t generate_seed;
  uint32_t ev_min_active;
  const uint32_t *denied; size_t denied_count;             /* EV indices DENIED before traffic */
  uint32_t ev_event_mask;                                  /* states that raise EV events */
  const struct mrc_dut_nscc *cc;                           /* NULL: congestion control off */
  uint64_t cc_line_rate_bps;                               /* 0 = unknown */
  int cc_fabric_trims;
  struct mrc_dut_qp_params qp;
  uint64_t buffer_va, buffer_bytes;                        /* the registered buffer */
  int ipv4;                                                /* UDP-mode EVs over IPv4 */
  uint64_t seed;                                           /* the case seed, for the model's choices */
  struct mrc_dut_dscp dscp;
};

/* What one side tells the other out of band (W18): apply() fills the model's own, connect()
 * passes the peer's. `qpns` has room for `qpns_capacity` entries (apply) or holds `qpns_count`. */
struct mrc_dut_local {
  uint8_t gid[16];
  uint8_t mac[6];
  uint32_t ipv4;            /* host order; 0 when not on IPv4 */
  uint32_t *qpns; size_t qpns_count, qpns_capacity;        /* index = the case's QP index */
  uint64_t buffer_va;
  uint32_t rkey;
  uint8_t mpr_dest;
  uint16_t max_wimm_dest;
  uint32_t qp_caps;
  uint32_t first_psn;
};

struct mrc_dut_write {
  uint32_t qp;              /* the case's QP index */
  uint64_t wr_id;
  uint64_t local_offset;    /* into the model's registered buffer */
  uint32_t length;
  uint64_t remote_addr;     /* the peer's virtual address */
  uint32_t rkey;
  int with_imm;
  uint32_t imm;
};

struct mrc_dut_completion {
  uint64_t wr_id;
  int32_t status;           /* ibv_wc_status value, 0 = success */
  int is_send;              /* 1: a requester completion; 0: a WRITE-with-IMM received */
  int has_imm;
  uint32_t imm;
  uint32_t byte_len;
};

struct mrc_dut_ev_event {
  uint32_t ev_index;        /* index into EV profile 0's array */
  uint8_t port;
  uint32_t state;           /* enum mrc_dut_ev_state_bits: the state entered */
  uint32_t drop_count;      /* events lost to overflow before this one */
};

/* One EV of EV profile 0 at the end of a run. `echo` is the identity a receiver echoes for it:
 * the STEV value V, the UDP source port, or the SRv6 EV tag. */
struct mrc_dut_ev_record {
  uint32_t index;
  uint8_t port;
  uint32_t echo;
  uint32_t state;           /* enum mrc_dut_ev_state_bits */
  int denied;               /* set DENIED by the controller at any time in the run */
};

struct mrc_dut_counter {
  char name[MRC_DUT_NAME_LEN];
  double value;
};

/* Profile operations act on the operation slot (EV profile 1 on EV format profile 0, CC profile 1),
 * never on the profiles traffic uses. A `has_*` of 0 means the attribute is absent from the
 * request (its attribute-mask bit clear); refusing an invalid profile is the model's job. */
struct mrc_dut_ev_profile_op {
  int has_state; enum mrc_dut_profile_state state;
  int has_mode; enum mrc_dut_ev_mode mode;
  int has_fields; const struct mrc_dut_ev_field *fields; size_t fields_count;
  int has_count; uint32_t count;
  int has_min_active; uint32_t min_active;
  int has_event_mask; uint32_t event_mask;
  int has_seed; uint64_t seed;
};

struct mrc_dut_cc_config_entry {
  char name[MRC_DUT_NAME_LEN];
  char value[MRC_DUT_NAME_LEN];
};

struct mrc_dut_cc_profile_op {
  int has_state; enum mrc_dut_profile_state state;
  const char *algorithm;    /* NULL: absent */
  const struct mrc_dut_cc_config_entry *config; size_t config_count;
};

/* REPLACE_EV: each of `evs` replaces one copy (or all copies) of `from`; `from` NULL = an
 * UNPOPULATED slot. */
struct mrc_dut_replace_ev {
  const struct mrc_dut_ev_value *from;
  const struct mrc_dut_ev_value *evs; size_t evs_count;
  int all_copies;
};

/* ---- the call table ---------------------------------------------------------------------------- */

struct mrc_dut_plugin {
  uint32_t abi_version;     /* MRC_DUT_PLUGIN_ABI_VERSION the plugin was built against */
  uint32_t struct_size;     /* sizeof(struct mrc_dut_plugin) as the plugin was built */
  const char *name;         /* "acme-mrc-model" */
  const char *version;      /* the model's version, shown in reports */

  /* Makes an instance. `args` is the text after PATH: in --dut plugin:PATH:ARGS ("" when none);
   * its meaning is the plugin's. On failure returns NULL and writes why into err (err_len bytes,
   * NUL-terminated). */
  mrc_dut *(*create)(const char *args, char *err, size_t err_len);
  void (*destroy)(mrc_dut *dut);
  /* Why the last call returned MRC_DUT_BROKEN or a positive errno, into buf (len bytes). */
  void (*last_error)(const mrc_dut *dut, char *buf, size_t len);

  /* Declared features, comma-separated, spelled like a case's `requires` (cases/README.md):
   * trim_nack, dynamic_mpr, svc_time, ev_probe, port_status, srv6, stev, udp_mode, modify_online,
   * cc_modify_online, explicit_range, precise_drop_count, ev_generated, ev_auto, ipv4. A case
   * that needs one not declared is UNSUPPORTED, never run. Written into buf (len bytes). */
  int (*capabilities)(const mrc_dut *dut, char *buf, size_t len);
  /* Before apply(): capabilities to turn off (comma-separated, as above) and the depth of the EV
   * event queue (0 = the model's own). Holds until reset(). */
  int (*restrict_device)(mrc_dut *dut, const char *caps_off, uint32_t event_queue_depth);

  /* ---- the frame port: the fabric drives the model only through these five ---- */
  /* Where the model sits; before apply(), again after every reset(). */
  int (*attach)(mrc_dut *dut, const struct mrc_dut_host *host);
  /* A frame arrived on 1-based `port` at `now_ns`: Ethernet header to ICRC, `len` bytes. */
  void (*frame_in)(mrc_dut *dut, uint8_t port, const uint8_t *frame, size_t len, uint64_t now_ns);
  /* Runs whatever is due at or before `now_ns` (timers, pacing). */
  void (*advance)(mrc_dut *dut, uint64_t now_ns);
  /* The next frame the model transmits: written into buf (MRC_DUT_MAX_FRAME bytes), its length
   * into *len and its 1-based egress port into *port; returns 1, or 0 when none waits. The fabric
   * calls it after frame_in, advance and every call that may queue a frame (apply, post_write,
   * set_port_up, ep_op, ...), at the time of that call, and keeps calling while this host's NIC
   * queue has room (host_tx_window_bytes, 64 KiB by default) until it returns 0. A frame not
   * taken then waits for the next of those calls, so a model builds a frame when it is taken
   * (with the state it has then) and never hands over more than the queue takes.
   * A length over MRC_DUT_MAX_FRAME breaks the model: the fabric takes nothing more from it and
   * the harness's next call is a binding ERROR naming frame_out and the length. */
  int (*frame_out)(mrc_dut *dut, uint8_t *buf, size_t *len, uint8_t *port);
  /* When advance() next has work; UINT64_MAX when nothing is scheduled. */
  uint64_t (*next_deadline)(const mrc_dut *dut);
  /* Admin state of a port (the fabric's port-down fault, and the case's port_admin steps). */
  int (*set_port_up)(mrc_dut *dut, uint8_t port, int up);

  /* ---- configuration ---- */
  int (*apply)(mrc_dut *dut, const struct mrc_dut_setup *setup, struct mrc_dut_local *local);
  /* Every QP to RTR and RTS towards `remote`. */
  int (*connect)(mrc_dut *dut, const struct mrc_dut_local *remote);

  /* ---- data path ---- */
  int (*write_memory)(mrc_dut *dut, uint64_t offset, const uint8_t *bytes, size_t len);
  int (*read_memory)(const mrc_dut *dut, uint64_t offset, uint8_t *out, size_t len);
  int (*post_write)(mrc_dut *dut, const struct mrc_dut_write *w, uint64_t now_ns);
  int (*post_recv)(mrc_dut *dut, uint32_t qp, uint64_t wr_id);
  /* Completions and EV events since the last call, at most `max`; returns how many. */
  size_t (*poll_completions)(mrc_dut *dut, struct mrc_dut_completion *out, size_t max, uint64_t now_ns);
  size_t (*poll_ev_events)(mrc_dut *dut, struct mrc_dut_ev_event *out, size_t max, uint64_t now_ns);

  /* ---- control plane ---- */
  int (*set_ev_denied)(mrc_dut *dut, uint32_t ev_index, int denied);
  int (*ep_op)(mrc_dut *dut, enum mrc_dut_ep_op op, uint32_t ev_index, uint8_t tc, uint64_t now_ns);
  int (*set_profile_online)(mrc_dut *dut, int online);
  int (*ev_profile_op)(mrc_dut *dut, const struct mrc_dut_ev_profile_op *op);
  int (*cc_profile_op)(mrc_dut *dut, const struct mrc_dut_cc_profile_op *op);
  int (*replace_ev)(mrc_dut *dut, const struct mrc_dut_replace_ev *op);

  /* ---- after the run ---- */
  /* EV profile 0's EVs, at most `max`; returns how many it has (more than max: only max written). */
  size_t (*ev_table)(const mrc_dut *dut, struct mrc_dut_ev_record *out, size_t max);
  size_t (*counters)(const mrc_dut *dut, struct mrc_dut_counter *out, size_t max);
  /* Back to the state after create() and restrict_device() undone. */
  int (*reset)(mrc_dut *dut);
};

typedef const struct mrc_dut_plugin *(*mrc_dut_plugin_entry_fn)(void);
#define MRC_DUT_PLUGIN_ENTRY "mrc_dut_plugin_entry"

#ifdef __cplusplus
}
#endif

#endif /* MRC_DUT_PLUGIN_H */
