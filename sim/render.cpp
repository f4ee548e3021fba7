#include "sim/render.hpp"

#include <cstdio>

namespace fabricmon::sim {

std::string ethtoolText(const StatTable& stats) {
  std::string out = "NIC statistics:\n";
  out.reserve(stats.entries().size() * 40);
  for (const auto& e : stats.entries()) {
    out += "     ";
    out += e.name;
    out += ": ";
    out += std::to_string(e.counter.value());
    out += '\n';
  }
  return out;
}

std::string dcbYaml(const std::vector<unsigned>& pfcEnabled, const std::string& trust,
                    const std::map<unsigned, unsigned>& dscpToPriority) {
  std::string out = "pfc_enabled: [";
  for (size_t i = 0; i < pfcEnabled.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(pfcEnabled[i]);
  }
  out += "]\ntrust: " + trust + "\n";
  if (!dscpToPriority.empty()) {
    out += "dscp_to_priority: {";
    bool first = true;
    for (const auto& [dscp, prio] : dscpToPriority) {
      if (!first) out += ", ";
      first = false;
      out += std::to_string(dscp) + ": " + std::to_string(prio);
    }
    out += "}\n";
  }
  return out;
}

std::string guidText(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x",
                static_cast<unsigned>((guid >> 48) & 0xffff),
                static_cast<unsigned>((guid >> 32) & 0xffff),
                static_cast<unsigned>((guid >> 16) & 0xffff), static_cast<unsigned>(guid & 0xffff));
  return buf;
}

std::string macText(uint64_t mac) {
  char buf[24];
  std::snprintf(
      buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", static_cast<unsigned>((mac >> 40) & 0xff),
      static_cast<unsigned>((mac >> 32) & 0xff), static_cast<unsigned>((mac >> 24) & 0xff),
      static_cast<unsigned>((mac >> 16) & 0xff), static_cast<unsigned>((mac >> 8) & 0xff),
      static_cast<unsigned>(mac & 0xff));
  return buf;
}

std::string gidText(const uint8_t (&raw)[16]) {
  std::string out;
  char buf[8];
  for (int i = 0; i < 16; i += 2) {
    if (i) out += ':';
    std::snprintf(buf, sizeof buf, "%02x%02x", raw[i], raw[i + 1]);
    out += buf;
  }
  return out;
}

}  // namespace fabricmon::sim
