// The harness's types and the C plugin ABI's (plugin/mrc_dut_plugin.h), both ways: the plugin
// binding turns a DutSetup, a DutLocal and the control-plane payloads into the C structs it passes
// a plugin, and a plugin written in C++ (the reference plugin) turns them back. The C structs
// point into storage their holder owns, so a holder must outlive the call it is passed to.
#pragma once

#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/dut/plugin/mrc_dut_plugin.h"

namespace mrc::harness::plugin_abi {

// ---- harness -> C ------------------------------------------------------------------------------

struct CSetup {
  explicit CSetup(const DutSetup& s);
  CSetup(const CSetup&) = delete;
  CSetup& operator=(const CSetup&) = delete;
  mrc_dut_setup c{};

 private:
  std::vector<mrc_dut_ev_field> fields_;
  std::vector<mrc_dut_ev_value> evs_;
  mrc_dut_nscc nscc_{};
  std::string algorithm_;
};

// A DutLocal as connect() passes it (qpns point into the holder).
struct CLocal {
  explicit CLocal(const DutLocal& l);
  CLocal(const CLocal&) = delete;
  CLocal& operator=(const CLocal&) = delete;
  mrc_dut_local c{};

 private:
  std::vector<std::uint32_t> qpns_;
};

struct CEvProfileOp {
  explicit CEvProfileOp(const EvProfileChange& op);
  CEvProfileOp(const CEvProfileOp&) = delete;
  CEvProfileOp& operator=(const CEvProfileOp&) = delete;
  mrc_dut_ev_profile_op c{};

 private:
  std::vector<mrc_dut_ev_field> fields_;
};

struct CCcProfileOp {
  // Empty when a config name or value does not fit MRC_DUT_NAME_LEN - 1 bytes.
  static std::string refused(const CcProfileChange& op);
  explicit CCcProfileOp(const CcProfileChange& op);
  CCcProfileOp(const CCcProfileOp&) = delete;
  CCcProfileOp& operator=(const CCcProfileOp&) = delete;
  mrc_dut_cc_profile_op c{};

 private:
  std::string algorithm_;
  std::vector<mrc_dut_cc_config_entry> config_;
};

struct CReplaceEv {
  explicit CReplaceEv(const EvReplacement& op);
  CReplaceEv(const CReplaceEv&) = delete;
  CReplaceEv& operator=(const CReplaceEv&) = delete;
  mrc_dut_replace_ev c{};

 private:
  mrc_dut_ev_value from_{};
  std::vector<mrc_dut_ev_value> evs_;
};

mrc_dut_ev_value to_c(const ap::EvValue& v);
mrc_dut_write to_c(const WriteRequest& w);
// Capability words comma-separated.
std::string join_words(const std::vector<std::string>& words);

// ---- C -> harness ------------------------------------------------------------------------------

DutSetup from_c(const mrc_dut_setup& s);
DutLocal from_c(const mrc_dut_local& l);
// `l` into apply()'s out-struct, whose qpns array the caller owns; false when it has too little room.
bool fill_c(const DutLocal& l, mrc_dut_local& out);
EvProfileChange from_c(const mrc_dut_ev_profile_op& op);
CcProfileChange from_c(const mrc_dut_cc_profile_op& op);
EvReplacement from_c(const mrc_dut_replace_ev& op);
ap::EvValue from_c(const mrc_dut_ev_value& v);
WriteRequest from_c(const mrc_dut_write& w);
std::vector<std::string> split_words(const char* csv);

// Copies `text` into a C buffer of `len` bytes, cut to fit, always NUL-terminated (len > 0).
void copy_text(const std::string& text, char* buf, std::size_t len);

}  // namespace mrc::harness::plugin_abi
