#include "collectors/sources/dcb_file_source.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <string>

#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

namespace {

constexpr size_t kMaxDcbFile = 64 * 1024;

Error yamlError(const std::string& what, const YAML::Node& node) {
  const auto mark = node.Mark();
  std::string msg = what;
  if (mark.line >= 0) msg += " (line " + std::to_string(mark.line + 1) + ")";
  return Error{std::move(msg), EINVAL};
}

// Keys and values end up in log lines: keep them printable and short.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 40) out += "...";
  return out;
}

Result<uint64_t> scalarNumber(const YAML::Node& node, const std::string& key, uint64_t max) {
  if (!node.IsScalar()) return yamlError(key + ": expected a number", node);
  auto v = parseCounter(node.Scalar());
  if (!v)
    return yamlError(key + ": \"" + printable(node.Scalar()) + "\" is not an unsigned number",
                     node);
  if (*v > max)
    return yamlError(key + ": " + printable(node.Scalar()) + " is above " + std::to_string(max),
                     node);
  return *v;
}

Result<std::array<uint64_t, 8>> eightCounters(const YAML::Node& node, const std::string& key) {
  if (!node.IsSequence() || node.size() != 8)
    return yamlError(key + ": expected a list of 8 counters", node);
  std::array<uint64_t, 8> out{};
  for (size_t i = 0; i < 8; ++i) {
    auto v = scalarNumber(node[i], key, UINT64_MAX);
    if (!v) return v.error();
    out[i] = *v;
  }
  return out;
}

Result<DcbInfo> parseDocument(const YAML::Node& doc) {
  if (!doc.IsMap()) return yamlError("expected a mapping with at least pfc_enabled", doc);
  DcbInfo info;
  bool sawPfc = false;
  for (const auto& kv : doc) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const YAML::Node& v = kv.second;
    if (key == "pfc_enabled") {
      sawPfc = true;
      if (!v.IsSequence()) return yamlError("pfc_enabled: expected a list of priorities", v);
      for (const auto& p : v) {
        auto prio = scalarNumber(p, "pfc_enabled", 7);
        if (!prio) return prio.error();
        info.pfcEnabled[*prio] = true;
      }
    } else if (key == "trust") {
      if (!v.IsScalar() || (v.Scalar() != "dscp" && v.Scalar() != "pcp")) {
        return yamlError("trust: expected dscp or pcp", v);
      }
      info.trust = v.Scalar();
    } else if (key == "dscp_to_priority") {
      if (!v.IsMap()) return yamlError("dscp_to_priority: expected a mapping {dscp: priority}", v);
      for (const auto& e : v) {
        auto dscp = scalarNumber(e.first, "dscp_to_priority key", 63);
        if (!dscp) return dscp.error();
        auto prio = scalarNumber(e.second, "dscp_to_priority value", 7);
        if (!prio) return prio.error();
        info.dscpToPriority[static_cast<unsigned>(*dscp)] = static_cast<unsigned>(*prio);
      }
    } else if (key == "pfc_requests" || key == "pfc_indications") {
      auto c = eightCounters(v, key);
      if (!c) return c.error();
      (key == "pfc_requests" ? info.pfcRequests : info.pfcIndications) = *c;
    } else if (key == "dcbx_mode") {
      auto m = scalarNumber(v, key, 0xff);
      if (!m) return m.error();
      info.dcbxMode = static_cast<unsigned>(*m);
    } else if (key == "storm_prevention_timeout_ms") {
      auto t = scalarNumber(v, key, 0xffff);
      if (!t) return t.error();
      info.stormPreventionTimeoutMs = static_cast<unsigned>(*t);
    } else {
      return yamlError("unknown key \"" + printable(key) + "\"", kv.first);
    }
  }
  if (!sawPfc) return yamlError("pfc_enabled is missing", doc);
  return info;
}

class DcbFileSource final : public DcbSource {
 public:
  explicit DcbFileSource(std::filesystem::path dir) : dir_(std::move(dir)) {}

  Result<std::optional<DcbInfo>> read(const std::string& ifname) override {
    if (ifname.empty() || ifname.find('/') != std::string::npos || ifname == "." ||
        ifname == "..") {
      return Error{"dcb file: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    const std::string path = (dir_ / ifname).string();
    auto fd = openForRead(path);
    if (!fd) {
      if (fd.error().errnum == ENOENT) return std::optional<DcbInfo>{};  // no DCB information
      return fd.error();
    }
    auto text = readAll(*fd, path);
    ::close(*fd);
    if (!text) return text.error();
    if (trim(*text).empty()) return Error{"read " + path + ": empty file", ENODATA};
    auto info = parseDcbYaml(*text);
    if (!info) return Error{path + ": " + info.error().message, info.error().errnum};
    return std::optional<DcbInfo>{std::move(*info)};
  }

 private:
  static Result<std::string> readAll(int fd, const std::string& path) {
    std::string out;
    std::array<char, 4096> chunk;
    for (;;) {
      const ssize_t n = ::read(fd, chunk.data(), chunk.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return sysError("read " + path, errno);
      }
      if (n == 0) return out;
      out.append(chunk.data(), static_cast<size_t>(n));
      if (out.size() > kMaxDcbFile) return Error{"read " + path + ": file too large", EFBIG};
    }
  }

  std::filesystem::path dir_;
};

}  // namespace

Result<DcbInfo> parseDcbYaml(std::string_view text) {
  // yaml-cpp reports every problem by throwing; this is the boundary where that stops.
  try {
    const YAML::Node doc = YAML::Load(std::string(text));
    if (!doc || doc.IsNull()) return Error{"empty YAML document", ENODATA};
    return parseDocument(doc);
  } catch (const YAML::Exception& e) {
    return Error{std::string("YAML: ") + e.what(), EINVAL};
  } catch (const std::exception& e) {
    return Error{std::string("YAML: ") + e.what(), EINVAL};
  } catch (...) {
    return Error{"YAML: unknown parser failure", EINVAL};
  }
}

std::unique_ptr<DcbSource> makeDcbFileSource(std::filesystem::path dir) {
  return std::make_unique<DcbFileSource>(std::move(dir));
}

}  // namespace fabricmon
