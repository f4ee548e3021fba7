#pragma once
// ethtool statistics of one interface (docs/contract.md §2): the real SIOCETHTOOL ioctl, or files
// holding the text `ethtool -S <if>` prints. Stats are keyed by name, never by position.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// The stat names of one interface, in the NIC's order. Interned (internEthtoolNames): every
/// interface whose driver reports the same list -- all ports of one NIC model and firmware, so
/// usually all of a node's -- holds the same object, and a poll with unchanged names copies no
/// string. ~665 names of ~30 bytes for a ConnectX-7: once per node instead of once per interface.
using EthtoolNames = std::vector<std::string>;
using EthtoolNamesPtr = std::shared_ptr<const EthtoolNames>;
/// (name, value) pairs, for tests and diagnostics.
using EthtoolStatPairs = std::vector<std::pair<std::string, uint64_t>>;

/// The one shared list with these names while any holder keeps it alive (a new one otherwise).
/// Thread-safe; called only when an interface's list changes, not per poll.
EthtoolNamesPtr internEthtoolNames(EthtoolNames names);

struct EthtoolStats {
  /// Names trimmed, in the NIC's order (null: none). The file source drops repeated names (keeping
  /// the first); the ioctl source passes the driver's strings through, so consumers keep the first
  /// of a name. Both sources intern the list.
  EthtoolNamesPtr names;
  /// values[i] is the stat names->at(i); values.size() == names->size().
  std::vector<uint64_t> values;
  /// Lines of a stats file that were not `name: value` ("line 7: ..."); every good line is still
  /// in `names`/`values`. Always empty for the ioctl source.
  std::vector<std::string> issues;
  /// Set by a readInto() that checked the names are, in order, the ones `out` held before the
  /// call (then `names` is the same pointer), so a consumer that keyed work by position may keep
  /// it. Both sources' readInto set it; false means changed or "not known" (the default
  /// readInto): compare the names yourself.
  bool namesUnchanged = false;

  size_t size() const { return values.size(); }
  std::string_view name(size_t i) const { return (*names)[i]; }
  EthtoolStatPairs pairs() const;
  /// Sets names (interned) and values from pairs (tests' fake sources).
  void assign(const EthtoolStatPairs& pairs);
};

class EthtoolSource {
 public:
  virtual ~EthtoolSource() = default;
  /// All statistics of `ifname`. An interface without stats support yields an Error with errnum
  /// ENOENT or EOPNOTSUPP, which callers treat as "no data", not as a failure.
  virtual Result<EthtoolStats> read(const std::string& ifname) = 0;

  /// Same as read(), refilling `out` in place so a caller that keeps one EthtoolStats per
  /// interface does not allocate per poll when the names did not change. `out` must be empty or
  /// last filled by this source. On error `out` holds no usable values.
  virtual Status readInto(const std::string& ifname, EthtoolStats& out) {
    auto r = read(ifname);
    if (!r) {
      out = EthtoolStats{};
      return r.error();
    }
    out = std::move(*r);
    return {};
  }
};

/// `<dir>/<ifname>` holds the `ethtool -S` text (ethtool_text.hpp). A missing file is ENOENT
/// ("no stats"); an empty, unparsable, unreadable or non-regular file (FIFO) is an error.
std::unique_ptr<EthtoolSource> makeEthtoolFileSource(std::filesystem::path dir);
/// The real SIOCETHTOOL source on the running kernel (ethtool_ioctl.hpp has the test seam).
std::unique_ptr<EthtoolSource> makeEthtoolIoctlSource();

}  // namespace fabricmon
