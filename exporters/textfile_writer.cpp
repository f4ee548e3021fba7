#include "exporters/textfile_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace fabricmon {
namespace {

Status writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"", errno};
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

Status writeTextfile(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return sysError("write textfile " + path + " (create " + tmp + ")", errno);

  const auto fail = [&](const std::string& step, int err) {
    ::unlink(tmp.c_str());
    return sysError("write textfile " + path + " (" + step + " " + tmp + ")", err);
  };
  if (Status s = writeAll(fd, text); !s) {
    ::close(fd);
    return fail("write", s.error().errnum);
  }
  // Without the fsync, a crash right after the rename can leave an empty file under the new name
  // (ext4 and xfs may commit the rename before the data).
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fail("fsync", err);
  }
  if (::close(fd) != 0) return fail("close", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename", errno);
  return {};
}

}  // namespace fabricmon
