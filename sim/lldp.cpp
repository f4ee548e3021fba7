#include "sim/lldp.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>

namespace fabricmon::sim {
namespace {

using nlohmann::json;

/// A locally administered unicast MAC from the switch's identity.
std::string macOf(const std::string& name) {
  const uint64_t h = switchIdOf(name);
  char mac[18];
  std::snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", static_cast<unsigned>((h >> 40) & 0xfc) | 0x02,
                static_cast<unsigned>((h >> 32) & 0xff), static_cast<unsigned>((h >> 24) & 0xff),
                static_cast<unsigned>((h >> 16) & 0xff), static_cast<unsigned>((h >> 8) & 0xff),
                static_cast<unsigned>(h & 0xff));
  return mac;
}

json value(const std::string& v) { return json::array({{{"value", v}}}); }

}  // namespace

uint64_t switchIdOf(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string lldpJson0(const std::vector<LldpPeer>& peers) {
  json interfaces = json::array();
  for (const LldpPeer& p : peers) {
    json chassis = {{"id", json::array({{{"type", "mac"}, {"value", macOf(p.chassisName)}}})},
                    {"name", value(p.chassisName)},
                    {"descr", value("Cumulus Linux (simulated)")},
                    {"capability", json::array({{{"type", "Bridge"}, {"enabled", true}},
                                                {{"type", "Router"}, {"enabled", true}}})}};
    json port = {{"id", json::array({{{"type", "ifname"}, {"value", p.portId}}})},
                 {"descr", value(p.portDescription)},
                 {"ttl", value("120")}};
    interfaces.push_back({{"name", p.interface},
                          {"via", "LLDP"},
                          {"rid", std::to_string(interfaces.size() + 1)},
                          {"age", "0 day, 00:00:05"},
                          {"chassis", json::array({chassis})},
                          {"port", json::array({port})}});
  }
  // No neighbour at all: lldpcli prints an empty object in the list.
  json section = peers.empty() ? json::object() : json{{"interface", interfaces}};
  return json{{"lldp", json::array({section})}}.dump(2) + "\n";
}

}  // namespace fabricmon::sim
