#pragma once
// Loading and validating the YAML config (docs/configuration.md). Every problem in a file is
// reported in one pass, each with its position and dotted key, so an operator fixes them all at
// once.

#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// One problem in a config file.
struct ConfigError {
  std::string file;
  int line = 0;     ///< 1-based; 0 when the problem has no position (the file could not be read)
  int column = 0;   ///< 1-based; 0 when line is 0
  std::string key;  ///< dotted key (`poll.interval`, `devices.include[1]`); "" for syntax errors
  std::string message;

  /// `file:line:column: key: message`; the position and key parts are left out when absent.
  std::string format() const;
};

/// The result of a load: `config` is only meaningful when ok(); with errors it holds the defaults
/// wherever a value was rejected.
struct ConfigLoad {
  Config config;
  std::vector<ConfigError> errors;  ///< sorted by line, then column

  bool ok() const { return errors.empty(); }
};

/// Reads and validates a file. A file that cannot be read gives one error naming the file and the
/// reason. Throws nothing.
ConfigLoad loadConfigFile(const std::string& path, const ConfigSchema& schema);

/// Opens a file the daemon reads whole at start or reload (config, web-config, certificates):
/// O_RDONLY|O_CLOEXEC, without blocking, and only if it is a regular file, so a FIFO, a device or
/// a directory is refused at once with a message saying what it is. The caller closes the fd.
Result<int> openRegularFile(const std::string& path);

/// Validates YAML text; `fileName` only labels the errors, `schema` names the rules and collectors
/// (daemon/config_schema.hpp builds it from their tables). Empty or comment-only text gives the
/// defaults. Throws nothing.
ConfigLoad loadConfigText(std::string_view text, std::string_view fileName, const ConfigSchema& schema);

/// The checks that involve more than one key, on a config assembled in code (command-line flags
/// applied over a file): the same checks loading runs, so a flag cannot break what a file may not.
/// Errors name their keys and `origin`; they have no position.
std::vector<ConfigError> validateConfig(const Config& config, const ConfigSchema& schema, std::string_view origin);

}  // namespace fabricmon
