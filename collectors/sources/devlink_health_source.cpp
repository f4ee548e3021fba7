// Both devlink health sources and their parsers (collectors/sources/devlink_health_source.hpp): the
// netlink messages as pure functions over bytes (tests feed them replies built in the kernel's
// layout), the socket loop of the dump, and the file of `devlink -j -s health show` output.

#include "collectors/sources/devlink_health_source.hpp"
#include "collectors/sources/read_watch.hpp"

#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "collectors/sources/netlink_socket.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

// The numbers of include/uapi/linux/devlink.h (the uapi is append-only; checked here so a header
// that moved one would not compile): the command and the attributes
// devlink_nl_health_reporter_fill() (net/devlink/health.c) puts, with the types it puts them as
// (nla_put_string, nla_put_u32, nla_put_u8, devlink_nl_put_u64 = nla_put_u64_64bit).
static_assert(DEVLINK_CMD_HEALTH_REPORTER_GET == 52);
static_assert(DEVLINK_ATTR_BUS_NAME == 1);                         // string
static_assert(DEVLINK_ATTR_DEV_NAME == 2);                         // string
static_assert(DEVLINK_ATTR_PORT_INDEX == 3);                       // u32, port reporters only
static_assert(DEVLINK_ATTR_HEALTH_REPORTER == 114);                // nested (no NLA_F_NESTED flag)
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_NAME == 115);           // string
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_STATE == 116);          // u8
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT == 117);      // u64
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT == 118);  // u64
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD ==
              120);                                               // u64, ms; with ops->recover only
static_assert(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER == 121);  // u8; with ops->recover only

namespace {

// enum devlink_health_reporter_state, include/net/devlink.h (kernel-internal, not in the uapi).
constexpr uint8_t kStateHealthy = 0;
constexpr uint8_t kStateError = 1;

constexpr size_t kMaxName = 64;
// Bounds on what one answer may hold: far above any node (a ConnectX-7 PF has 4 reporters), small
// enough that a runaway answer cannot grow without end.
constexpr size_t kMaxReporters = 4096;
constexpr size_t kMaxDatagrams = 1024;
constexpr size_t kMaxFile = 4 * 1024 * 1024;

constexpr size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

/// Bus, device and reporter names become label values: 1-64 of [A-Za-z0-9_.:-] (PCI addresses,
/// "netdevsim0", "mlx5_core.eth.0", "fw_fatal", "tx_hang"); anything else is not a name.
bool goodName(std::string_view s) {
  if (s.empty() || s.size() > kMaxName) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string handleOf(const std::string& bus, const std::string& device,
                     std::optional<uint32_t> port) {
  std::string h = bus + "/" + device;
  if (port) h += "/" + std::to_string(*port);
  return h;
}

/// Appends `r` unless a reporter of the same handle and name is already there (one series each).
void addReporter(DevlinkHealthReport& report, DevlinkHealthReporter r) {
  std::string key = r.key();
  for (const auto& have : report.reporters) {
    if (have.bus == r.bus && have.device == r.device && have.port == r.port &&
        have.name == r.name) {
      report.rejected.emplace_back(std::move(key),
                                   Error{"devlink health " + r.key() + ": listed twice", EINVAL});
      return;
    }
  }
  if (report.reporters.size() + report.rejected.size() >= kMaxReporters) {
    report.rejected.emplace_back(std::move(key),
                                 Error{"devlink health: more than 4096 reporters", E2BIG});
    return;
  }
  report.reporters.push_back(std::move(r));
}

void reject(DevlinkHealthReport& report, std::string key, const std::string& why) {
  Error e{"devlink health " + key + ": " + why, EINVAL};
  report.rejected.emplace_back(std::move(key), std::move(e));
}

// ---- netlink
// -------------------------------------------------------------------------------------

/// Calls f(type, payload) for every attribute of `buf`; false when one overruns it.
template <class F>
bool forEachAttr(std::span<const uint8_t> buf, F&& f) {
  size_t off = 0;
  while (off + NLA_HDRLEN <= buf.size()) {
    nlattr a{};
    std::memcpy(&a, buf.data() + off, sizeof a);
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > buf.size()) return false;
    f(static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
      buf.subspan(off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    off += align4(a.nla_len);
  }
  return true;
}

/// A NUL-terminated string attribute (nla_put_string); nullopt when it is not one.
std::optional<std::string> str(std::span<const uint8_t> p) {
  const auto* nul = static_cast<const uint8_t*>(std::memchr(p.data(), 0, p.size()));
  if (p.empty() || nul == nullptr) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(p.data()), static_cast<size_t>(nul - p.data()));
}

template <class T>
std::optional<T> fixed(std::span<const uint8_t> p) {
  if (p.size() != sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, p.data(), sizeof v);
  return v;
}

/// One DEVLINK_CMD_HEALTH_REPORTER_GET message's attributes (after the genetlink header).
void parseReporterMessage(std::span<const uint8_t> attrs, DevlinkHealthReport& report) {
  std::optional<std::string> bus, device;
  std::optional<uint32_t> port;
  std::span<const uint8_t> nest;
  bool hasNest = false, badPort = false;
  const bool whole = forEachAttr(attrs, [&](uint16_t type, std::span<const uint8_t> p) {
    switch (type) {
      case DEVLINK_ATTR_BUS_NAME:
        bus = str(p);
        break;
      case DEVLINK_ATTR_DEV_NAME:
        device = str(p);
        break;
      case DEVLINK_ATTR_PORT_INDEX:
        port = fixed<uint32_t>(p);
        badPort = !port;
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER:
        nest = p;
        hasNest = true;
        break;
      default:
        break;  // attributes of newer kernels (DEVLINK_ATTR_INDEX, ...) are not ours
    }
  });
  if (!bus || !device || !goodName(*bus) || !goodName(*device)) {
    reject(report, "devlink/?", "a reporter without a usable bus or device name");
    return;
  }
  const std::string handle = handleOf(*bus, *device, port);
  if (!whole) return reject(report, handle + "/?", "an attribute overruns its message");
  if (badPort) return reject(report, handle + "/?", "DEVLINK_ATTR_PORT_INDEX is not a u32");
  if (!hasNest) return reject(report, handle + "/?", "no DEVLINK_ATTR_HEALTH_REPORTER");

  DevlinkHealthReporter r;
  r.bus = *bus;
  r.device = *device;
  r.port = port;
  std::optional<std::string> name;
  std::optional<uint8_t> state, autoRecover;
  std::optional<uint64_t> errors, recoveries, grace;
  bool malformed = false;
  const bool nestWhole = forEachAttr(nest, [&](uint16_t type, std::span<const uint8_t> p) {
    switch (type) {
      case DEVLINK_ATTR_HEALTH_REPORTER_NAME:
        name = str(p);
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER_STATE:
        state = fixed<uint8_t>(p);
        malformed |= !state;
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT:
        errors = fixed<uint64_t>(p);
        malformed |= !errors;
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT:
        recoveries = fixed<uint64_t>(p);
        malformed |= !recoveries;
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD:
        grace = fixed<uint64_t>(p);
        malformed |= !grace;
        break;
      case DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER:
        autoRecover = fixed<uint8_t>(p);
        malformed |= !autoRecover;
        break;
      default:
        break;
    }
  });
  if (!name || !goodName(*name))
    return reject(report, handle + "/?", "a reporter without a usable name");
  r.name = *name;
  const std::string key = r.key();
  if (!nestWhole || malformed) return reject(report, key, "an attribute of the wrong size");
  // iproute2 prints nothing for a reporter without these four (pr_out_health()); neither do we.
  if (!state || !errors || !recoveries)
    return reject(report, key, "state, error or recover count missing");
  if (*state != kStateHealthy && *state != kStateError) {
    return reject(report, key,
                  "state " + std::to_string(*state) + " is not one the kernel defines");
  }
  if (autoRecover && *autoRecover > 1) return reject(report, key, "auto_recover is not 0 or 1");
  r.healthy = *state == kStateHealthy;
  r.errors = *errors;
  r.recoveries = *recoveries;
  if (autoRecover) r.autoRecover = *autoRecover == 1;
  r.gracePeriodMs = grace;
  addReporter(report, std::move(r));
}

// ---- iproute2 JSON
// -------------------------------------------------------------------------------

using nlohmann::json;

/// "pci/0000:08:00.0" or "pci/0000:08:00.0/65535" (bus/dev[/port], iproute2's
/// __pr_out_handle_start() and __pr_out_port_handle_start() with no nice names).
bool parseHandle(const std::string& h, std::string& bus, std::string& device,
                 std::optional<uint32_t>& port) {
  const auto a = h.find('/');
  if (a == std::string::npos) return false;
  const auto b = h.find('/', a + 1);
  bus = h.substr(0, a);
  device = h.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  if (!goodName(bus) || !goodName(device)) return false;
  port.reset();
  if (b == std::string::npos) return true;
  const std::string p = h.substr(b + 1);
  if (p.empty() || p.size() > 10 || p.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const auto v = parseCounter(p);
  if (!v || *v > UINT32_MAX) return false;
  port = static_cast<uint32_t>(*v);
  return true;
}

/// An unsigned 64-bit count as iproute2 prints one (print_u64); its "unlimited" (UINT64_MAX, as
/// pr_out_u64() writes it), a negative number or a fraction is not a count.
std::optional<uint64_t> count(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

void parseJsonReporter(const json& o, const std::string& bus, const std::string& device,
                       std::optional<uint32_t> port, DevlinkHealthReport& report) {
  const std::string handle = handleOf(bus, device, port);
  const auto name = o.is_object() ? o.find("reporter") : o.end();
  if (!o.is_object() || name == o.end() || !name->is_string() ||
      !goodName(name->get<std::string>())) {
    return reject(report, handle + "/?", "a reporter without a usable name");
  }
  DevlinkHealthReporter r;
  r.bus = bus;
  r.device = device;
  r.port = port;
  r.name = name->get<std::string>();
  const std::string key = r.key();
  const auto state = o.find("state");
  if (state == o.end() || !state->is_string()) return reject(report, key, "no state");
  // HEALTH_REPORTER_STATE_HEALTHY_STR / _ERROR_STR; any other state iproute2 prints "<unknown
  // state>".
  if (*state == "healthy") {
    r.healthy = true;
  } else if (*state == "error") {
    r.healthy = false;
  } else {
    return reject(report, key,
                  "state \"" + state->get<std::string>() + "\" is not one the kernel defines");
  }
  const auto errors = count(o, "error");
  const auto recoveries = count(o, "recover");
  if (!errors || !recoveries)
    return reject(report, key, "error or recover is not an unsigned 64-bit count");
  r.errors = *errors;
  r.recoveries = *recoveries;
  if (const auto ar = o.find("auto_recover"); ar != o.end()) {
    if (!ar->is_boolean()) return reject(report, key, "auto_recover is not true or false");
    r.autoRecover = ar->get<bool>();
  }
  if (const auto gp = o.find("grace_period"); gp != o.end()) {
    if (!gp->is_number_unsigned())
      return reject(report, key, "grace_period is not an unsigned count of ms");
    r.gracePeriodMs = gp->get<uint64_t>();
  }
  addReporter(report, std::move(r));
}

// ---- the sources
// ---------------------------------------------------------------------------------

class DevlinkHealthNetlinkSource final : public DevlinkHealthSource {
 public:
  Result<std::optional<DevlinkHealthReport>> read() override {
    std::lock_guard lock(mutex_);
    auto family = socket_.genlFamily(DEVLINK_GENL_NAME);
    if (!family) return family.error();
    if (!*family) return absent("the kernel has no devlink netlink family");
    const uint16_t id = **family;
    const uint32_t seq = socket_.nextSeq();
    // The dump takes each devlink instance's lock, which a driver holds through a reload or a
    // firmware recovery (net/devlink/health.c): a wedged one stops the dump. It names no NIC.
    const WatchedRead watched("devlink health dump", "");
    auto datagram =
        socket_.exchange(devlink::buildHealthReporterDumpRequest(id, seq), seq, "devlink health");
    if (!datagram) return datagram.error();
    DevlinkHealthReport report;
    for (size_t n = 0;; ++n) {
      auto progress = devlink::parseHealthReporterDump(*datagram, seq, id, report);
      if (!progress) {
        socket_.close();  // the rest of this answer must not be read as the next one
        return Error{"devlink health: " + progress.error().message, progress.error().errnum};
      }
      // A kernel with devlink but before health reporters (< 5.1) does not know the command.
      if (progress->kernelErrno == EOPNOTSUPP)
        return absent("the kernel's devlink has no health reporters");
      if (progress->kernelErrno != 0) {
        socket_.close();
        return sysError("devlink health dump", progress->kernelErrno);
      }
      if (progress->done) break;
      if (n + 1 >= kMaxDatagrams) {
        socket_.close();
        return Error{"devlink health dump: more than 1024 datagrams", E2BIG};
      }
      auto next = receive();
      if (!next) return next.error();
      datagram = *next;
    }
    if (absentLogged_) {
      spdlog::info("devlink health: the kernel answers now");
      absentLogged_ = false;
    }
    return std::optional<DevlinkHealthReport>(std::move(report));
  }

 private:
  Result<std::optional<DevlinkHealthReport>> absent(const char* why) {
    if (!absentLogged_) spdlog::info("devlink health: {}; no NIC health reporters to read", why);
    absentLogged_ = true;
    return std::optional<DevlinkHealthReport>{};
  }

  /// The next datagram of a dump (the kernel fills them as the reader asks, netlink_recvmsg());
  /// the socket's receive timeout bounds the wait.
  Result<std::span<const uint8_t>> receive() {
    auto fd = socket_.fd();
    if (!fd) return fd.error();
    ssize_t n;
    do {
      n = ::recv(*fd, buf_.data(), buf_.size(), MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      socket_.close();
      return sysError("devlink health: recv",
                      err == EAGAIN || err == EWOULDBLOCK ? ETIMEDOUT : err);
    }
    if (static_cast<size_t>(n) > buf_.size()) {
      socket_.close();
      return Error{"devlink health: a datagram of " + std::to_string(n) + " bytes truncated",
                   EMSGSIZE};
    }
    return std::span<const uint8_t>(buf_.data(), static_cast<size_t>(n));
  }

  std::mutex mutex_;
  // A dump datagram is at most 32 KiB (net/netlink/af_netlink.c, netlink_dump(): max_recvmsg_len).
  NetlinkSocket socket_{{NETLINK_GENERIC, "devlink", std::chrono::seconds(2), 32 * 1024}};
  std::vector<uint8_t> buf_ = std::vector<uint8_t>(32 * 1024);
  bool absentLogged_ = false;
};

class DevlinkHealthFileSource final : public DevlinkHealthSource {
 public:
  explicit DevlinkHealthFileSource(std::filesystem::path file) : file_(std::move(file)) {}

  Result<std::optional<DevlinkHealthReport>> read() override {
    const std::string path = file_.string();
    auto text = readWholeFile(path, kMaxFile);
    if (!text) return text.error();
    if (!*text) return std::optional<DevlinkHealthReport>{};  // no capture: no data
    auto report = parseDevlinkHealthJson(**text);
    if (!report) return Error{path + ": " + report.error().message, report.error().errnum};
    return std::optional<DevlinkHealthReport>(std::move(*report));
  }

 private:
  std::filesystem::path file_;
};

}  // namespace

std::string DevlinkHealthReporter::key() const { return handleOf(bus, device, port) + "/" + name; }

Result<DevlinkHealthReport> parseDevlinkHealthJson(std::string_view text) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error{"not a JSON object", EINVAL};
  const auto health = doc.find("health");
  if (health == doc.end() || !health->is_object()) {
    return Error{"no \"health\" object (expected `devlink -j health show` output)", EINVAL};
  }
  DevlinkHealthReport report;
  for (const auto& [handle, reporters] : health->items()) {
    std::string bus, device;
    std::optional<uint32_t> port;
    if (!parseHandle(handle, bus, device, port)) {
      reject(report, "devlink/?", "\"" + handle.substr(0, 80) + "\" is not a devlink handle");
      continue;
    }
    if (!reporters.is_array()) {
      reject(report, handleOf(bus, device, port) + "/?", "its reporters are not a list");
      continue;
    }
    for (const json& r : reporters) parseJsonReporter(r, bus, device, port, report);
  }
  return report;
}

namespace devlink {

std::vector<uint8_t> buildHealthReporterDumpRequest(uint16_t family, uint32_t seq) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + GENL_HDRLEN, 0);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(out.size());
  h.nlmsg_type = family;
  h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  h.nlmsg_seq = seq;
  std::memcpy(out.data(), &h, sizeof h);
  genlmsghdr g{};
  g.cmd = DEVLINK_CMD_HEALTH_REPORTER_GET;
  g.version = DEVLINK_GENL_VERSION;
  std::memcpy(out.data() + NLMSG_HDRLEN, &g, sizeof g);
  return out;
}

Result<DumpProgress> parseHealthReporterDump(std::span<const uint8_t> datagram,
                                             uint32_t expectedSeq, uint16_t family,
                                             DevlinkHealthReport& report) {
  DumpProgress progress;
  size_t off = 0;
  if (datagram.size() < NLMSG_HDRLEN) return Error{"short netlink message", EPROTO};
  while (off + NLMSG_HDRLEN <= datagram.size()) {
    nlmsghdr h{};
    std::memcpy(&h, datagram.data() + off, sizeof h);
    if (h.nlmsg_len < NLMSG_HDRLEN || off + h.nlmsg_len > datagram.size()) {
      return Error{"malformed netlink message length", EPROTO};
    }
    if (h.nlmsg_seq != expectedSeq) return Error{"reply to another request", EPROTO};
    const auto body = datagram.subspan(off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
    if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) {
      // NLMSG_DONE carries the dump's result as an int (netlink_dump_done()); NLMSG_ERROR an errno.
      const auto err = ackErrno(body);
      if (!err) return Error{"malformed netlink error or done message", EPROTO};
      progress.kernelErrno = *err;
      progress.done = true;  // an error ends the dump too
      return progress;
    }
    if (h.nlmsg_type == family) {
      if (body.size() < GENL_HDRLEN) return Error{"short genetlink header", EPROTO};
      genlmsghdr g{};
      std::memcpy(&g, body.data(), sizeof g);
      if (g.cmd == DEVLINK_CMD_HEALTH_REPORTER_GET)
        parseReporterMessage(body.subspan(GENL_HDRLEN), report);
    } else if (h.nlmsg_type != NLMSG_NOOP) {
      return Error{"unexpected netlink message type " + std::to_string(h.nlmsg_type), EPROTO};
    }
    off += align4(h.nlmsg_len);
  }
  return progress;
}

}  // namespace devlink

std::unique_ptr<DevlinkHealthSource> makeDevlinkHealthNetlinkSource() {
  return std::make_unique<DevlinkHealthNetlinkSource>();
}

std::unique_ptr<DevlinkHealthSource> makeDevlinkHealthFileSource(std::filesystem::path file) {
  return std::make_unique<DevlinkHealthFileSource>(std::move(file));
}

}  // namespace fabricmon
