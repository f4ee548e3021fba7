#pragma once
// fabricmon_nic_read_wait_seconds: the reads of a NIC's kernel interface that have not returned
// (CollectorHealth::waiting, collectors/sources/read_watch.hpp), each named by the port, interface
// and PCI function it is about. Built by the pipeline at every pass, from the collectors' health,
// and judged by nic_unresponsive (docs/rules.md): a collector whose read is stuck in a NIC's
// firmware cannot report it itself.

#include <chrono>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#include "collectors/topology.hpp"
#include "daemon/collector_runner.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// Who a read is about: the labels of its wait series ("" = not known).
struct ReadSubject {
  std::string device, port, interface, pciAddress;
  auto operator<=>(const ReadSubject&) const = default;
};

/// The subject of a read's target (ReadWatch::Waiting::target): a path below class/infiniband/<dev>
/// (and ports/<p>), below class/net/<if>, or below a PCI function's directory (hwmon), completed
/// from the topology (an interface's RDMA port, a device's function and single port).
ReadSubject readSubject(const Topology& topology, std::string_view target);

class ReadWaits {
 public:
  using Clock = std::chrono::steady_clock;
  /// How long a series stays, at 0, after its read returned: a finding's clear_after must see it.
  /// (nic_unresponsive's clear_after is at most this.)
  static constexpr auto kHold = std::chrono::hours(1);
  static constexpr std::string_view kCollector = "nic_read_wait";
  /// fabricmon_nic_read_wait_seconds.
  static std::span<const FamilyDef* const> families();

  /// The batch of this pass: one series per collector and subject that waited within kHold, the
  /// target as its note; the longest wait when several reads of one collector wait on one subject
  /// (a run a reload left behind, `leftBehind`, and the new run that met the same firmware). The
  /// same batch object while there is none.
  BatchPtr batch(std::span<const CollectorHealth> health, const Topology& topology, Clock::time_point now,
                 std::span<const CollectorHealth> leftBehind = {});

 private:
  /// Collector, device, port, interface: what the watchdog keys the series by. The PCI address is
  /// the first wait's (two functions that name no device or interface are one series).
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  struct Entry {
    SeriesPtr series;
    double seconds = 0;
    std::string note;  ///< "<kind> <target>" of the latest wait
    Clock::time_point lastWaiting;
  };
  /// Sets the entry of `h`'s waiting read, if it has one and it waits longer than another's.
  void note(const CollectorHealth& h, const Topology& topology, Clock::time_point now);

  std::map<Key, Entry> entries_;
  BatchPtr last_;
};

}  // namespace fabricmon
