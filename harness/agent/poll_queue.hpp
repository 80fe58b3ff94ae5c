// What every backend's POLL does with the completions and EV events it holds: hands over up to
// the request's maximum of each, oldest first, and says whether more wait.
#pragma once

#include <algorithm>
#include <deque>

#include "harness/agentproto/messages.hpp"

namespace mrc::agent {

inline void take_polled(std::deque<agentproto::CompletionInfo>& completions, std::deque<agentproto::EvEventInfo>& events,
                        const agentproto::Poll& p, agentproto::Completions& out) {
  const std::size_t nc = std::min<std::size_t>(p.max_completions, completions.size());
  out.completions.assign(completions.begin(), completions.begin() + static_cast<std::ptrdiff_t>(nc));
  completions.erase(completions.begin(), completions.begin() + static_cast<std::ptrdiff_t>(nc));
  const std::size_t ne = std::min<std::size_t>(p.max_events, events.size());
  out.events.assign(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(ne));
  events.erase(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(ne));
  out.more = !completions.empty() || !events.empty();
}

}  // namespace mrc::agent
