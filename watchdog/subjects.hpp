#pragma once
// What the rules judge — RDMA ports, interfaces, devices — each with the series it is judged from.
// The index is rebuilt by History::ingest in the step that adds or frees a series (never per
// evaluation): a rule walks the subjects and reads each input through its subject's handle
// (port.in(Fam::kPortState), iface.in(Fam::kPauseSeconds, priority, direction)), with no key built
// or hashed on the hot path. The views and pointers stay valid until the History's next ingest.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "watchdog/input_families.hpp"

namespace fabricmon::watchdog {

struct Tracked;

/// The series of one subject, by family and by the key labels after the subject's own (priority,
/// direction, counter, lane, ...; in InputFamily::keyLabels order).
class Inputs {
 public:
  /// The subject's series of `fam` with no further key labels (or the first of several), or nullptr.
  const Tracked* in(Fam fam) const {
    auto r = range(fam);
    return r.empty() ? nullptr : r.front();
  }
  /// The series of `fam` whose further key labels are `a`, `b`, `c`, or nullptr.
  const Tracked* in(Fam fam, std::string_view a, std::string_view b = {}, std::string_view c = {}) const;
  /// Every series of `fam` of the subject, ordered by their further key labels.
  std::span<const Tracked* const> all(Fam fam) const { return range(fam); }
  /// Further key label `i` of one of this subject's series (all(fam)'s): its priority, lane, ...
  std::string_view label(const Tracked& s, size_t i = 0) const;
  bool empty() const { return series_.empty(); }

 private:
  friend class Subjects;
  std::span<const Tracked* const> range(Fam fam) const {
    const auto f = static_cast<size_t>(fam);
    if (starts_.empty() || f >= kFamCount) return {};
    return {series_.data() + starts_[f], starts_[f + 1] - starts_[f]};
  }
  /// Builds starts_ from fams_ once the series are in, and lets fams_ go.
  void index();
  std::vector<Fam> fams_;  ///< while building: sorted, parallel to series_
  /// Family f's series are series_[starts_[f], starts_[f + 1]): a rule's lookup is two loads, not
  /// two binary searches (docs/benchmarks.md, "Fifth pass: CPU"). Empty when there are no series.
  std::vector<uint32_t> starts_;
  std::vector<const Tracked*> series_;
  uint16_t prefix_ = 0;    ///< length of the subject's part of its series' keys
  /// A series' further key labels, joined: its key after the subject's part.
  std::string_view extraOf(const Tracked& s) const;
};

struct PortRef;

/// A network interface: its own series, and the RDMA port that names it (the join).
struct IfaceRef {
  std::string_view name;
  const PortRef* port = nullptr;  ///< the first port (in port order) whose fabricmon_port_info names it
  std::vector<const PortRef*> ports;  ///< every port that names it, in port order
  Inputs inputs;
  const Tracked* in(Fam fam) const { return inputs.in(fam); }
  const Tracked* in(Fam fam, std::string_view a, std::string_view b = {}, std::string_view c = {}) const {
    return inputs.in(fam, a, b, c);
  }
};

/// A device (RDMA device name): its series keyed by the device alone or with `which`.
struct DeviceRef {
  std::string_view name;
  Inputs inputs;
};

/// One RDMA port: from fabricmon_port_info{device,port,interface,link_layer} (or only a
/// fabricmon_port_state yet), with handles to its own, its interface's and its device's series.
struct PortRef {
  std::string_view device, port, interface, linkLayer;
  const Inputs* inputs = nullptr;  ///< never null once indexed
  const IfaceRef* iface = nullptr;   ///< the interface it names (nullptr: none)
  const DeviceRef* dev = nullptr;    ///< nullptr: no device-keyed series
  bool roce() const { return linkLayer == "Ethernet" && !interface.empty(); }
  bool infiniband() const { return linkLayer == "InfiniBand"; }
  const Tracked* in(Fam fam) const { return inputs->in(fam); }
  const Tracked* in(Fam fam, std::string_view a, std::string_view b = {}) const { return inputs->in(fam, a, b); }
  /// A series of the interface this port names (nullptr without one).
  const Tracked* ifaceIn(Fam fam) const { return iface != nullptr ? iface->in(fam) : nullptr; }
  /// A series of the port's device (fabricmon_device_info, PCIe link).
  const Tracked* devIn(Fam fam, std::string_view a = {}) const;
};

class Subjects {
 public:
  /// Rebuilds from every tracked series, by family (History's family index).
  void build(std::span<const std::vector<Tracked*>> byFamily);
  /// One row per port, sorted by device and port; the row naming an interface wins, then the
  /// smallest interface name, so the subject of a finding does not depend on hash order.
  const std::vector<PortRef>& ports() const { return ports_; }
  /// Every interface with a series or named by a port, sorted by name.
  const std::vector<IfaceRef>& interfaces() const { return ifaces_; }
  const IfaceRef* interface(std::string_view name) const;
  const PortRef* byInterface(std::string_view name) const {
    const IfaceRef* i = interface(name);
    return i != nullptr ? i->port : nullptr;
  }
  const PortRef* byPort(std::string_view device, std::string_view port) const;

 private:
  std::vector<PortRef> ports_;
  std::vector<Inputs> portInputs_;  ///< parallel to ports_
  std::vector<IfaceRef> ifaces_;
  std::vector<DeviceRef> devices_;
};

}  // namespace fabricmon::watchdog
