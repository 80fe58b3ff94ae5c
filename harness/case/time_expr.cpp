#include "harness/case/time_expr.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "harness/case/schema.hpp"

namespace mrc::harness {
namespace {

constexpr double kMaxNs = 4.611686018427387904e18;  // 2^62: far past any case, far from wrapping

struct Unit {
  std::string_view name;
  double ns;  // 0: T or F, taken from the case
};
constexpr std::array kUnits{Unit{"ns", 1},   Unit{"us", 1e3}, Unit{"ms", 1e6},
                            Unit{"s", 1e9},  Unit{"T", 0},    Unit{"F", 0}};

bool space(char c) { return c == ' ' || c == '\t'; }

class Reader {
 public:
  explicit Reader(std::string_view t) : t_(t) {}
  void skip() {
    while (i_ < t_.size() && space(t_[i_])) ++i_;
  }
  bool done() {
    skip();
    return i_ == t_.size();
  }
  char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  void take() { ++i_; }
  // Digits with an optional fraction; nullopt (nothing consumed) when none start here.
  std::optional<double> number() {
    const std::size_t from = i_;
    while (i_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[i_])) != 0 || t_[i_] == '.')) ++i_;
    if (i_ == from) return std::nullopt;
    double v = 0;
    const char* b = t_.data() + from;
    const char* e = t_.data() + i_;
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc{} || r.ptr != e) {
      i_ = from;
      return std::nullopt;
    }
    return v;
  }
  std::string_view word() {
    const std::size_t from = i_;
    while (i_ < t_.size() && std::isalpha(static_cast<unsigned char>(t_[i_])) != 0) ++i_;
    return t_.substr(from, i_ - from);
  }
  std::string rest() const { return std::string(t_.substr(i_)); }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
};

TimeValue fail(std::string why) {
  TimeValue v;
  v.error = std::move(why);
  return v;
}

std::string unit_words() { return "ns, us, ms, s, T (the ACK timeout) or F (one data frame at the testbed's rate)"; }

}  // namespace

TimeValue parse_time(std::string_view text, const TimeUnits& u) {
  if (const auto plain = parse_uint(text)) {
    TimeValue v;
    v.ns = *plain;
    return v;
  }
  Reader r(text);
  double total = 0;
  bool uses_t = false;
  bool uses_f = false;
  int terms = 0;
  while (!r.done()) {
    double sign = 1;
    if (terms > 0) {
      const char op = r.peek();
      if (op != '+' && op != '-') return fail("expected + or - before '" + r.rest() + "'");
      r.take();
      sign = op == '-' ? -1 : 1;
      r.skip();
    }
    const std::optional<double> n = r.number();
    r.skip();
    const std::string_view w = r.word();
    if (!n && w.empty()) return fail("expected a number and a unit at '" + r.rest() + "' (for example 3 T + 20 us)");
    if (w.empty()) {
      char b[48];
      std::snprintf(b, sizeof b, "%g", *n);
      return fail(std::string("the term '") + b + "' has no unit (inside an expression every term names one: " +
                  unit_words() + ")");
    }
    const Unit* unit = nullptr;
    for (const Unit& k : kUnits) {
      if (k.name == w) unit = &k;
    }
    if (unit == nullptr) return fail("unknown unit '" + std::string(w) + "' (the units are " + unit_words() + ")");
    const bool is_f = unit->name == "F";
    const double per = unit->ns != 0 ? unit->ns : is_f ? u.f_ns() : static_cast<double>(u.t_ns());
    uses_t = uses_t || unit->name == "T";
    uses_f = uses_f || is_f;
    total += sign * n.value_or(1) * per;
    ++terms;
  }
  if (terms == 0) return fail("expected a time: nanoseconds, or an expression such as 3 T + 20 us");
  if (total < 0) return fail("the time comes out negative (" + std::to_string(static_cast<long long>(total)) + " ns)");
  if (total > kMaxNs) return fail("the time is too large (over 2^62 ns)");
  TimeValue v;
  v.ns = static_cast<std::uint64_t>(std::llround(total));
  v.uses_t = uses_t;
  v.uses_f = uses_f;
  return v;
}

}  // namespace mrc::harness
