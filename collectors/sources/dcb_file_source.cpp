#include "collectors/sources/dcb_file_source.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

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
  // yaml-cpp keeps both entries of a duplicated key; YAML 1.2 §3.2.1.1 says keys are unique, so a
  // file with one is wrong rather than a choice of which value wins.
  std::set<std::string> seen;
  for (const auto& kv : doc) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const YAML::Node& v = kv.second;
    if (!seen.insert(key).second) return yamlError("duplicate key \"" + printable(key) + "\"", kv.first);
    if (key == "pfc_enabled") {
      sawPfc = true;
      if (!v.IsSequence()) return yamlError("pfc_enabled: expected a list of priorities", v);
      for (const auto& p : v) {
        auto prio = scalarNumber(p, "pfc_enabled", 7);
        if (!prio) return prio.error();
        if (info.pfcEnabled[*prio]) return yamlError("pfc_enabled: priority " + std::to_string(*prio) + " listed twice", p);
        info.pfcEnabled[*prio] = true;
      }
    } else if (key == "trust") {
      if (!v.IsScalar() || (v.Scalar() != "dscp" && v.Scalar() != "pcp")) {
        return yamlError("trust: expected dscp or pcp", v);
      }
      info.trust = v.Scalar();
    } else if (key == "dscp_to_priority") {
      if (!v.IsMap()) return yamlError("dscp_to_priority: expected a mapping {dscp: priority}", v);
      std::set<uint64_t> dscps;
      for (const auto& e : v) {
        auto dscp = scalarNumber(e.first, "dscp_to_priority key", 63);
        if (!dscp) return dscp.error();
        if (!dscps.insert(*dscp).second) return yamlError("dscp_to_priority: duplicate DSCP " + std::to_string(*dscp), e.first);
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

// Reads the file at every call (docs/contract.md §2: a test may change it while the daemon runs)
// but parses the YAML only when its bytes differ from the last good read of that interface: a
// yaml-cpp parse costs more than ten times the read. The file stays open while the path names the
// same file (inode and mode unchanged), so a poll is a stat and a pread; a file replaced by rename
// or chmod'ed is opened again. After any error, or when the file is gone, the interface keeps
// nothing.
class DcbFileSource final : public DcbSource {
 public:
  explicit DcbFileSource(std::filesystem::path dir) : dir_(std::move(dir)) {}

  Result<std::optional<DcbInfo>> read(const std::string& ifname) override {
    if (ifname.empty() || ifname.find('/') != std::string::npos || ifname == "." ||
        ifname == "..") {
      return Error{"dcb file: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    std::lock_guard lock(mutex_);
    auto [it, inserted] = files_.try_emplace(ifname);
    if (inserted) it->second.path = (dir_ / ifname).string();
    auto result = readFile(it->second);
    if (!result || !result->has_value()) files_.erase(it);  // closes it; nothing is reused
    return result;
  }

 private:
  struct File {
    File() = default;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File() { close(); }
    void close() {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }

    std::string path;
    int fd = -1;
    dev_t dev = 0;
    ino_t inode = 0;
    mode_t mode = 0;
    bool parsed = false;  // `text` parsed to `info`
    std::string text;
    DcbInfo info;
  };

  Result<std::optional<DcbInfo>> readFile(File& f) {
    struct stat st {};
    if (::stat(f.path.c_str(), &st) != 0) {
      if (errno == ENOENT) return std::optional<DcbInfo>{};  // no DCB information
      return sysError("stat " + f.path, errno);
    }
    if (f.fd < 0 || st.st_ino != f.inode || st.st_dev != f.dev || st.st_mode != f.mode) {
      f.close();
      // openForRead takes regular files only: a FIFO or a directory is an error, never a block.
      auto fd = openForRead(f.path);
      if (!fd) {
        if (fd.error().errnum == ENOENT) return std::optional<DcbInfo>{};
        return fd.error();
      }
      f.fd = *fd;
      if (::fstat(f.fd, &st) != 0) return sysError("stat " + f.path, errno);
      f.dev = st.st_dev;
      f.inode = st.st_ino;
      f.mode = st.st_mode;
    }
    if (auto status = readAll(f, static_cast<size_t>(st.st_size)); !status) return status.error();
    if (trim(buf_).empty()) return Error{"read " + f.path + ": empty file", ENODATA};
    if (f.parsed && f.text == buf_) return std::optional<DcbInfo>{f.info};
    auto info = parseDcbYaml(buf_);
    if (!info) return Error{f.path + ": " + info.error().message, info.error().errnum};
    f.text = buf_;
    f.info = *info;
    f.parsed = true;
    return std::optional<DcbInfo>{std::move(*info)};
  }

  // The whole file into buf_ (whose capacity is kept between calls) with pread from offset 0, in
  // one call when the size from stat is still right: a read of a regular file returns less than
  // asked only at its end.
  Status readAll(const File& f, size_t sizeHint) {
    buf_.resize(std::min(sizeHint, kMaxDcbFile) + 1);
    size_t got = 0;
    for (;;) {
      const ssize_t n =
          ::pread(f.fd, buf_.data() + got, buf_.size() - got, static_cast<off_t>(got));
      if (n < 0) {
        if (errno == EINTR) continue;
        return sysError("read " + f.path, errno);
      }
      got += static_cast<size_t>(n);
      if (got < buf_.size()) break;
      if (got > kMaxDcbFile) return Error{"read " + f.path + ": file too large", EFBIG};
      buf_.resize(buf_.size() * 2);  // it grew since the stat
    }
    buf_.resize(got);
    return {};
  }

  std::filesystem::path dir_;
  std::mutex mutex_;  // one collector calls read(), but nothing stops a second
  std::string buf_;
  std::unordered_map<std::string, File> files_;  // per interface; nodes never move
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
