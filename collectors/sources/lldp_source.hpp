#pragma once
// The switch port at the other end of each Ethernet cable, as lldpd heard it (LLDP, IEEE 802.1AB).
// fabricmon does not speak LLDP itself: the node's lldpd (Debian's `lldpd`) receives the frames
// and `lldpcli` prints what it knows. Two sources, one parser:
//  - lldpcli: runs `lldpcli [-u SOCKET] -f json0 show neighbors details` (no shell, a time limit,
//    the child killed and reaped when it is exceeded);
//  - a file holding that same JSON (the simulator's node, fixtures).
// docs/architecture.md, "Where LLDP neighbours come from".

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// One neighbour heard on one local interface (the LLDP chassis and port TLVs).
struct LldpNeighbor {
  std::string interface;        ///< the local interface it was heard on
  std::string chassisName;      ///< System Name TLV ("leaf-07"); "" when the switch sends none
  std::string chassisId;        ///< Chassis ID TLV value (a MAC on most switches)
  std::string portId;           ///< Port ID TLV value ("Ethernet12", "swp3", a MAC)
  std::string portDescription;  ///< Port Description TLV; "" when absent

  bool operator==(const LldpNeighbor&) const = default;
};

class LldpSource {
 public:
  virtual ~LldpSource() = default;
  /// Every neighbour lldpd knows now, sorted by interface. An Error with errnum ENOENT means
  /// "no LLDP on this node" (lldpd or lldpcli not installed, the file absent): no data, not a fault.
  virtual Result<std::vector<LldpNeighbor>> neighbors() = 0;
};

/// Parses what `lldpcli -f json0 show neighbors [details]` prints (every value an array, so the
/// shape does not change with the number of interfaces). An interface with several neighbours
/// (a hub, a misconfigured bridge) gives one entry each.
Result<std::vector<LldpNeighbor>> parseLldpJson0(std::string_view text);

/// Runs `lldpcli` at `program`, against lldpd's control socket `socket` (unset = lldpcli's own
/// default, /run/lldpd.socket), killing it after `timeout`.
std::unique_ptr<LldpSource> makeLldpcliSource(std::filesystem::path program, std::optional<std::string> socket,
                                              std::chrono::milliseconds timeout);
/// Reads the json0 text from `path` at every call; a missing file is an error (it was configured).
std::unique_ptr<LldpSource> makeLldpFileSource(std::filesystem::path path);

}  // namespace fabricmon
