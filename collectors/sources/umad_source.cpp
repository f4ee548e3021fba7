// The real MAD source: libibumad for the local ports, libibmad for the MADs themselves.
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "collectors/sources/mad_source.hpp"

namespace fabricmon {
namespace {

class UmadSource final : public MadSource {
 public:
  UmadSource(unsigned timeoutMs, unsigned retries) : timeoutMs_(timeoutMs), retries_(retries) {}
  ~UmadSource() override {
    for (auto& [key, port] : open_) {
      if (port != nullptr) mad_rpc_close_port(port);
    }
  }

  Result<std::vector<UmadPort>> ports() override {
    if (!initialised_) {
      if (umad_init() < 0) return Error{"umad_init failed"};
      initialised_ = true;
    }
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    if (n < 0) return Error{"umad_get_cas_names failed"};
    std::vector<UmadPort> out;
    for (int i = 0; i < n; ++i) {
      umad_ca_t ca{};
      if (umad_get_ca(names[i], &ca) < 0) continue;  // vanished between the two calls
      for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
        const umad_port_t* port = ca.ports[p];
        if (port == nullptr || port->portnum == 0) continue;  // port 0 is a switch's management port
        UmadPort u;
        u.ca = ca.ca_name;
        u.port = static_cast<unsigned>(port->portnum);
        // libibumad leaves link_layer empty on kernels without the file: those are InfiniBand-only.
        u.infiniband = port->link_layer[0] == '\0' || std::strcmp(port->link_layer, "InfiniBand") == 0 ||
                       std::strcmp(port->link_layer, "IB") == 0;
        u.lid = port->base_lid;
        u.state = port->state;
        u.physState = port->phys_state;
        u.rateGbps = port->rate;
        out.push_back(std::move(u));
      }
      umad_release_ca(&ca);
    }
    return out;
  }

  Result<mad::Payload> smpDirected(const UmadPort& from, const std::vector<uint8_t>& hops, unsigned attr,
                                   unsigned modifier) override {
    ibmad_port* port = open(from);
    if (port == nullptr) return Error{fmt::format("open umad port {}/{}", from.ca, from.port)};
    ib_portid_t id{};
    id.lid = 0;  // directed route: works before the subnet manager has assigned LIDs
    id.drpath.cnt = static_cast<int>(hops.size());
    for (size_t i = 0; i < hops.size() && i + 1 < IB_SUBNET_PATH_HOPS_MAX; ++i) id.drpath.p[i + 1] = hops[i];
    id.drpath.drslid = 0xffff;  // permissive LIDs at both ends (IBA 14.2.2)
    id.drpath.drdlid = 0xffff;
    uint8_t buf[1024] = {};
    ++sent_;
    int status = 0;
    if (smp_query_status_via(buf, &id, attr, modifier, timeoutMs_, &status, port) == nullptr) {
      return Error{fmt::format("SMP attribute {:#x} by directed route {} from {}/{}: {}", attr, pathText(hops), from.ca,
                               from.port, status != 0 ? fmt::format("status {:#x}", status) : "no response")};
    }
    mad::Payload out{};
    std::memcpy(out.data(), buf, 64);
    return out;
  }

  Result<mad::Payload> pma(const UmadPort& from, unsigned lid, unsigned portSelect, unsigned attr) override {
    ibmad_port* port = open(from);
    if (port == nullptr) return Error{fmt::format("open umad port {}/{}", from.ca, from.port)};
    ib_portid_t id{};
    ib_portid_set(&id, static_cast<int>(lid), 1, IB_DEFAULT_QP1_QKEY);
    uint8_t buf[1024] = {};
    ++sent_;
    if (pma_query_via(buf, &id, static_cast<int>(portSelect), timeoutMs_, attr, port) == nullptr) {
      return Error{fmt::format("PMA attribute {:#x} of LID {} port {} from {}/{}: no answer", attr, lid, portSelect,
                               from.ca, from.port)};
    }
    mad::Payload out{};
    std::memcpy(out.data(), buf, 192);
    return out;
  }

  void reopen(const UmadPort& from) override {
    auto it = open_.find(key(from));
    if (it == open_.end()) return;
    if (it->second != nullptr) mad_rpc_close_port(it->second);
    open_.erase(it);
  }

  uint64_t madsSent() const override { return sent_.load(std::memory_order_relaxed); }

 private:
  static std::string key(const UmadPort& p) { return fmt::format("{}/{}", p.ca, p.port); }
  static std::string pathText(const std::vector<uint8_t>& hops) {
    std::string s = "0";
    for (uint8_t h : hops) s += fmt::format(",{}", h);
    return s;
  }

  ibmad_port* open(const UmadPort& from) {
    const std::string k = key(from);
    if (auto it = open_.find(k); it != open_.end() && it->second != nullptr) return it->second;
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS};
    std::string ca = from.ca;
    ibmad_port* port = mad_rpc_open_port(ca.data(), static_cast<int>(from.port), classes, 3);
    if (port != nullptr) {
      mad_rpc_set_timeout(port, static_cast<int>(timeoutMs_));
      mad_rpc_set_retries(port, static_cast<int>(retries_));
    }
    open_[k] = port;
    return port;
  }

  const unsigned timeoutMs_;
  const unsigned retries_;
  bool initialised_ = false;
  std::map<std::string, ibmad_port*> open_;
  std::atomic<uint64_t> sent_{0};
};

}  // namespace

std::unique_ptr<MadSource> makeUmadSource(unsigned timeoutMs, unsigned retries) {
  // libibmad prints every failed MAD to stderr by default; failures are reported through the
  // collector's error accounting instead (logged once when they start and once when they end).
  madrpc_show_errors(0);
  return std::make_unique<UmadSource>(timeoutMs, retries);
}

}  // namespace fabricmon
