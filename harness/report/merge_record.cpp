#include "harness/report/merge_record.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

}  // namespace

std::string render_shard_record(const ShardRecord& r) {
  Json j;
  j["schema"] = kShardRecordSchema;
  j["kind"] = r.kind;
  j["shard"] = r.shard_text();
  j["index"] = r.index;
  j["count"] = r.count;
  j["source"] = r.source;
  j["cost_basis"] = r.cost_basis;
  j["fingerprint"] = r.fingerprint;
  j["command_line"] = r.command_line;
  j["units"] = r.units;
  j["mine"] = r.mine;
  Json edges = Json::array();
  for (const EdgeRef& e : r.edges) {
    edges.push_back(Json{{"requirement", e.requirement}, {"edge", e.edge}, {"what", e.what}, {"cases", e.cases}});
  }
  j["edges"] = std::move(edges);
  return j.dump(2) + '\n';
}

ShardRecord read_shard_record(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kShardRecordName;
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ReportError(name + ": not there (is " + dir.string() + " the --out of a sharded command?)");
  std::stringstream text;
  text << in.rdbuf();
  Json j;
  try {
    j = Json::parse(text.str());
  } catch (const std::exception& e) {
    throw ReportError(name + ": not JSON: " + e.what());
  }
  auto need = [&](const char* key, Json::value_t type) -> const Json& {
    if (!j.is_object() || !j.contains(key)) throw ReportError(name + ": /" + key + ": missing");
    const Json& v = j.at(key);
    const bool ok = v.type() == type || (type == Json::value_t::number_unsigned && v.is_number_unsigned());
    if (!ok) throw ReportError(name + ": /" + key + ": wrong type");
    return v;
  };
  if (need("schema", Json::value_t::string).get<std::string>() != kShardRecordSchema) {
    throw ReportError(name + ": /schema: expected " + std::string(kShardRecordSchema));
  }
  ShardRecord r;
  r.kind = need("kind", Json::value_t::string).get<std::string>();
  r.index = need("index", Json::value_t::number_unsigned).get<std::uint32_t>();
  r.count = need("count", Json::value_t::number_unsigned).get<std::uint32_t>();
  r.source = need("source", Json::value_t::string).get<std::string>();
  r.cost_basis = need("cost_basis", Json::value_t::string).get<std::string>();
  r.fingerprint = need("fingerprint", Json::value_t::string).get<std::string>();
  r.command_line = need("command_line", Json::value_t::string).get<std::string>();
  for (const char* key : {"units", "mine"}) {
    const Json& a = need(key, Json::value_t::array);
    auto& into = std::string_view(key) == "units" ? r.units : r.mine;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) throw ReportError(name + ": /" + key + "/" + std::to_string(i) + ": expected a string");
      into.push_back(a[i].get<std::string>());
    }
  }
  const Json& edges = need("edges", Json::value_t::array);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    try {
      r.edges.push_back(EdgeRef{edges[i].at("requirement").get<std::string>(), edges[i].at("edge").get<std::string>(),
                                edges[i].at("what").get<std::string>(),
                                edges[i].at("cases").get<std::vector<std::string>>()});
    } catch (const std::exception&) {
      throw ReportError(name + ": /edges/" + std::to_string(i) + ": expected requirement, edge, what, cases");
    }
  }
  if (r.count == 0 || r.index >= r.count) throw ReportError(name + ": /index: " + r.shard_text() + " is not a shard");
  return r;
}

}  // namespace mrc::harness
