// The FEC file source: `<fec_dir>/<ifname>` is YAML (docs/contract.md §2), the simulator's and the
// tests' stand-in for the ethtool netlink FEC and link-mode replies:
//
//   mode: rs                      # active FEC: off | rs | baser | llrs | none
//   speed_mbps: 400000            # link speed (ETHTOOL_A_LINKMODES_SPEED)
//   lanes: 4                      # ETHTOOL_A_LINKMODES_LANES
//   corrected_blocks: 1234        # a counter: a number (the total) ...
//   uncorrectable_blocks: [5, 1, 4]   # ... or [total, lane 0, lane 1, ...] as the kernel sends it
//   corrected_bits: 99
//
// Every key is optional; an unknown key, a duplicate key or a value out of its domain makes the
// whole file an error for that poll.

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "collectors/sources/fec_source.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

namespace {

constexpr size_t kMaxFecFile = 16 * 1024;
constexpr size_t kMaxLanes = 8;  // ETHTOOL_MAX_LANES (include/linux/ethtool.h)
// Faster than any link a NIC reports (1.6T), in Mb/s.
constexpr uint64_t kMaxSpeedMbps = 10'000'000;

Error yamlError(const std::string& what, const YAML::Node& node) {
  const auto mark = node.Mark();
  std::string msg = what;
  if (mark.line >= 0) msg += " (line " + std::to_string(mark.line + 1) + ")";
  return Error{std::move(msg), EINVAL};
}

Result<uint64_t> number(const YAML::Node& node, const std::string& key, uint64_t max) {
  if (!node.IsScalar()) return yamlError(key + ": expected a number", node);
  auto v = parseCounter(node.Scalar());
  if (!v) return yamlError(key + ": not an unsigned number", node);
  if (*v > max) return yamlError(key + ": above " + std::to_string(max), node);
  return *v;
}

Result<FecCounter> counter(const YAML::Node& node, const std::string& key) {
  FecCounter c;
  if (node.IsScalar()) {
    auto v = number(node, key, UINT64_MAX);
    if (!v) return v.error();
    c.total = *v;
    return c;
  }
  if (!node.IsSequence() || node.size() == 0 || node.size() > 1 + kMaxLanes) {
    return yamlError(key + ": expected a number or [total, lane 0, ...] with at most 8 lanes", node);
  }
  for (size_t i = 0; i < node.size(); ++i) {
    auto v = number(node[i], key, UINT64_MAX);
    if (!v) return v.error();
    if (i == 0) {
      c.total = *v;
    } else {
      c.lanes.push_back(*v);
    }
  }
  return c;
}

Result<FecInfo> parseDocument(const YAML::Node& doc) {
  if (!doc.IsMap()) return yamlError("expected a mapping", doc);
  FecInfo info;
  std::set<std::string> seen;
  for (const auto& kv : doc) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const YAML::Node& v = kv.second;
    if (!seen.insert(key).second) return yamlError("duplicate key \"" + key.substr(0, 40) + "\"", kv.first);
    if (key == "mode") {
      static const std::set<std::string> kModes = {"off", "rs", "baser", "llrs", "none"};
      if (!v.IsScalar() || kModes.count(v.Scalar()) == 0) {
        return yamlError("mode: expected off, rs, baser, llrs or none", v);
      }
      info.mode = v.Scalar();
    } else if (key == "speed_mbps") {
      auto s = number(v, key, kMaxSpeedMbps);
      if (!s) return s.error();
      if (*s == 0) return yamlError("speed_mbps: must be positive", v);
      info.speedMbps = *s;
    } else if (key == "lanes") {
      auto l = number(v, key, kMaxLanes);
      if (!l) return l.error();
      if (*l == 0) return yamlError("lanes: must be 1 to 8", v);
      info.lanes = static_cast<uint32_t>(*l);
    } else if (key == "corrected_blocks" || key == "uncorrectable_blocks" || key == "corrected_bits") {
      auto c = counter(v, key);
      if (!c) return c.error();
      (key == "corrected_blocks" ? info.corrected : key == "uncorrectable_blocks" ? info.uncorrectable
                                                                                    : info.correctedBits) = *c;
    } else {
      return yamlError("unknown key \"" + key.substr(0, 40) + "\"", kv.first);
    }
  }
  return info;
}

class FecFileSource final : public FecSource {
 public:
  explicit FecFileSource(std::filesystem::path dir) : dir_(std::move(dir)) {}

  Result<std::optional<FecInfo>> read(const std::string& ifname) override {
    if (ifname.empty() || ifname.find('/') != std::string::npos || ifname == "." || ifname == "..") {
      return Error{"fec file: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    const std::string path = (dir_ / ifname).string();
    auto text = readWholeFile(path, kMaxFecFile);  // a FIFO planted in the directory: an error, not a hang
    if (!text) return text.error();
    if (!*text) return std::optional<FecInfo>{};  // no FEC information
    auto info = parseFecYaml(**text);
    if (!info) return Error{path + ": " + info.error().message, info.error().errnum};
    return std::optional<FecInfo>{std::move(*info)};
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace

Result<FecInfo> parseFecYaml(const std::string& text) {
  // yaml-cpp reports every problem by throwing; this is the boundary where that stops.
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!doc || doc.IsNull()) return Error{"empty YAML document", ENODATA};
    return parseDocument(doc);
  } catch (const std::exception& e) {
    return Error{std::string("YAML: ") + e.what(), EINVAL};
  } catch (...) {
    return Error{"YAML: unknown parser failure", EINVAL};
  }
}

std::unique_ptr<FecSource> makeFecFileSource(std::filesystem::path dir) {
  return std::make_unique<FecFileSource>(std::move(dir));
}

}  // namespace fabricmon
