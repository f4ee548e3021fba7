#pragma once
// DCB / PFC configuration of one interface (docs/contract.md §2): real rtnetlink RTM_GETDCB, or
// YAML files.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/result.hpp"

namespace fabricmon {

struct DcbInfo {
  std::array<bool, 8> pfcEnabled{};          ///< per priority
  std::optional<std::string> trust;          ///< "dscp" or "pcp" when known
  std::map<unsigned, unsigned> dscpToPriority;
  std::optional<std::array<uint64_t, 8>> pfcRequests;     ///< mlx5: tx pause count per priority
  std::optional<std::array<uint64_t, 8>> pfcIndications;  ///< mlx5: rx pause count per priority
  std::optional<unsigned> dcbxMode;          ///< DCB_CAP_DCBX_* bits
  std::optional<unsigned> stormPreventionTimeoutMs;  ///< ETHTOOL_PFC_PREVENTION_TOUT
};

class DcbSource {
 public:
  virtual ~DcbSource() = default;
  /// std::nullopt when the interface has no DCB support (veth): no series, no error.
  virtual Result<std::optional<DcbInfo>> read(const std::string& ifname) = 0;
};

/// `<dir>/<ifname>` YAML files, read at every call; the YAML is parsed again only when the file's
/// bytes changed since the last good read of that interface.
std::unique_ptr<DcbSource> makeDcbFileSource(std::filesystem::path dir);
std::unique_ptr<DcbSource> makeDcbNetlinkSource();

}  // namespace fabricmon
