#include "sim_test_util.hpp"

#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/simulator.hpp"

namespace fabricmon::sim::test {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string readTrimmed(const fs::path& p) {
  std::string s = readFile(p);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<uint64_t> readCounter(const fs::path& p) {
  const std::string s = readTrimmed(p);
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::optional<std::map<std::string, uint64_t>> parseEthtool(const std::string& text,
                                                            std::string* error) {
  std::istringstream in(text);
  std::string line;
  auto fail = [&](const std::string& why) -> std::optional<std::map<std::string, uint64_t>> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!std::getline(in, line) || line != "NIC statistics:") return fail("header: " + line);
  std::map<std::string, uint64_t> stats;
  while (std::getline(in, line)) {
    if (line.rfind("     ", 0) != 0 || line.size() < 8 || line[5] == ' ')
      return fail("indent: " + line);
    // The value follows the last ": ". bnxt_en's per-ring names carry their own ("[0]: rx_drops",
    // bnxt_ethtool.c bnxt_get_strings); otherwise a name has no blank and no colon.
    const size_t colon = line.rfind(": ");
    if (colon == std::string::npos || colon < 5) return fail("no colon: " + line);
    const std::string name = line.substr(5, colon - 5);
    const std::string value = line.substr(colon + 2);
    const bool ringName = name.starts_with("[") && name.find("]: ") != std::string::npos;
    if ((!ringName && name.find_first_of(" :") != std::string::npos) || value.empty() ||
        value.find_first_not_of("0123456789") != std::string::npos) {
      return fail("bad line: " + line);
    }
    if (!stats.emplace(name, std::stoull(value)).second) return fail("duplicate: " + name);
  }
  return stats;
}

Snapshot snapshot(const Simulator& sim) {
  Snapshot snap;
  const fs::path sys = sim.sysfsRoot();
  for (const SimPort& p : sim.ports()) {
    const fs::path port = sys / "class/infiniband" / p.device / "ports" / std::to_string(p.port);
    for (const char* dir : {"counters", "hw_counters"}) {
      for (const auto& e : fs::directory_iterator(port / dir)) {
        const std::string name = e.path().filename().string();
        if (name == "lifespan") continue;
        const auto v = readCounter(e.path());
        if (!v) throw std::runtime_error("not a counter: " + e.path().string());
        snap[p.device + "/" + dir + "/" + name] = *v;
      }
    }
    for (const char* f : {"carrier_changes", "carrier_up_count", "carrier_down_count"}) {
      snap[p.interface + "/" + f] = readCounter(sys / "class/net" / p.interface / f).value();
    }
    const fs::path eth = sim.ethtoolDir() / p.interface;
    if (!fs::exists(eth)) continue;
    std::string err;
    const auto stats = parseEthtool(readFile(eth), &err);
    if (!stats) throw std::runtime_error("ethtool " + p.interface + ": " + err);
    for (const auto& [name, value] : *stats) {
      if (name == "outbound_pci_stalled_rd" || name == "outbound_pci_stalled_wr") continue;
      snap[p.interface + "/ethtool/" + name] = value;
    }
  }
  return snap;
}

double delta(const Snapshot& before, const Snapshot& after, const std::string& key) {
  const auto b = before.find(key), a = after.find(key);
  if (b == before.end() || a == after.end()) throw std::runtime_error("no counter " + key);
  // Subtract as integers: the byte counters are beyond 2^53, where doubles lose units.
  return a->second >= b->second ? static_cast<double>(a->second - b->second)
                                : -static_cast<double>(b->second - a->second);
}

}  // namespace fabricmon::sim::test
