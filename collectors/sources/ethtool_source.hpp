#pragma once
// ethtool statistics of one interface (docs/contract.md §2): the real SIOCETHTOOL ioctl, or files
// holding the text `ethtool -S <if>` prints. Stats are keyed by name, never by position.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

struct EthtoolStats {
  /// Names trimmed, in the NIC's order. The file source drops repeated names (keeping the first);
  /// the ioctl source passes the driver's strings through, so consumers keep the first of a name.
  std::vector<std::pair<std::string, uint64_t>> stats;
  /// Lines of a stats file that were not `name: value` ("line 7: ..."); every good line is still
  /// in `stats`. Always empty for the ioctl source.
  std::vector<std::string> issues;
  /// Set by a readInto() that checked the names are, in order, the ones `out` held before the
  /// call, so a consumer that keyed work by position may keep it. Both sources' readInto set it;
  /// false means changed or "not known" (the default readInto): compare the names yourself.
  bool namesUnchanged = false;
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
