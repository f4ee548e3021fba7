#pragma once
// Strict parsers for the text the kernel prints. Anything that is not exactly a number is an error,
// never a guess: "N/A (no PMA)", an empty file or a value beyond 64 bits is a skipped sample.

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/result.hpp"

namespace fabricmon {

/// Removes leading and trailing ASCII whitespace.
std::string_view trim(std::string_view s);

/// An unsigned decimal counter ("12345\n"). Surrounding whitespace is allowed; nothing else is.
Result<uint64_t> parseCounter(std::string_view text);

/// The leading number of sysfs enum files such as `state` ("4: ACTIVE") or `phys_state` ("5: LinkUp").
Result<uint64_t> parseEnumNumber(std::string_view text);

/// A port `rate` ("400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)", the older "10 Gb/sec (4X)") in
/// bytes per second. drivers/infiniband/core/sysfs.c rate_show() prints only "Gb/sec"; any other
/// unit, a number that is not finite, not positive or above kMaxRateGbps is an error.
Result<double> parseRateBytesPerSecond(std::string_view text);
/// Far above the fastest link a port reports today (8X XDR, 1600 Gb/s); a larger number is garbage.
inline constexpr double kMaxRateGbps = 100000;

/// `ports/<p>/state`: "4: ACTIVE". The number must be one ib_port_state knows (0 NOP ... 5
/// ACTIVE_DEFER, include/rdma/ib_verbs.h) and the name, when present, the one state_show() prints.
Result<uint64_t> parsePortState(std::string_view text);
/// `ports/<p>/phys_state`: "5: LinkUp", 0-7 with the names of phys_state_to_str() in
/// drivers/infiniband/core/sysfs.c.
Result<uint64_t> parsePhysState(std::string_view text);
/// `class/net/<if>/operstate`: one of the RFC 2863 names net/core/net-sysfs.c prints; 1 for "up".
Result<double> parseOperstateUp(std::string_view text);
/// `class/net/<if>/flags`: the interface's flags as net-sysfs prints them ("0x1003"); 1 when IFF_UP
/// (0x1, include/uapi/linux/if.h) is set: administratively up.
Result<double> parseNetdevFlagsUp(std::string_view text);
/// A 0/1 switch (`ecn/roce_np/enable/<p>`): exactly "0" or "1".
Result<double> parseSwitch(std::string_view text);

}  // namespace fabricmon
