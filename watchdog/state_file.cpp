#include "watchdog/state_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace fabricmon::watchdog {

namespace {

Status writeAll(int fd, const std::string& data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sysError("write " + path, errno);
    off += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

Result<std::optional<nlohmann::json>> readStateFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<nlohmann::json>{};
    return sysError("open " + path, errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file", EINVAL};
  }
  if (static_cast<size_t>(st.st_size) > kMaxStateFile) {
    ::close(fd);
    return Error{path + ": larger than any state fabricmon writes", EFBIG};
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return sysError("read " + path, err);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error{path + ": not a JSON object", EINVAL};
  const auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer()) return Error{path + ": no version", EINVAL};
  if (version->get<int>() != kStateVersion) {
    return Error{path + ": version " + std::to_string(version->get<int>()) + ", this fabricmon reads " +
                     std::to_string(kStateVersion),
                 EINVAL};
  }
  return std::optional<nlohmann::json>{std::move(doc)};
}

Status writeStateFile(const std::string& path, nlohmann::json doc) {
  doc["version"] = kStateVersion;
  std::string text;
  try {
    text = doc.dump(1);  // a NaN is written as null, never as invalid JSON
  } catch (const std::exception& e) {
    return Error{std::string("state: ") + e.what(), EINVAL};
  }
  text += '\n';
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return sysError("open " + tmp, errno);
  Status st = writeAll(fd, text, tmp);
  if (st && ::fsync(fd) != 0) st = sysError("fsync " + tmp, errno);
  if (::close(fd) != 0 && st) st = sysError("close " + tmp, errno);
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0) st = sysError("rename " + tmp + " to " + path, errno);
  if (!st) {
    ::unlink(tmp.c_str());
    return st;
  }
  // The rename itself is durable once the directory is.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace fabricmon::watchdog
