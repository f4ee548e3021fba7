// The transceiver collector: the pluggable module of each watched interface (RDMA netdevs and
// netdev.include), read from its EEPROM over ethtool netlink/ioctl or from image files, decoded
// by collectors/transceiver_decode.hpp into fabricmon_transceiver_* (docs/metrics.md,
// "Transceivers"). Its own slow interval (its entry below), only the pages holding monitored values
// read every run, the identity pages again only after a module change, and a per-port backoff.

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>

#include "collectors/labelled_series.hpp"
#include "collectors/registry.hpp"
#include "collectors/transceiver_decode.hpp"
#include "model/families/transceiver.hpp"

namespace fabricmon {

namespace {

namespace fam = families::transceiver;
using transceiver::HalfPage;
using transceiver::Identity;
using transceiver::Level;
using transceiver::ModuleMemory;
using transceiver::PageKey;
using transceiver::Quantity;

// The identity pages are read again after this many runs even when nothing hints at a module
// change (a swap between two runs of a module with the same identifier whose serial we do not
// read every run): an hour at the default interval, one extra page read per hour.
constexpr unsigned kIdentityRefreshRuns = 60;
// Backoff after consecutive failed runs of a port: skip 2^n - 1 runs, at most this many (15 min at
// the default 60 s): a NIC whose firmware errors on module reads is not hammered every minute.
constexpr unsigned kMaxSkippedRuns = 15;
// A port whose reads took longer than this is treated like a failed one for the backoff (some NICs
// stall their firmware on I2C; the data read is still used).
constexpr auto kSlowPort = std::chrono::milliseconds(500);

const std::array<const FamilyDef*, transceiver::kQuantities> kThresholdFamily{
    &fam::kTemperatureThreshold, &fam::kSupplyVoltageThreshold, &fam::kTxBiasThreshold,
    &fam::kTxPowerThreshold, &fam::kRxPowerThreshold};

std::string formatLength(double meters) {
  return meters == static_cast<double>(static_cast<long>(meters))
             ? fmt::format("{}", static_cast<long>(meters))
             : fmt::format("{:.1f}", meters);
}

// Where the serial number lives in the page read to detect a swap (SFF-8636 page 00h 196..211,
// CMIS page 00h 166..181); SFF-8472 has it in A0h's lower half, read every run anyway.
std::optional<EepromRead> serialRead(transceiver::Spec spec) {
  switch (spec) {
    case transceiver::Spec::kSff8472:
      return std::nullopt;
    case transceiver::Spec::kSff8636:
      return EepromRead{0x50, 0, 0, 196, 16};
    case transceiver::Spec::kCmis:
      return EepromRead{0x50, 0, 0, 166, 16};
  }
  return std::nullopt;
}

struct PortState {
  std::optional<Identity> identity;
  ModuleMemory
      memory;  ///< the identity pages kept between runs; monitor pages overwritten each run
  unsigned runsSinceIdentity = 0;
  unsigned failures = 0;  ///< consecutive failed (or slow) runs
  unsigned skip = 0;      ///< runs left to skip
  bool seen = true;
  /// The series of the port's last good read: reported unread (Batch::unread) while its module
  /// cannot be read or the port backs off, so a flaky I2C bus holds its findings instead of ending
  /// them; let go when the cage is empty.
  std::vector<SeriesPtr> lastSeries;
};

class TransceiverCollector final : public Collector {
 public:
  explicit TransceiverCollector(std::shared_ptr<ModuleEepromSource> source)
      : source_(std::move(source)) {}

  std::span<const FamilyDef* const> families() const override { return fam::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.netdevs.empty()) return CollectStatus::kNoData;
    for (auto& [_, st] : ports_) st.seen = false;
    bool any = false, anyFailed = false;
    for (const Netdev& n : topology.netdevs) {
      PortState& st = ports_[n.name];
      st.seen = true;
      if (st.skip > 0) {  // backing off: this port's values are unknown this run
        --st.skip;
        for (const SeriesPtr& series : st.lastSeries) out.unread(series);
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      const PortResult r = readPort(n.name, st, out);
      if (r == PortResult::kFailed) {
        for (const SeriesPtr& series : st.lastSeries) out.unread(series);
      } else if (r == PortResult::kNoModule) {
        st.lastSeries.clear();
      }
      const bool slow = std::chrono::steady_clock::now() - start > kSlowPort;
      if (r == PortResult::kFailed || slow) {
        if (slow)
          spdlog::debug("transceiver {}: module reads took over {} ms, backing off", n.name,
                        kSlowPort.count());
        st.failures = std::min(st.failures + 1, 8u);
        st.skip = std::min((1u << st.failures) - 1, kMaxSkippedRuns);
      } else {
        st.failures = 0;
      }
      any = any || r == PortResult::kModule;
      anyFailed = anyFailed || r == PortResult::kFailed;
    }
    std::erase_if(lastIssues_, [&](const auto& kv) {
      return !ports_.contains(kv.first) || !ports_[kv.first].seen;
    });
    std::erase_if(ports_, [](const auto& kv) { return !kv.second.seen; });
    series_.endRun();
    // Every read failed: the run failed (fabricmon_collector_up 0); some modules read: the failed
    // ports are per-file errors of a good run; no module anywhere: no data.
    if (any) return CollectStatus::kOk;
    return anyFailed ? CollectStatus::kFailed : CollectStatus::kNoData;
  }

 private:
  enum class PortResult { kNoModule, kModule, kFailed };

  Status readHalf(const std::string& ifname, const PageKey& key, ModuleMemory& into) {
    HalfPage h{};
    if (auto st = source_->read(ifname, transceiver::requestFor(key), h); !st) return st;
    into.put(key, h);
    return {};
  }

  PortResult readPort(const std::string& ifname, PortState& st, CollectOutput& out) {
    const std::string key = ifname + "/module_eeprom";
    ModuleMemory& mem = st.memory;
    // The lower page, every run: identifier, SFF-8636/CMIS module monitors and flags, SFF-8472's
    // whole identity (A0h 0..127).
    HalfPage lower{};
    if (auto s = source_->read(ifname, transceiver::requestFor(transceiver::lowerPage()), lower);
        !s) {
      return failed(ifname, st, out, key, s.error());
    }
    const HalfPage* known = mem.find(transceiver::lowerPage());
    bool changed = !st.identity || known == nullptr || (*known)[0] != lower[0];
    if (!changed && st.identity->spec == transceiver::Spec::kSff8472) {
      // A0h 20..95: vendor, part number, serial, checksums — a different module if any differs.
      changed = !std::equal(lower.begin() + 20, lower.begin() + 96, known->begin() + 20);
    }
    if (!changed && st.runsSinceIdentity >= kIdentityRefreshRuns) changed = true;
    if (!changed) {
      if (auto sr = serialRead(st.identity->spec)) {
        std::array<uint8_t, 16> serial{};
        if (auto s = source_->read(ifname, *sr, serial); !s)
          return failed(ifname, st, out, key, s.error());
        const HalfPage* p0 = mem.find(transceiver::upperPage(0));
        changed = p0 == nullptr ||
                  !std::equal(serial.begin(), serial.end(), p0->begin() + (sr->offset - 128));
      }
    }
    if (changed) {
      mem = ModuleMemory{};
      st.identity.reset();
      mem.put(transceiver::lowerPage(), lower);
      if (lower[0] == 0x00) {  // an empty cage on drivers that answer with zeros
        out.fileOk(key);
        return PortResult::kNoModule;
      }
      const auto spec = transceiver::specOf(lower[0]);
      if (spec) {
        for (const PageKey& page : transceiver::identityPages(*spec, mem)) {
          if (auto s = readHalf(ifname, page, mem); !s) {
            // A paged module may still lack an optional page (ENODATA): decode what is there.
            if (s.error().errnum != ENODATA || page == transceiver::upperPage(0)) {
              return failed(ifname, st, out, key, s.error());
            }
          }
        }
      }
      auto id = transceiver::decodeIdentity(mem);
      if (!id) {
        return failed(ifname, st, out, key,
                      Error{"module " + ifname + ": " + id.error().message, id.error().errnum});
      }
      st.identity = std::move(*id);
      st.runsSinceIdentity = 0;
      if (!st.identity->checksumOk) {
        spdlog::warn(
            "transceiver {}: ID checksum mismatch (EEPROM corrupt or misprogrammed); decoded "
            "anyway",
            ifname);
      }
    } else {
      mem.put(transceiver::lowerPage(), lower);
      ++st.runsSinceIdentity;
    }
    const Identity& id = *st.identity;
    for (const PageKey& page : transceiver::monitorPages(id)) {
      if (auto s = readHalf(ifname, page, mem); !s) {
        if (s.error().errnum == ENODATA) {
          mem.erase(page);  // the module lacks the page (a CMIS module without 11h): no lane values
          continue;
        }
        return failed(ifname, st, out, key, s.error());
      }
    }
    out.fileOk(key);
    st.lastSeries.clear();
    emit(ifname, id, transceiver::decodeDiagnostics(mem, id), out, st.lastSeries);
    return PortResult::kModule;
  }

  PortResult failed(const std::string& ifname, PortState& st, CollectOutput& out,
                    const std::string& key, const Error& e) {
    st.identity.reset();
    st.memory = ModuleMemory{};
    // No module EEPROM on this interface (veth, lo, a driver without module access, no image file).
    if (e.errnum == EOPNOTSUPP || e.errnum == ENODEV) {
      out.fileOk(key);
      return PortResult::kNoModule;
    }
    out.fileError(key, Error{ifname + ": " + e.message, e.errnum});
    return PortResult::kFailed;
  }

  /// Adds the port's samples; `added` gets their series.
  void emit(const std::string& ifname, const Identity& id, const transceiver::Diagnostics& d,
            CollectOutput& sink, std::vector<SeriesPtr>& added) {
    struct Out {
      CollectOutput& sink;
      std::vector<SeriesPtr>& added;
      void add(const SeriesPtr& series, double value) {
        sink.add(series, value);
        added.push_back(series);
      }
    } out{sink, added};
    out.add(
        series_.get(fam::kInfo, {{"interface", ifname},
                                 {"type", id.type},
                                 {"spec", std::string(transceiver::specName(id.spec))},
                                 {"vendor", id.vendor},
                                 {"part_number", id.partNumber},
                                 {"serial_number", id.serialNumber},
                                 {"revision", id.revision},
                                 {"connector", id.connector},
                                 {"media", id.media},
                                 {"cable_length_meters",
                                  id.cableLengthMeters ? formatLength(*id.cableLengthMeters) : ""},
                                 {"dom", id.dom() ? "true" : "false"},
                                 {"checksum", id.checksumOk ? "ok" : "bad"}}),
        1.0);
    if (!d.issues.empty() && d.issues != lastIssues_[ifname]) {
      spdlog::info("transceiver {}: {}", ifname, fmt::join(d.issues, "; "));
    }
    lastIssues_[ifname] = d.issues;
    if (d.temperatureCelsius)
      out.add(series_.get(fam::kTemperature, {{"interface", ifname}}), *d.temperatureCelsius);
    if (d.supplyVoltageVolts)
      out.add(series_.get(fam::kSupplyVoltage, {{"interface", ifname}}), *d.supplyVoltageVolts);
    auto lanes = [&](const FamilyDef& f, const std::vector<std::optional<double>>& values) {
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i])
          out.add(series_.get(f, {{"interface", ifname}, {"lane", std::to_string(i + 1)}}),
                  *values[i]);
      }
    };
    lanes(fam::kTxBias, d.txBiasAmperes);
    lanes(fam::kTxPower, d.txPowerWatts);
    lanes(fam::kRxPower, d.rxPowerWatts);
    for (size_t q = 0; q < transceiver::kQuantities; ++q) {
      if (!d.thresholds[q]) continue;
      for (size_t l = 0; l < transceiver::kLevels; ++l) {
        out.add(
            series_.get(*kThresholdFamily[q],
                        {{"interface", ifname},
                         {"level", std::string(transceiver::levelName(static_cast<Level>(l)))}}),
            (*d.thresholds[q])[l]);
      }
    }
    for (const transceiver::Flag& f : d.flags) {
      out.add(
          series_.get(fam::kFlag, {{"interface", ifname},
                                   {"quantity", std::string(transceiver::quantityName(f.quantity))},
                                   {"level", std::string(transceiver::levelName(f.level))},
                                   {"lane", f.lane == 0 ? "" : std::to_string(f.lane)}}),
          f.set ? 1.0 : 0.0);
    }
  }

  std::shared_ptr<ModuleEepromSource> source_;
  std::map<std::string, PortState> ports_;
  std::map<std::string, std::vector<std::string>> lastIssues_;
  LabelledSeries series_;
};

std::unique_ptr<Collector> makeTransceiverCollector(const Sources& sources,
                                                    const Config& /*config*/) {
  return std::make_unique<TransceiverCollector>(sources.moduleEeprom);
}

}  // namespace

// Module EEPROMs are read over I2C through the NIC's firmware (milliseconds per page; some
// NICs stall or log errors when polled often), and optics drift over hours: a minute of its
// own (docs/metrics.md, "Transceivers").
extern const CollectorEntry kTransceiverCollector{
    "transceiver", Cadence::kSlow, std::chrono::seconds(60), &makeTransceiverCollector, nullptr};

}  // namespace fabricmon
