// Names of message types and error codes, the fatal-error rule, and the body -> type mapping.
#include "harness/agentproto/messages.hpp"

#include <type_traits>

namespace mrc::agentproto {

bool is_known_type(std::uint16_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello:
    case MsgType::kApplyConfig:
    case MsgType::kConnect:
    case MsgType::kPostWrite:
    case MsgType::kPostRecv:
    case MsgType::kPoll:
    case MsgType::kSetEvState:
    case MsgType::kPortAdmin:
    case MsgType::kEpOp:
    case MsgType::kReadMemory:
    case MsgType::kWriteMemory:
    case MsgType::kQueryState:
    case MsgType::kReset:
    case MsgType::kBye:
    case MsgType::kEvProfileOp:
    case MsgType::kCcProfileOp:
    case MsgType::kReplaceEv:
    case MsgType::kSetProfileOnline:
    case MsgType::kRestrictDevice:
    case MsgType::kAttach:
    case MsgType::kStep:
    case MsgType::kFrames:
    case MsgType::kHelloOk:
    case MsgType::kApplyOk:
    case MsgType::kOk:
    case MsgType::kCompletions:
    case MsgType::kMemory:
    case MsgType::kState:
    case MsgType::kError:
      return true;
  }
  return false;
}

std::string_view to_string(MsgType t) {
  switch (t) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kApplyConfig: return "APPLY_CONFIG";
    case MsgType::kConnect: return "CONNECT";
    case MsgType::kPostWrite: return "POST_WRITE";
    case MsgType::kPostRecv: return "POST_RECV";
    case MsgType::kPoll: return "POLL";
    case MsgType::kSetEvState: return "SET_EV_STATE";
    case MsgType::kPortAdmin: return "PORT_ADMIN";
    case MsgType::kEpOp: return "EP_OP";
    case MsgType::kReadMemory: return "READ_MEMORY";
    case MsgType::kWriteMemory: return "WRITE_MEMORY";
    case MsgType::kQueryState: return "QUERY_STATE";
    case MsgType::kReset: return "RESET";
    case MsgType::kBye: return "BYE";
    case MsgType::kEvProfileOp: return "EV_PROFILE_OP";
    case MsgType::kCcProfileOp: return "CC_PROFILE_OP";
    case MsgType::kReplaceEv: return "REPLACE_EV";
    case MsgType::kSetProfileOnline: return "SET_PROFILE_ONLINE";
    case MsgType::kRestrictDevice: return "RESTRICT_DEVICE";
    case MsgType::kAttach: return "ATTACH";
    case MsgType::kStep: return "STEP";
    case MsgType::kFrames: return "FRAMES";
    case MsgType::kHelloOk: return "HELLO_OK";
    case MsgType::kApplyOk: return "APPLY_OK";
    case MsgType::kOk: return "OK";
    case MsgType::kCompletions: return "COMPLETIONS";
    case MsgType::kMemory: return "MEMORY";
    case MsgType::kState: return "STATE";
    case MsgType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

MsgType reply_type_of(MsgType request) {
  switch (request) {
    case MsgType::kHello: return MsgType::kHelloOk;
    case MsgType::kApplyConfig: return MsgType::kApplyOk;
    case MsgType::kPoll: return MsgType::kCompletions;
    case MsgType::kReadMemory: return MsgType::kMemory;
    case MsgType::kQueryState: return MsgType::kState;
    case MsgType::kStep: return MsgType::kFrames;
    default: return MsgType::kOk;
  }
}

std::string_view to_string(ErrorCode c) {
  switch (c) {
    case ErrorCode::kNone: return "none";
    case ErrorCode::kFrameTooShort: return "frame_too_short";
    case ErrorCode::kFrameTooLarge: return "frame_too_large";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kUnknownType: return "unknown_type";
    case ErrorCode::kBadFlags: return "bad_flags";
    case ErrorCode::kTruncatedBody: return "truncated_body";
    case ErrorCode::kTrailingBytes: return "trailing_bytes";
    case ErrorCode::kFieldTooLong: return "field_too_long";
    case ErrorCode::kBadValue: return "bad_value";
    case ErrorCode::kBadVersion: return "bad_version";
    case ErrorCode::kBadToken: return "bad_token";
    case ErrorCode::kNotHello: return "not_hello";
    case ErrorCode::kDuplicateHello: return "duplicate_hello";
    case ErrorCode::kBadSeq: return "bad_seq";
    case ErrorCode::kUnexpectedReply: return "unexpected_reply";
    case ErrorCode::kNotApplied: return "not_applied";
    case ErrorCode::kRejected: return "rejected";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kBackendFailure: return "backend_failure";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kTooManyClients: return "too_many_clients";
    case ErrorCode::kLimit: return "limit";
  }
  return "unknown_error";
}

bool is_fatal(ErrorCode c) {
  switch (c) {
    case ErrorCode::kFrameTooShort:
    case ErrorCode::kFrameTooLarge:
    case ErrorCode::kTruncated:
    case ErrorCode::kBadVersion:
    case ErrorCode::kBadToken:
    case ErrorCode::kTimeout:
    case ErrorCode::kTooManyClients:
      return true;
    default:
      return false;
  }
}

namespace {
template <typename T>
constexpr MsgType type_for() {
  if constexpr (std::is_same_v<T, Hello>) return MsgType::kHello;
  else if constexpr (std::is_same_v<T, HelloOk>) return MsgType::kHelloOk;
  else if constexpr (std::is_same_v<T, ApplyConfig>) return MsgType::kApplyConfig;
  else if constexpr (std::is_same_v<T, ApplyOk>) return MsgType::kApplyOk;
  else if constexpr (std::is_same_v<T, Connect>) return MsgType::kConnect;
  else if constexpr (std::is_same_v<T, Ok>) return MsgType::kOk;
  else if constexpr (std::is_same_v<T, PostWrite>) return MsgType::kPostWrite;
  else if constexpr (std::is_same_v<T, PostRecv>) return MsgType::kPostRecv;
  else if constexpr (std::is_same_v<T, Poll>) return MsgType::kPoll;
  else if constexpr (std::is_same_v<T, Completions>) return MsgType::kCompletions;
  else if constexpr (std::is_same_v<T, SetEvState>) return MsgType::kSetEvState;
  else if constexpr (std::is_same_v<T, PortAdmin>) return MsgType::kPortAdmin;
  else if constexpr (std::is_same_v<T, EpOp>) return MsgType::kEpOp;
  else if constexpr (std::is_same_v<T, ReadMemory>) return MsgType::kReadMemory;
  else if constexpr (std::is_same_v<T, MemoryBytes>) return MsgType::kMemory;
  else if constexpr (std::is_same_v<T, WriteMemory>) return MsgType::kWriteMemory;
  else if constexpr (std::is_same_v<T, QueryState>) return MsgType::kQueryState;
  else if constexpr (std::is_same_v<T, StateReport>) return MsgType::kState;
  else if constexpr (std::is_same_v<T, Reset>) return MsgType::kReset;
  else if constexpr (std::is_same_v<T, Bye>) return MsgType::kBye;
  else if constexpr (std::is_same_v<T, EvProfileOp>) return MsgType::kEvProfileOp;
  else if constexpr (std::is_same_v<T, CcProfileOp>) return MsgType::kCcProfileOp;
  else if constexpr (std::is_same_v<T, ReplaceEv>) return MsgType::kReplaceEv;
  else if constexpr (std::is_same_v<T, SetProfileOnline>) return MsgType::kSetProfileOnline;
  else if constexpr (std::is_same_v<T, RestrictDevice>) return MsgType::kRestrictDevice;
  else if constexpr (std::is_same_v<T, Attach>) return MsgType::kAttach;
  else if constexpr (std::is_same_v<T, Step>) return MsgType::kStep;
  else if constexpr (std::is_same_v<T, Frames>) return MsgType::kFrames;
  else {
    static_assert(std::is_same_v<T, Error>, "every Body alternative needs a type");
    return MsgType::kError;
  }
}
}  // namespace

MsgType type_of(const Body& b) {
  return std::visit([](const auto& m) { return type_for<std::decay_t<decltype(m)>>(); }, b);
}

}  // namespace mrc::agentproto
