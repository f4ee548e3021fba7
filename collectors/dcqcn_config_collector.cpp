#include "collectors/dcqcn_config_collector.hpp"

#include <array>
#include <map>
#include <string>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

const FamilyDef kNpEnabled{"fabricmon_dcqcn_np_enabled",
                           "1 when DCQCN notification-point (ECN-marked packet -> CNP) handling is "
                           "enabled for the priority, from "
                           "class/net/<if>/ecn/roce_np/enable/<priority> (NVIDIA OFED).",
                           MetricType::kGauge};
const FamilyDef kRpEnabled{
    "fabricmon_dcqcn_rp_enabled",
    "1 when DCQCN reaction-point (rate reduction on CNP) is enabled for the priority, from "
    "class/net/<if>/ecn/roce_rp/enable/<priority> (NVIDIA OFED).",
    MetricType::kGauge};
const FamilyDef kParameter{"fabricmon_dcqcn_parameter",
                           "A DCQCN parameter of the interface: every other file of ecn/roce_np "
                           "and ecn/roce_rp (OFED), or of the "
                           "upstream mlx5 debugfs cc_params directory (parameter = file name).",
                           MetricType::kGauge};
constexpr std::array<const FamilyDef*, 3> kFamilies{&kNpEnabled, &kRpEnabled, &kParameter};

constexpr std::array<std::string_view, 2> kRoles{"np", "rp"};

// Config files hold unsigned decimals; mlx5 debugfs prints its u32 parameters with "%d"
// (drivers/infiniband/hw/mlx5/cong.c), so a leading minus is accepted there.
Result<double> parseValue(std::string_view text) {
  text = trim(text);
  const bool negative = !text.empty() && text.front() == '-';
  auto v = parseCounter(negative ? text.substr(1) : text);
  if (!v) return v.error();
  return negative ? -static_cast<double>(*v) : static_cast<double>(*v);
}

class DcqcnConfigCollector final : public Collector {
 public:
  explicit DcqcnConfigCollector(std::shared_ptr<const SysfsRoot> sysfs)
      : sysfs_(std::move(sysfs)) {}

  std::string_view name() const override { return "dcqcn_config"; }
  std::span<const FamilyDef* const> families() const override { return kFamilies; }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!sysfs_) return CollectStatus::kFailed;
    std::map<std::string, IfSeries> next;
    bool anyTree = false;
    for (const Netdev& nd : topology.netdevs) {
      IfSeries state;
      if (auto it = series_.find(nd.name); it != series_.end()) state = std::move(it->second);
      std::map<std::string, SeriesPtr> params;
      anyTree |= collectOfed(nd.name, state, params, out);
      anyTree |= collectDebugfs(nd, state, params, out);
      state.params = std::move(params);  // a parameter file that went away frees its series
      next.emplace(nd.name, std::move(state));
    }
    series_ = std::move(next);  // so does an interface that left the topology
    return anyTree ? CollectStatus::kOk : CollectStatus::kNoData;
  }

 private:
  struct IfSeries {
    std::array<SeriesPtr, 8> enabled[2];      // [role][priority]
    std::map<std::string, SeriesPtr> params;  // "<role>/<parameter>"
  };

  bool collectOfed(const std::string& ifname, IfSeries& state,
                   std::map<std::string, SeriesPtr>& params, CollectOutput& out) {
    const std::string ecn = "class/net/" + ifname + "/ecn";
    bool found = false;
    for (size_t r = 0; r < kRoles.size(); ++r) {
      const std::string dir = ecn + "/roce_" + std::string(kRoles[r]);
      if (!sysfs_->isDir(dir)) continue;
      found = true;
      auto names = sysfs_->listDir(dir);
      if (!names) {
        out.fileError(dir, names.error());
        continue;
      }
      out.fileOk(dir);
      for (const std::string& file : *names) {
        const std::string rel = dir + "/" + file;
        if (file == "enable" && sysfs_->isDir(rel)) {
          collectEnable(ifname, r, rel, state, out);
        } else if (!sysfs_->isDir(rel)) {
          emitParameter(ifname, kRoles[r], file, rel, state, params, out);
        }
      }
    }
    return found;
  }

  void collectEnable(const std::string& ifname, size_t role, const std::string& dir,
                     IfSeries& state, CollectOutput& out) {
    const FamilyDef& family = role == 0 ? kNpEnabled : kRpEnabled;
    for (unsigned p = 0; p < 8; ++p) {
      const std::string rel = dir + "/" + std::to_string(p);
      if (!sysfs_->exists(rel)) continue;  // the driver lists only the priorities it has
      auto value = readValue(rel, out);
      if (!value) continue;
      SeriesPtr& s = state.enabled[role][p];
      if (!s) s = makeSeries(family, {{"interface", ifname}, {"priority", std::to_string(p)}});
      out.add(s, *value);
    }
  }

  bool collectDebugfs(const Netdev& nd, IfSeries& state, std::map<std::string, SeriesPtr>& params,
                      CollectOutput& out) {
    if (nd.pciAddress.empty()) return false;
    const std::string dir = "kernel/debug/mlx5/" + nd.pciAddress + "/cc_params";
    if (!sysfs_->isDir(dir)) return false;
    auto names = sysfs_->listDir(dir);
    if (!names) {
      out.fileError(dir, names.error());
      return true;
    }
    out.fileOk(dir);
    for (const std::string& file : *names) {
      // cong.c names every parameter rp_* or np_*; anything else is not a DCQCN parameter.
      std::string_view role;
      if (file.starts_with("rp_"))
        role = "rp";
      else if (file.starts_with("np_"))
        role = "np";
      else
        continue;
      const std::string rel = dir + "/" + file;
      if (sysfs_->isDir(rel)) continue;
      emitParameter(nd.name, role, file, rel, state, params, out);
    }
    return true;
  }

  void emitParameter(const std::string& ifname, std::string_view role, const std::string& parameter,
                     const std::string& rel, IfSeries& state,
                     std::map<std::string, SeriesPtr>& params, CollectOutput& out) {
    auto value = readValue(rel, out);
    if (!value) return;
    std::string key = std::string(role) + "/" + parameter;
    SeriesPtr s;
    if (auto it = state.params.find(key); it != state.params.end()) s = it->second;
    if (!s) {
      s = makeSeries(
          kParameter,
          {{"interface", ifname}, {"role", std::string(role)}, {"parameter", parameter}});
    }
    out.add(s, *value);
    params.emplace(std::move(key), std::move(s));
  }

  Result<double> readValue(const std::string& rel, CollectOutput& out) {
    auto text = sysfs_->readText(rel);
    if (!text) {
      out.fileError(rel, text.error());
      return text.error();
    }
    auto value = parseValue(*text);
    if (!value) {
      Error e{"read " + sysfs_->path(rel) + ": " + value.error().message, value.error().errnum};
      out.fileError(rel, e);
      return e;
    }
    out.fileOk(rel);
    return value;
  }

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::map<std::string, IfSeries> series_;  // label sets built once per series, not per poll
};

}  // namespace

std::unique_ptr<Collector> makeDcqcnConfigCollector(const Sources& sources,
                                                    const Config& /*config*/) {
  return std::make_unique<DcqcnConfigCollector>(sources.sysfs);
}

}  // namespace fabricmon
