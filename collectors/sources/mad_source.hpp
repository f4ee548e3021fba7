#pragma once
// The MAD source: InfiniBand management datagrams through libibumad/libibmad. The real
// implementation talks to /dev/infiniband/umad* (or to ibsim when libumad2sim is preloaded); tests
// of the collector's logic substitute their own (tests/unit/collectors/peer_port_collector_test.cpp).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sources/mad_fields.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// A local port as libibumad sees it. Discovered through libibumad, never by reading sysfs
/// directly: under libumad2sim only libibumad's own calls see the simulated devices.
struct UmadPort {
  std::string ca;      ///< "mlx5_0"
  unsigned port = 0;
  bool infiniband = false;  ///< link layer InfiniBand; RoCE ports have no PMA over MADs
  unsigned lid = 0;
  unsigned state = 0;       ///< PortState (4 = Active)
  unsigned physState = 0;   ///< PortPhysicalState (5 = LinkUp)
  unsigned rateGbps = 0;    ///< umad's rate (active width x speed), Gb/s
};

class MadSource {
 public:
  virtual ~MadSource() = default;
  /// Every port of every CA libibumad knows. An empty list is "no InfiniBand here", not an error.
  virtual Result<std::vector<UmadPort>> ports() = 0;
  /// An SMP Get by directed route from the local port: `hops` are the exit ports ({} = the local
  /// port itself, {p} = the node at the far end of the cable). Returns the attribute's data.
  virtual Result<mad::Payload> smpDirected(const UmadPort& from, const std::vector<uint8_t>& hops, unsigned attr,
                                           unsigned modifier) = 0;
  /// A PMA Get by LID: `portSelect` is the counter's port on that node.
  virtual Result<mad::Payload> pma(const UmadPort& from, unsigned lid, unsigned portSelect, unsigned attr) = 0;
  /// Drops the local port's open umad handle; the next query opens it again (after repeated
  /// failures, so a restarted simulator or a reloaded driver is picked up).
  virtual void reopen(const UmadPort& from) = 0;
  /// MADs sent since start (each try counts), for the cost benchmark and the self metrics.
  virtual uint64_t madsSent() const = 0;
};

/// The real source. `timeoutMs` bounds each MAD (libibmad's response timeout); `retries` more tries
/// follow a timeout.
std::unique_ptr<MadSource> makeUmadSource(unsigned timeoutMs, unsigned retries);

}  // namespace fabricmon
