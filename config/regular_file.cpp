#include "config/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fabricmon {

std::string errnoText(int errnum) {
  const char* name = strerrorname_np(errnum);
  return std::string(std::strerror(errnum)) + " (" + (name != nullptr ? name : std::to_string(errnum)) + ")";
}

Result<int> openRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{errnoText(errno), errno};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{errnoText(err), err};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return Error{std::string("not a regular file (") + kind + "): " + strerrorname_np(err), err};
  }
  // Regular files never block; clear O_NONBLOCK anyway so reads behave as documented.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

Result<std::string> readRegularFile(const std::string& path, std::string_view what, std::size_t maxBytes) {
  const std::string subject(what);
  auto opened = openRegularFile(path);
  if (!opened) return Error{"cannot open " + subject + ": " + opened.error().message, opened.error().errnum};
  const int fd = *opened;
  std::string text;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return Error{"cannot read " + subject + ": " + errnoText(err), err};
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > maxBytes) {
      ::close(fd);
      return Error{subject + " is larger than " + std::to_string(maxBytes >> 20) + " MiB", EFBIG};
    }
  }
  ::close(fd);
  return text;
}

}  // namespace fabricmon
