// The frame-field vocabulary shared by `expect.match`, `field` checks and golden `masks`: one
// dotted name per decoded header field (names follow reference/wire/headers.hpp) plus a few
// derived fields the capture layer computes (EV, port, plane, direction). Each field declares what
// values it takes, so the loader can reject `bth.psn: 0x1000000` or `bth.opcode: wrte_only` with
// a line number instead of the verdict engine failing later.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mrc::harness {

enum class FieldValueKind : std::uint8_t {
  kUInt,       // unsigned integer <= FrameField::max
  kBool,       // true / false
  kOpcode,     // 0..255 or an opcode name (opcode_names())
  kIcrc,       // good / bad
  kAddress,    // an address written as a string ("fd00::1", "10.0.0.1", "02:00:00:00:00:01")
  kDirection,  // to_dut / from_dut
};

struct FrameField {
  std::string_view name;
  FieldValueKind kind;
  std::uint64_t max;  // kUInt only
  std::string_view help;
};

// Every canonical field name, in header order.
std::span<const FrameField> frame_fields();
// The field for a canonical name or a short alias ("psn" = "bth.psn"); nullptr when unknown.
const FrameField* find_frame_field(std::string_view name);
// Canonical names and aliases together, for "did you mean" suggestions.
std::span<const std::string_view> frame_field_spellings();

struct OpcodeName {
  std::string_view name;
  std::uint8_t value;
};
// MRC 1.0 opcodes (write_only = 0xCA, ..., ack = 0xD1 the Transport ACK, sack 0xDC, nack 0xDD,
// probe 0xDE, the endpoint request ep_req 0xD8 and response ep_rsp 0xD9; W3), IBA RC opcodes by
// name (rc_write_only = 0x0A, rc_ack = 0x11, ...) and CNP.
inline constexpr std::array kOpcodeNames{
    OpcodeName{"send_first", 0x00},      OpcodeName{"send_middle", 0x01},
    OpcodeName{"send_last", 0x02},       OpcodeName{"send_last_imm", 0x03},
    OpcodeName{"send_only", 0x04},       OpcodeName{"send_only_imm", 0x05},
    OpcodeName{"rc_write_first", 0x06},  OpcodeName{"rc_write_middle", 0x07},
    OpcodeName{"rc_write_last", 0x08},   OpcodeName{"rc_write_last_imm", 0x09},
    OpcodeName{"rc_write_only", 0x0A},   OpcodeName{"rc_write_only_imm", 0x0B},
    OpcodeName{"read_request", 0x0C},    OpcodeName{"read_response_first", 0x0D},
    OpcodeName{"read_response_middle", 0x0E}, OpcodeName{"read_response_last", 0x0F},
    OpcodeName{"read_response_only", 0x10},   OpcodeName{"rc_ack", 0x11},
    OpcodeName{"atomic_ack", 0x12},      OpcodeName{"compare_swap", 0x13},
    OpcodeName{"fetch_add", 0x14},       OpcodeName{"cnp", 0x81},
    OpcodeName{"write_first", 0xC6},     OpcodeName{"write_middle", 0xC7},
    OpcodeName{"write_last", 0xC8},      OpcodeName{"write_last_imm", 0xC9},
    OpcodeName{"write_only", 0xCA},      OpcodeName{"write_only_imm", 0xCB},
    OpcodeName{"ack", 0xD1},             OpcodeName{"sack", 0xDC},
    OpcodeName{"nack", 0xDD},            OpcodeName{"probe", 0xDE},
    OpcodeName{"ep_req", 0xD8},          OpcodeName{"ep_rsp", 0xD9},
};

constexpr auto make_opcode_spellings() {
  std::array<std::string_view, kOpcodeNames.size()> out{};
  for (std::size_t i = 0; i < kOpcodeNames.size(); ++i) out[i] = kOpcodeNames[i].name;
  return out;
}
inline constexpr auto kOpcodeSpellings = make_opcode_spellings();

std::span<const OpcodeName> opcode_names();
std::optional<std::uint8_t> opcode_by_name(std::string_view name);
std::span<const std::string_view> opcode_spellings();

}  // namespace mrc::harness
