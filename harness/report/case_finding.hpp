// A case's finding in one line, for the places a reader meets it first (the JUnit failure message,
// the findings list at the top of index.html): the first field-level evidence row of its checks
// with the given verdict, "udp.sport expected 49152..65535, observed 4791 (evidence/x.pcapng
// frame 42)", led by the check's requirement ids when asked; "" when no such row exists.
#pragma once

#include <string>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

inline std::string case_finding(const CaseResult& c, Verdict wanted, bool with_requirements) {
  for (const auto& ch : c.checks) {
    if (ch.verdict != wanted) continue;
    for (const auto& e : ch.evidence) {
      if (e.expected.empty() && e.observed.empty()) continue;
      std::string s;
      if (with_requirements) {
        // The check's own requirement ids lead its message ("[A,B] ..."); else the case's.
        const std::size_t close = ch.message.starts_with('[') ? ch.message.find(']') : std::string::npos;
        if (close != std::string::npos) {
          s = ch.message.substr(0, close + 1) + " ";
        } else {
          std::string ids;
          for (const auto& id : c.clauses) ids += (ids.empty() ? "" : ",") + id;
          s = "[" + ids + "] ";
        }
      }
      s += (e.field.empty() ? std::string() : e.field + " ") + "expected " + e.expected + ", observed " + e.observed;
      if (!e.pcap.empty()) {
        s += " (" + e.pcap + (e.packet_index >= 0 ? " frame " + std::to_string(e.packet_index + 1) : std::string()) + ")";
      }
      return s;
    }
  }
  return "";
}

}  // namespace mrc::harness
