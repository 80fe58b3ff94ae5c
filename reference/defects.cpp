#include "reference/defects.hpp"

#include <array>

namespace mrc::ref {
namespace {

constexpr std::array<DefectInfo, static_cast<std::size_t>(Defect::kCount)> kCatalog{{
#define MRC_DEFECT_INFO(id, name, symptom) {Defect::id, name, symptom},
    MRC_REFERENCE_DEFECTS(MRC_DEFECT_INFO)
#undef MRC_DEFECT_INFO
}};

}  // namespace

std::span<const DefectInfo> defect_catalog() { return kCatalog; }

const DefectInfo& defect_info(Defect d) { return kCatalog[static_cast<std::size_t>(d)]; }

std::optional<Defect> defect_by_name(std::string_view name) {
  for (const auto& d : kCatalog) {
    if (d.name == name) return d.id;
  }
  return std::nullopt;
}

std::vector<Defect> DefectSet::list() const {
  std::vector<Defect> out;
  for (const auto& d : kCatalog) {
    if (has(d.id)) out.push_back(d.id);
  }
  return out;
}

std::string DefectSet::to_string() const {
  std::string out;
  for (const auto& d : kCatalog) {
    if (!has(d.id)) continue;
    if (!out.empty()) out += ',';
    out += d.name;
  }
  return out;
}

DefectSet DefectSet::read_in(const quirk::ReadLog& log) {
  DefectSet set;
  for (const auto& d : kCatalog) {
    if (log.was_read(static_cast<std::uint8_t>(d.id))) set.add(d.id);
  }
  return set;
}

std::optional<DefectSet> DefectSet::parse(std::string_view csv, std::string* bad) {
  DefectSet set;
  while (!csv.empty()) {
    const auto comma = csv.find(',');
    const auto name = csv.substr(0, comma);
    csv = comma == std::string_view::npos ? std::string_view{} : csv.substr(comma + 1);
    if (name.empty()) continue;
    const auto d = defect_by_name(name);
    if (!d) {
      if (bad) *bad = std::string(name);
      return std::nullopt;
    }
    set.add(*d);
  }
  return set;
}

}  // namespace mrc::ref
