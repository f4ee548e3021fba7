#pragma once
// ethtool statistics of one interface (CONTRACT §2): the real SIOCETHTOOL ioctl, or files holding
// the text `ethtool -S <if>` prints. Stats are keyed by name, never by position.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

struct EthtoolStats {
  std::vector<std::pair<std::string, uint64_t>> stats;  ///< names trimmed, in the NIC's order
};

class EthtoolSource {
 public:
  virtual ~EthtoolSource() = default;
  /// All statistics of `ifname`. An interface without stats support yields an Error with errnum
  /// ENOENT or EOPNOTSUPP, which callers treat as "no data", not as a failure.
  virtual Result<EthtoolStats> read(const std::string& ifname) = 0;
};

std::unique_ptr<EthtoolSource> makeEthtoolFileSource(std::filesystem::path dir);
std::unique_ptr<EthtoolSource> makeEthtoolIoctlSource();

}  // namespace fabricmon
