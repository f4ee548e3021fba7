#pragma once
// The `alertmanager:` config turned into what the pusher needs: secrets read from their files and
// the `instance` label Prometheus would give this node. Run before a (re)load commits, so a
// missing password file rejects the reload and the running push keeps going.

#include <cstdint>

#include "config/config.hpp"
#include "exporters/alertmanager_pusher.hpp"
#include "model/result.hpp"
#include "outbound/http_client.hpp"  // readSecretFile

namespace fabricmon {

/// `port` is the bound HTTP port (instance = HOSTNAME:PORT unless alertmanager.instance is set).
Result<AlertmanagerTarget> alertmanagerTarget(const Config& config, uint16_t port);

}  // namespace fabricmon
