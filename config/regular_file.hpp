#pragma once
// Files the daemon reads whole at start or reload (the config, the web-config, certificates).

#include <cstddef>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace fabricmon {

/// Opens a file the daemon reads whole at start or reload (config, web-config, certificates):
/// O_RDONLY|O_CLOEXEC, without blocking, and only if it is a regular file, so a FIFO, a device or
/// a directory is refused at once with a message saying what it is. The caller closes the fd.
Result<int> openRegularFile(const std::string& path);

/// The whole of a regular file of at most `maxBytes` (openRegularFile's checks). Errors say what
/// failed about `what` ("cannot open config file: ...", "config file is larger than 1 MiB").
Result<std::string> readRegularFile(const std::string& path, std::string_view what, std::size_t maxBytes = 1 << 20);

/// strerror text and errno name: "No such file or directory (ENOENT)".
std::string errnoText(int errnum);

}  // namespace fabricmon
