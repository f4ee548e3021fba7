#include "triage/scope.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "model/families/neighbor.hpp"

namespace fabricmon::triage {
namespace {

// The topology info family (docs/metrics.md): device, port, interface, ..., role, rail.
constexpr std::string_view kTopologyInfo = "fabricmon_port_topology_info";

/// Where a node's problems are: the switches its sick ports face and the rails they serve.
struct Place {
  std::set<std::string> switches;
  std::set<std::string> rails;
};

/// True when a finding concerns the port or interface an info series describes: the same
/// interface, else the same device and port, else (a device-wide finding) the same device.
bool concerns(const FindingSeen& f, const SeriesStat& s) {
  const std::string iface = f.label("interface");
  if (!iface.empty()) return iface == s.label("interface");
  const std::string device = f.label("device");
  if (device.empty() || device != s.label("device")) return false;
  const std::string port = f.label("port");
  return port.empty() || port == s.label("port");
}

Place placeOf(const Evidence& e) {
  Place p;
  const auto neighbours = e.family(std::string(families::neighbor::kPortNeighborInfo.name));
  const auto topology = e.family(std::string(kTopologyInfo));
  for (const FindingSeen& f : e.findings) {
    for (const SeriesStat* s : neighbours) {
      if (concerns(f, *s) && !s->label("chassis_name").empty()) p.switches.insert(s->label("chassis_name"));
    }
    for (const SeriesStat* s : topology) {
      if (concerns(f, *s) && !s->label("rail").empty()) p.rails.insert(s->label("rail"));
    }
  }
  return p;
}

/// The names common to every set (sorted), or none.
std::vector<std::string> common(const std::vector<const std::set<std::string>*>& sets) {
  if (sets.empty()) return {};
  std::vector<std::string> out(sets.front()->begin(), sets.front()->end());
  for (const auto* s : sets) {
    std::erase_if(out, [&](const std::string& n) { return s->count(n) == 0; });
  }
  return out;
}

/// Nodes with a port facing `chassis` (sick or not).
size_t nodesFacing(const std::map<std::string, Evidence>& nodes, const std::string& chassis) {
  size_t n = 0;
  for (const auto& [source, e] : nodes) {
    for (const SeriesStat* s : e.family(std::string(families::neighbor::kPortNeighborInfo.name))) {
      if (s->label("chassis_name") == chassis) {
        ++n;
        break;
      }
    }
  }
  return n;
}

std::string count(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

void setScope(FleetVerdict& f, const std::map<std::string, Evidence>& nodes) {
  std::vector<const Verdict*> sick;
  for (const auto& v : f.ranked) {
    if (v.wrong) sick.push_back(&v);
  }
  f.scopeReason.clear();
  if (sick.empty()) {
    f.scope = "none";
    return;
  }
  if (sick.size() == 1) {
    f.scope = "one node";
    f.scopeReason = sick.front()->source;
    return;
  }
  // Topology first: the switch every sick node's problem faces, else the rail they share.
  std::vector<Place> places;
  for (const Verdict* v : sick) {
    const auto it = nodes.find(v->source);
    places.push_back(it == nodes.end() ? Place{} : placeOf(it->second));
  }
  std::vector<const std::set<std::string>*> switches, rails;
  for (const Place& p : places) {
    switches.push_back(&p.switches);
    rails.push_back(&p.rails);
  }
  if (const auto s = common(switches); !s.empty()) {
    f.scope = "one switch";
    f.scopeReason = count(sick.size(), "sick node", "sick nodes") + " with problems on ports facing " + s.front() +
                    " (" + count(nodesFacing(nodes, s.front()), "node", "nodes") + " of " + std::to_string(f.nodes) +
                    " face it)";
    return;
  }
  if (const auto r = common(rails); !r.empty()) {
    std::set<std::string> faced;
    for (const Place& p : places) faced.insert(p.switches.begin(), p.switches.end());
    f.scope = "one rail";
    f.scopeReason = count(sick.size(), "sick node", "sick nodes") + " with problems on rail " + r.front() +
                    (faced.empty() ? "" : ", behind " + count(faced.size(), "switch", "different switches"));
    return;
  }
  const double share = double(sick.size()) / double(std::max<size_t>(f.nodes, 1));
  if (share > 0.5 && f.nodes >= 3) {
    f.scope = "fabric-wide";
    f.scopeReason = std::to_string(sick.size()) + " of " + std::to_string(f.nodes) + " nodes";
    return;
  }
  // No topology: pause on the same priority on several nodes at once points at a switch they share.
  std::map<std::string, size_t> pausingOn;  // priority -> nodes with a pause problem on it
  for (const Verdict* v : sick) {
    for (const auto& c : v->ranked) {
      if (c.id != "pfc_pause" || c.state != State::kProblem) continue;
      const auto at = c.where.find("priority ");
      pausingOn[at == std::string::npos ? "any" : c.where.substr(at + 9)]++;
    }
  }
  std::string prio;
  size_t most = 0;
  for (const auto& [p, n] : pausingOn) {
    if (n > most) most = n, prio = p;
  }
  if (most >= 2) {
    f.scope = "one switch's worth of nodes";
    f.scopeReason = std::to_string(most) + " nodes pausing on priority " + prio + " at once, " +
                    std::to_string(f.nodes - sick.size()) + " healthy";
  } else {
    f.scope = "several nodes";
    f.scopeReason = std::to_string(sick.size()) + " of " + std::to_string(f.nodes) + " nodes, different causes";
  }
}

}  // namespace fabricmon::triage
