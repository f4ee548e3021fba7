#pragma once
// The `alertmanager:` config turned into what the pusher needs: secrets read from their files and
// the `instance` label Prometheus would give this node. Run before a (re)load commits, so a
// missing password file rejects the reload and the running push keeps going.

#include <cstdint>

#include "config/config.hpp"
#include "exporters/alertmanager_pusher.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// A password or token file as Prometheus reads one: the whole file, surrounding whitespace
/// trimmed; empty is an error. `key` (the dotted config key) prefixes the messages.
Result<std::string> readSecretFile(const std::string& key, const std::string& path);

/// `port` is the bound HTTP port (instance = HOSTNAME:PORT unless alertmanager.instance is set).
Result<AlertmanagerTarget> alertmanagerTarget(const Config& config, uint16_t port);

}  // namespace fabricmon
