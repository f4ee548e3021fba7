#include "collectors/nic_driver_log_collector.hpp"

#include <time.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <spdlog/spdlog.h>

#include "collectors/nic_driver_messages.hpp"
#include "collectors/registry.hpp"
#include "model/families/nic.hpp"

namespace fabricmon {

namespace {

/// Where a function sits: the labels its records carry.
struct Place {
  std::string device, port, interface;
  bool operator==(const Place&) const = default;
};

struct Tally {
  const DriverMessage* row = nullptr;
  std::string_view driver;
  double count = 0;
  double lastWall = 0;  ///< unix seconds of the latest record
  std::string message;  ///< the latest record's text (at most kMaxKeptMessage bytes)
  Place place;          ///< the labels of the series below
  SeriesPtr countSeries, timeSeries;
  double emitted = 0;   ///< `count` when the series were last emitted with a value
};

double nowWall() {
  timespec real{};
  clock_gettime(CLOCK_REALTIME, &real);
  return double(real.tv_sec) + double(real.tv_nsec) / 1e9;
}

/// How long after boot udev and rdma have given devices and interfaces their names: a record
/// logged before names them as the kernel first did.
constexpr uint64_t kNamesSettledUsec = 300ull * 1000000;

/// The wall time of a record from its kernel timestamp: now - (monotonic now - record). printk
/// stamps records with local_clock() (kernel/printk/printk.c), which counts from boot like
/// CLOCK_MONOTONIC but is not slewed by NTP, so the two part by tens of ppm: minutes after months
/// of uptime. `after`: the wall time of the previous read of the log (0 for the first): a record
/// read since was logged after it, so that bounds the estimate, and only records from before the
/// daemon's first read rely on the conversion alone.
double wallFromKernel(uint64_t tsUsec, double after) {
  timespec mono{}, real{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  const double monoNow = double(mono.tv_sec) + double(mono.tv_nsec) / 1e9;
  const double realNow = double(real.tv_sec) + double(real.tv_nsec) / 1e9;
  const double at = double(tsUsec) / 1e6;
  if (tsUsec == 0 || at > monoNow) return realNow;  // no timestamp, or one from the future
  return std::max(realNow - (monoNow - at), after);
}

}  // namespace

struct NicDriverLogState {
  std::mutex mutex;  // a run of the previous configuration's collector may still be finishing
  std::unique_ptr<KernelLogSource> source;
  DriverLogMatcher matcher;
  std::map<std::pair<std::string, std::string_view>, Tally> tallies;  ///< by (PCI address, pattern)
  std::map<std::string, Place, std::less<>> remembered;  ///< every watched function seen since start
  /// The PCI address of every RDMA device and interface name of a watched function seen since start:
  /// a record that names a device or interface that is away (re-registering after a reload) is
  /// still its function's.
  std::map<std::string, std::string, std::less<>> pciOfRdma, pciOfNetdev;
  double lost = 0, refused = 0, accessFailures = 0;
  bool denied = false;
  bool absent = false;  ///< no kernel log device (a container), said once
  KernelLogRead read;  ///< reused between runs
  double lastReadWall = 0;  ///< wall time of the latest good read (0: none yet): see wallFromKernel()
  /// Fatal and recoverable records about a function discovery has not shown yet, with their wall
  /// time, ingested again when the topology changes: at boot a NIC's RDMA device may register after
  /// the daemon's first discovery. At most kMaxUnseen, the newest, for kKernelLogBacklog.
  struct Unseen {
    KmsgRecord record;
    DriverMatch match;  ///< a row attributed by PCI address or name (never a call trace's)
    double wall = 0;
  };
  std::deque<Unseen> unseen;
  static constexpr size_t kMaxUnseen = 256;

  void keepUntilSeen(const KmsgRecord& r, const DriverMatch& m, double wall) {
    unseen.push_back(Unseen{r, m, wall});
    if (unseen.size() > kMaxUnseen) unseen.pop_front();
  }
};

std::shared_ptr<NicDriverLogState> makeNicDriverLogState(std::unique_ptr<KernelLogSource> source) {
  auto state = std::make_shared<NicDriverLogState>();
  state->source = std::move(source);
  return state;
}

std::shared_ptr<NicDriverLogState> makeNicDriverLogState(const SourcesConfig& config,
                                                         std::shared_ptr<NicDriverLogState> previous) {
  const std::string origin = config.kmsgFile ? "file:" + *config.kmsgFile : "kmsg:" + config.kmsg;
  if (previous && previous->source && previous->source->origin() == origin) return previous;
  if (config.kmsgFile) return makeNicDriverLogState(makeKmsgFileSource(*config.kmsgFile));
  // A boot's or a storm's other kernel lines do not push the driver table's records out of the backlog.
  return makeNicDriverLogState(
      makeKmsgSource(config.kmsg, [](std::string_view message) { return matchDriverMessage(message) != nullptr; }));
}

namespace {

using namespace families::nic;

/// The functions of the current topology, by PCI address, and the names that lead to them.
struct Watched {
  std::map<std::string, Place, std::less<>> byPci;
  std::map<std::string, std::string, std::less<>> pciOfRdma, pciOfNetdev;
  /// PCI driver -> functions: each RDMA device's, and each watched netdev's (an EFA function or an
  /// InfiniBand HCA without IPoIB has no netdev to show it).
  std::multimap<std::string, std::string, std::less<>> pciOfDriver;

  void build(const Topology& t) {
    byPci.clear();
    pciOfRdma.clear();
    pciOfNetdev.clear();
    pciOfDriver.clear();
    for (const RdmaDevice& d : t.devices) {
      if (d.pciAddress.empty()) continue;
      Place p;
      p.device = d.name;
      // One PCI function per port is the rule for current NICs (mlx5, bnxt, ice, efa): the record
      // then names its port. A multi-port function's records name the device only.
      if (d.ports.size() == 1) {
        p.port = std::to_string(d.ports[0].number);
        if (d.ports[0].netdevs.size() == 1) p.interface = d.ports[0].netdevs[0];
      }
      byPci.emplace(d.pciAddress, p);
      pciOfRdma.emplace(d.name, d.pciAddress);
      if (!d.driver.empty()) pciOfDriver.emplace(d.driver, d.pciAddress);
    }
    for (const Netdev& n : t.netdevs) {
      if (n.pciAddress.empty()) continue;
      pciOfNetdev.emplace(n.name, n.pciAddress);
      if (!n.driver.empty()) pciOfDriver.emplace(n.driver, n.pciAddress);
      // An interface watched without an RDMA device (netdev.include), or the one of a device.
      Place p{n.rdmaDevice, n.rdmaDevice.empty() ? "" : std::to_string(n.rdmaPort), n.name};
      auto [it, inserted] = byPci.emplace(n.pciAddress, p);
      if (!inserted && it->second.interface.empty() && it->second.device == n.rdmaDevice) it->second.interface = n.name;
    }
  }
};

class NicDriverLogCollector final : public Collector {
 public:
  NicDriverLogCollector(std::shared_ptr<NicDriverLogState> state, bool acceptUserRecords)
      : state_(std::move(state)), acceptUser_(acceptUserRecords) {}

  std::span<const FamilyDef* const> families() const override { return families::nic::driverLog(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!state_ || !state_->source) return CollectStatus::kNoData;
    std::lock_guard lock(state_->mutex);
    NicDriverLogState& s = *state_;
    if (topology.generation != generation_ || !built_) {
      watched_.build(topology);
      for (const auto& [pci, place] : watched_.byPci) s.remembered[pci] = place;
      rememberNames(s.pciOfRdma, watched_.pciOfRdma);
      rememberNames(s.pciOfNetdev, watched_.pciOfNetdev);
      generation_ = topology.generation;
      built_ = true;
      // Records that waited for their function: judged if it is here now, else kept (as long as
      // the backlog reaches back: older ones could raise nothing and are no count to wait for).
      std::deque<NicDriverLogState::Unseen> waiting;
      waiting.swap(s.unseen);
      const double oldest = nowWall() - std::chrono::duration<double>(kKernelLogBacklog).count();
      for (const auto& w : waiting) {
        if (w.wall >= oldest) attribute(s, w.record, w.match, w.wall);
      }
    }

    s.read.records.clear();
    s.read.lost = 0;
    s.read.malformed = 0;
    s.read.accessDenied = false;
    const double readWall = nowWall();  // records read now were logged after the previous read
    const Status st = s.source->read(s.read, kMaxKernelRecordsPerRun);
    s.lost += double(s.read.lost);
    CollectStatus status = CollectStatus::kOk;
    if (s.read.accessDenied) {
      s.accessFailures += 1;
      s.denied = true;
      spdlog::warn("nic_driver_log: {}; NIC driver records are not read (grant CAP_SYSLOG, docs/deployment.md)",
                   st.ok() ? "no access to the kernel log" : st.error().message);
    }
    if (!st) {
      const int err = st.error().errnum;
      if (err == EACCES || err == EPERM) {
        status = CollectStatus::kNoData;  // said once above; the daemon goes on without it
      } else if (err == ENOENT || err == ENODEV || err == ENXIO) {
        // No kernel log on this machine (a container): nothing to read, nothing wrong.
        if (!s.absent) spdlog::info("nic_driver_log: {}; no NIC driver records are read", st.error().message);
        s.absent = true;
        status = CollectStatus::kNoData;
      } else {
        out.fileError(s.source->origin(), st.error());
        status = CollectStatus::kFailed;
      }
    } else {
      out.fileOk(s.source->origin());
      if (s.denied || s.absent) spdlog::info("nic_driver_log: the kernel log is readable again");
      s.denied = false;
      s.absent = false;
    }
    for (const KmsgRecord& r : s.read.records) ingest(s, r);
    // A read that stopped at the cap left records logged before it started: the bound holds only
    // after a read that drained the log.
    if (st && s.read.records.size() < kMaxKernelRecordsPerRun) s.lastReadWall = readWall;
    if (status == CollectStatus::kFailed) return status;
    emit(s, out);
    return status;
  }

 private:
  /// Keeps the names of functions that are away; forgets a name whose function goes by another
  /// now (a renamed interface: its old name may be another function's next).
  static void rememberNames(std::map<std::string, std::string, std::less<>>& known,
                            const std::map<std::string, std::string, std::less<>>& current) {
    std::set<std::string_view> named;
    for (const auto& [name, pci] : current) named.insert(pci);
    std::erase_if(known, [&](const auto& kv) { return named.count(kv.second) != 0 && current.count(kv.first) == 0; });
    for (const auto& [name, pci] : current) known[name] = pci;
  }

  void ingest(NicDriverLogState& s, const KmsgRecord& r) {
    // Only the kernel logs with facility 0; root writing to /dev/kmsg gets the user facility
    // whatever prefix it claims (kernel/printk/printk.c, devkmsg_write()).
    if (r.facility != 0 && !acceptUser_) {
      if (matchDriverMessage(r.message) != nullptr) s.refused += 1;
      return;
    }
    auto m = s.matcher.match(r);
    if (!m) return;
    // A record of the backlog (KmsgRecord::backlog) was logged before the daemon's first read: the
    // time of a later read is no bound on it.
    const double wall = wallFromKernel(r.timestampUsec, r.backlog ? 0 : s.lastReadWall);
    if (m->row->attribution == Attribution::kTrace) {
      // Every watched function of the driver the trace names.
      std::string_view netDriver;
      for (const NicModule& mod : nicModules()) {
        if (mod.module == m->driver) netDriver = mod.netDriver;
      }
      auto [from, to] = watched_.pciOfDriver.equal_range(netDriver);
      std::set<std::string> seen;
      for (auto it = from; it != to; ++it) {
        if (seen.insert(it->second).second) tally(s, it->second, *m, r, wall);
      }
      return;
    }
    attribute(s, r, *m, wall);
  }

  /// Tallies a record whose row names one function (by PCI address or a name) against it.
  void attribute(NicDriverLogState& s, const KmsgRecord& r, const DriverMatch& m, double wall) {
    std::string pci = m.pci;
    // A backlog record of the boot's first minutes names devices and interfaces by what they were
    // called then (mlx5_3, eth2, before udev and rdma renamed them): only its PCI address is its
    // function's. Later ones (a daemon restart) use the names of now.
    const bool namesOfBoot = r.backlog && r.timestampUsec < kNamesSettledUsec;
    if (pci.empty() && !m.rdmaDevice.empty() && !namesOfBoot) {
      if (auto it = s.pciOfRdma.find(m.rdmaDevice); it != s.pciOfRdma.end()) pci = it->second;
    }
    if (pci.empty() && !m.netdev.empty() && !namesOfBoot) {
      if (auto it = s.pciOfNetdev.find(m.netdev); it != s.pciOfNetdev.end()) pci = it->second;
    }
    // A function fabricmon does not watch (and never did since start) is none of its business. One
    // that is gone for the moment (a driver reload under way) keeps its records for when it is back.
    // A fatal or recoverable record of a function (or a name) not seen yet waits for it
    // (keepUntilSeen).
    const bool named = !pci.empty() || (!namesOfBoot && (!m.rdmaDevice.empty() || !m.netdev.empty()));
    if (pci.empty() || !s.remembered.count(pci)) {
      if (named && m.row->severity != DriverSeverity::kInfo) s.keepUntilSeen(r, m, wall);
      return;
    }
    tally(s, pci, m, r, wall);
  }

  void tally(NicDriverLogState& s, const std::string& pci, const DriverMatch& m, const KmsgRecord& r,
             double wall) {
    Tally& t = s.tallies[{pci, m.row->name}];
    t.row = m.row;
    t.driver = m.driver;
    t.count += 1;
    t.lastWall = wall;
    t.message.assign(std::string_view(r.message).substr(0, kMaxKeptMessage));
  }

  void emit(NicDriverLogState& s, CollectOutput& out) {
    for (auto& [key, t] : s.tallies) {
      const auto w = watched_.byPci.find(key.first);
      // Its function is away, or only part of it is (an RDMA device gone, its interface left): a
      // fatal error's recovery detaches the function's devices, a failed one leaves them gone. The
      // series are unread, not vanished: the finding they raised holds as it was (the watchdog
      // holds an unread series, docs/architecture.md), instead of clearing now and firing again
      // when the function is back. A new record of a function back in part is news: it goes out
      // on the part that is there.
      const bool partly = w != watched_.byPci.end() && !t.place.device.empty() && w->second.device.empty();
      const bool away = w == watched_.byPci.end() || (partly && t.count == t.emitted);
      if (away) {
        if (t.countSeries) {
          out.unread(t.countSeries);
          out.unread(t.timeSeries);
        }
        continue;
      }
      if (!t.countSeries || !(t.place == w->second)) {
        t.place = w->second;
        const Labels labels{{"device", t.place.device},
                            {"port", t.place.port},
                            {"interface", t.place.interface},
                            {"pci_address", key.first},
                            {"driver", std::string(t.driver)},
                            {"pattern", std::string(t.row->name)},
                            {"severity", std::string(driverSeverityName(t.row->severity))}};
        t.countSeries = makeSeries(kDriverRecords, labels);
        t.timeSeries = makeSeries(kDriverLastRecord, labels);
      }
      out.add(t.countSeries, t.count);
      out.add(t.timeSeries, t.lastWall);
      t.emitted = t.count;
      out.note(t.timeSeries, t.message);  // the rule reads this series (watchdog/input_families.hpp)
    }
    if (!lostSeries_) {
      lostSeries_ = makeSeries(kKernelLogLost, {});
      refusedSeries_ = makeSeries(kKernelLogRefused, {});
      accessSeries_ = makeSeries(kKernelLogAccessFailures, {});
    }
    out.add(lostSeries_, s.lost);
    out.add(refusedSeries_, s.refused);
    out.add(accessSeries_, s.accessFailures);
  }

  std::shared_ptr<NicDriverLogState> state_;
  bool acceptUser_;
  Watched watched_;
  uint64_t generation_ = 0;
  bool built_ = false;
  SeriesPtr lostSeries_, refusedSeries_, accessSeries_;
};

std::unique_ptr<Collector> makeNicDriverLogCollector(const Sources& sources, const Config& config) {
  return std::make_unique<NicDriverLogCollector>(sources.nicDriverLog, config.sources.kmsgAcceptUserRecords);
}

}  // namespace

// The kernel log, matched against the NIC driver message table: fast, so a fatal record is a
// finding within one poll (docs/metrics.md, "NIC and driver health").
extern const CollectorEntry kNicDriverLogCollector{
    "nic_driver_log", Cadence::kFast, {}, &makeNicDriverLogCollector, nullptr};

}  // namespace fabricmon
