// The SIOCETHTOOL stats source (collectors/sources/ethtool_ioctl.hpp) over a fake kernel that
// answers GSSET_INFO, GSTRINGS and GSTATS from the fuzz input: counts that change between the
// calls, errors, strings without NUL, any bytes. The fake writes what a kernel may (as many
// entries as it says it has, never past the buffer the source passed), so a crash is the source's.
#include <linux/ethtool.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "collectors/sources/ethtool_ioctl.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

namespace {

class FuzzKernel final : public EthtoolIoctlInterface {
 public:
  explicit FuzzKernel(FuzzedDataProvider& in) : in_(in) {}

  Result<int> openSocket() override {
    if (in_.ConsumeIntegralInRange<uint8_t>(0, 31) == 0) return Error{"socket", EMFILE};
    return 7;
  }

  int doIoctl(int fd, const std::string& ifname, void* data, size_t size) override {
    FUZZ_CHECK(fd == 7);
    FUZZ_CHECK(!ifname.empty() && ifname.size() < 16);
    FUZZ_CHECK(size >= sizeof(uint32_t));
    if (in_.ConsumeIntegralInRange<uint8_t>(0, 63) == 0) return in_.PickValueInArray({ENODEV, EOPNOTSUPP, EIO});
    uint32_t cmd;
    std::memcpy(&cmd, data, sizeof(cmd));
    auto* bytes = static_cast<uint8_t*>(data);
    switch (cmd) {
      case ETHTOOL_GSSET_INFO: {
        FUZZ_CHECK(size >= sizeof(ethtool_sset_info) + sizeof(uint32_t));
        auto* info = static_cast<ethtool_sset_info*>(data);
        if (in_.ConsumeIntegralInRange<uint8_t>(0, 15) == 0) info->sset_mask = 0;
        // Counts up to 4096 (a real NIC has a few thousand) keep an input fast; the source's own limit (2^20) is checked too.
        uint32_t n = in_.ConsumeBool() ? in_.ConsumeIntegralInRange<uint32_t>(0, 64)
                                       : in_.ConsumeIntegralInRange<uint32_t>(0, 4096);
        if (in_.ConsumeIntegralInRange<uint8_t>(0, 63) == 0) n = in_.ConsumeIntegral<uint32_t>() | (1u << 20);
        std::memcpy(bytes + offsetof(ethtool_sset_info, data), &n, sizeof(n));
        return 0;
      }
      case ETHTOOL_GSTRINGS: {
        auto* g = static_cast<ethtool_gstrings*>(data);
        FUZZ_CHECK(g->string_set == ETH_SS_STATS);
        const size_t room = (size - offsetof(ethtool_gstrings, data)) / ETH_GSTRING_LEN;
        // Usually the count asked for; sometimes a set that grew or shrank meanwhile.
        uint32_t len = g->len;
        if (in_.ConsumeIntegralInRange<uint8_t>(0, 7) == 0) len = in_.ConsumeIntegralInRange<uint32_t>(0, room);
        FUZZ_CHECK(g->len <= room);
        len = std::min<uint32_t>(len, room);
        g->len = len;
        for (uint32_t i = 0; i < len && in_.remaining_bytes() > 0; ++i) {
          auto s = in_.ConsumeBytes<uint8_t>(in_.ConsumeIntegralInRange<size_t>(0, ETH_GSTRING_LEN));
          if (!s.empty()) std::memcpy(g->data + size_t{i} * ETH_GSTRING_LEN, s.data(), s.size());
        }
        return 0;
      }
      case ETHTOOL_GSTATS: {
        auto* s = static_cast<ethtool_stats*>(data);
        const size_t room = (size - offsetof(ethtool_stats, data)) / sizeof(uint64_t);
        uint32_t n = s->n_stats;
        if (in_.ConsumeIntegralInRange<uint8_t>(0, 7) == 0) n = in_.ConsumeIntegralInRange<uint32_t>(0, room);
        FUZZ_CHECK(s->n_stats <= room);
        n = std::min<uint32_t>(n, room);
        s->n_stats = n;
        for (uint32_t i = 0; i < n && in_.remaining_bytes() > 0; ++i) s->data[i] = in_.ConsumeIntegral<uint64_t>();
        return 0;
      }
      default:
        FUZZ_CHECK(false && "unexpected ethtool command");
    }
    return EINVAL;
  }

  void closeSocket(int fd) override { FUZZ_CHECK(fd == 7); }

 private:
  FuzzedDataProvider& in_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  auto source = makeEthtoolIoctlSource(std::make_unique<FuzzKernel>(in));
  const std::string ifname = in.ConsumeBool() ? std::string("eth0") : in.ConsumeRandomLengthString(20);
  EthtoolStats out;
  for (int read = 0; read < 3; ++read) {
    auto st = source->readInto(ifname, out);
    if (!st) continue;
    for (const auto& [name, value] : out.pairs()) FUZZ_CHECK(name.size() <= ETH_GSTRING_LEN);
  }
  return 0;
}
