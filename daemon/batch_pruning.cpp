#include "daemon/batch_pruning.hpp"

#include <string_view>

namespace fabricmon {

BatchPtr withoutVanished(const BatchPtr& batch, const Topology& topology) {
  auto pruned = std::make_shared<Batch>();
  pruned->collector = batch->collector;
  pruned->monotonic = batch->monotonic;
  pruned->wall = batch->wall;
  pruned->topologyGeneration = batch->topologyGeneration;
  pruned->notes = batch->notes;
  // A new roster for the samples kept: Batch::roster stays parallel to the samples.
  pruned->samples.reserve(batch->samples.size());
  auto present = [&topology](const Series& series) {
    // A device label may list several devices, comma-separated (a PCIe port or sensor they
    // share, docs/metrics.md): the series stays while any of them is there.
    std::string_view devices = series.label("device");
    bool anyDevice = devices.empty();
    while (!anyDevice && !devices.empty()) {
      const size_t comma = devices.find(',');
      anyDevice = topology.device(devices.substr(0, comma)) != nullptr;
      devices.remove_prefix(comma == std::string_view::npos ? devices.size() : comma + 1);
    }
    if (!anyDevice) return false;
    const std::string_view interface = series.label("interface");
    return interface.empty() || topology.netdev(interface) != nullptr;
  };
  SampleWriter out(*pruned);
  for (size_t i = 0; i < batch->samples.size(); ++i) {
    const Sample& s = batch->samples[i];
    if (present(*s.series)) {
      out.add(batch->seriesAt(i), s.value);
    } else {
      pruned->unread.push_back(batch->seriesAt(i));  // not rendered; the collector's next run decides
    }
  }
  out.finish();
  pruned->unread.insert(pruned->unread.end(), batch->unread.begin(), batch->unread.end());
  return pruned;
}

}  // namespace fabricmon
