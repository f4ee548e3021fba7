#pragma once
// The SIOCETHTOOL stats source and its test seam (after dynolog's EthtoolIoctlInterface): the
// source talks to the kernel only through EthtoolIoctlInterface, so unit tests can play the
// kernel and fill real ethtool_sset_info / ethtool_gstrings / ethtool_stats structs.

#include <cstddef>
#include <memory>
#include <string>

#include "collectors/sources/ethtool_source.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// The three system calls the ioctl source makes.
class EthtoolIoctlInterface {
 public:
  virtual ~EthtoolIoctlInterface() = default;
  /// A datagram socket to issue SIOCETHTOOL on (AF_INET, else AF_UNIX). Interfaces are looked up
  /// in the network namespace of the calling thread at the time of this call.
  virtual Result<int> openSocket() = 0;
  /// ioctl(fd, SIOCETHTOOL, ifreq{ifname, data}); returns 0 or the errno. `size` is the size of
  /// the buffer behind `data`: the kernel ignores it (it writes as many entries as the driver has
  /// *now*), a fake kernel checks against it.
  virtual int doIoctl(int fd, const std::string& ifname, void* data, size_t size) = 0;
  virtual void closeSocket(int fd) = 0;
};

/// The real system calls.
std::unique_ptr<EthtoolIoctlInterface> makeSystemEthtoolIoctl();

/// The ioctl source over `io`. Per read: ETHTOOL_GSSET_INFO (ETH_SS_STATS count), ETHTOOL_GSTRINGS
/// and one ETHTOOL_GSTATS, on one socket opened at the first read and kept until destruction.
/// GSTRINGS is fetched every read because a PFC change can rename stats at an unchanged count;
/// when the counts of the three calls disagree the set changed under us and the read starts over
/// (at most 3 times, then EAGAIN). EOPNOTSUPP: the interface has no stats; ENODEV: it vanished.
/// Thread-safe (one mutex; the socket and the scratch buffers are shared).
std::unique_ptr<EthtoolSource> makeEthtoolIoctlSource(std::unique_ptr<EthtoolIoctlInterface> io);

}  // namespace fabricmon
