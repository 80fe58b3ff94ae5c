/* A DUT plugin written in C against mrc_dut_plugin.h alone, for the tests of the plugin binding:
 * it forwards every call to the reference plugin (MRC_INNER_PLUGIN, loaded with dlopen) and
 * misbehaves as its ARGS say, on the case whose seed it names:
 *   abort-seed=N     abort() in apply()               -> that case is an ERROR naming SIGABRT
 *   segv-seed=N      a null write in apply()          -> an ERROR naming SIGSEGV
 *   hang-seed=N      never returns from apply()       -> an ERROR naming the case watchdog
 *   broken-seed=N    apply() returns MRC_DUT_BROKEN   -> an ERROR quoting last_error()
 *   oversize-seed=N  frame_out() reports every frame 100 bytes past MRC_DUT_MAX_FRAME
 *                                                     -> an ERROR naming frame_out and the length
 * Built twice: as mrc_test_plugin_faulty, and with MRC_TEST_ABI_VERSION 0 as
 * mrc_test_plugin_old_abi, which the binding must refuse naming both ABI versions.
 * Being C, it also proves the header is plain C. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/dut/plugin/mrc_dut_plugin.h"

#ifndef MRC_TEST_ABI_VERSION
#define MRC_TEST_ABI_VERSION MRC_DUT_PLUGIN_ABI_VERSION
#endif

enum fault { FAULT_NONE, FAULT_ABORT, FAULT_SEGV, FAULT_HANG, FAULT_BROKEN, FAULT_OVERSIZE };

static const struct mrc_dut_plugin *inner;
static struct mrc_dut_plugin table;
static enum fault fault_kind = FAULT_NONE;
static unsigned long long fault_seed;
static int broken_now;
static int oversize_now;

static mrc_dut *faulty_create(const char *args, char *err, size_t err_len) {
  static const struct { const char *key; enum fault kind; } keys[] = {
      {"abort-seed=", FAULT_ABORT}, {"segv-seed=", FAULT_SEGV}, {"hang-seed=", FAULT_HANG},
      {"broken-seed=", FAULT_BROKEN}, {"oversize-seed=", FAULT_OVERSIZE}};
  fault_kind = FAULT_NONE;
  for (size_t i = 0; args != NULL && i < sizeof keys / sizeof keys[0]; ++i) {
    size_t n = strlen(keys[i].key);
    if (strncmp(args, keys[i].key, n) == 0) {
      fault_kind = keys[i].kind;
      fault_seed = strtoull(args + n, NULL, 10);
    }
  }
  if (args != NULL && args[0] != '\0' && fault_kind == FAULT_NONE) {
    snprintf(err, err_len, "unknown argument '%s' (abort-seed=N, segv-seed=N, hang-seed=N, broken-seed=N, oversize-seed=N)", args);
    return NULL;
  }
  return inner->create("", err, err_len);
}

static int faulty_apply(mrc_dut *dut, const struct mrc_dut_setup *setup, struct mrc_dut_local *local) {
  broken_now = 0;
  oversize_now = 0;
  if (fault_kind != FAULT_NONE && setup->seed == fault_seed) {
    switch (fault_kind) {
      case FAULT_ABORT: abort();
      case FAULT_SEGV: raise(SIGSEGV); break;
      case FAULT_HANG: for (;;) pause();
      case FAULT_BROKEN: broken_now = 1; return MRC_DUT_BROKEN;
      case FAULT_OVERSIZE: oversize_now = 1; break;
      case FAULT_NONE: break;
    }
  }
  return inner->apply(dut, setup, local);
}

/* The inner model wrote a frame of its true length into buf; this reports a longer one, as a model
 * that overran the buffer would. */
static int faulty_frame_out(mrc_dut *dut, uint8_t *buf, size_t *len, uint8_t *port) {
  int rc = inner->frame_out(dut, buf, len, port);
  if (rc == 1 && oversize_now) *len = MRC_DUT_MAX_FRAME + 100;
  return rc;
}

static void faulty_last_error(const mrc_dut *dut, char *buf, size_t len) {
  if (broken_now) {
    snprintf(buf, len, "the test plugin's model state is corrupt (broken-seed)");
    return;
  }
  inner->last_error(dut, buf, len);
}

const struct mrc_dut_plugin *mrc_dut_plugin_entry(void) {
  if (inner == NULL) {
    void *h = dlopen(MRC_INNER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    mrc_dut_plugin_entry_fn entry = h ? (mrc_dut_plugin_entry_fn)dlsym(h, MRC_DUT_PLUGIN_ENTRY) : NULL;
    if (entry == NULL) return NULL;
    inner = entry();
    table = *inner;
    table.abi_version = MRC_TEST_ABI_VERSION;
    table.name = "mrc-conform faulty test plugin";
    table.create = faulty_create;
    table.apply = faulty_apply;
    table.last_error = faulty_last_error;
    table.frame_out = faulty_frame_out;
  }
  return &table;
}
