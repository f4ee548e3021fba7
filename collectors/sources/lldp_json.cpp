#include <nlohmann/json.hpp>

#include <algorithm>

#include "collectors/sources/lldp_source.hpp"

namespace fabricmon {
namespace {

using nlohmann::json;

/// json0 wraps every value in an array of objects: {"name": [{"value": "leaf-07"}]}.
std::string firstValue(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array() || it->empty()) return {};
  const json& first = it->front();
  if (!first.is_object()) return {};
  const auto value = first.find("value");
  return value != first.end() && value->is_string() ? value->get<std::string>() : std::string{};
}

const json* firstObject(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array() || it->empty() || !it->front().is_object()) return nullptr;
  return &it->front();
}

}  // namespace

Result<std::vector<LldpNeighbor>> parseLldpJson0(std::string_view text) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error{"lldpcli output is not a JSON object", EINVAL};
  std::vector<LldpNeighbor> out;
  const auto lldp = doc.find("lldp");
  // No neighbour at all: lldpcli prints {"lldp": [{}]} (json0) or {"lldp": {}}.
  if (lldp == doc.end()) return Error{"lldpcli output has no \"lldp\" key", EINVAL};
  if (lldp->is_object() && lldp->empty()) return out;
  // `lldpcli -f json` (not json0) prints objects whose shape changes with the number of neighbours.
  if (!lldp->is_array()) return Error{"lldpcli output is not json0 (use -f json0)", EINVAL};
  for (const json& section : *lldp) {
    const auto interfaces = section.find("interface");
    if (interfaces == section.end() || !interfaces->is_array()) continue;
    for (const json& iface : *interfaces) {
      if (!iface.is_object()) continue;
      const auto name = iface.find("name");
      if (name == iface.end() || !name->is_string() || name->get<std::string>().empty()) {
        return Error{"lldpcli output: an interface without a name", EINVAL};
      }
      LldpNeighbor n;
      n.interface = name->get<std::string>();
      if (const json* chassis = firstObject(iface, "chassis")) {
        n.chassisName = firstValue(*chassis, "name");
        n.chassisId = firstValue(*chassis, "id");
      }
      if (const json* port = firstObject(iface, "port")) {
        n.portId = firstValue(*port, "id");
        n.portDescription = firstValue(*port, "descr");
      }
      // A neighbour that identifies neither its chassis nor its port is nothing to report.
      if (n.chassisName.empty() && n.chassisId.empty() && n.portId.empty()) continue;
      out.push_back(std::move(n));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LldpNeighbor& a, const LldpNeighbor& b) { return a.interface < b.interface; });
  return out;
}

}  // namespace fabricmon
