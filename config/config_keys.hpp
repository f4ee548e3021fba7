#pragma once
// Every key of the config file's core sections (web, sources, poll, ...), declared through a
// SettingsBinder as the rules declare theirs: the one way keys are declared (docs/configuration.md
// documents them in the same order). Internal to config/.

#include "config/config.hpp"

namespace fabricmon::config_detail {

/// The top level of the file: each section and its keys, bound to `config`; the rules' sections
/// and the `collectors.<name>` sections come from `schema`.
void bindConfig(SettingsBinder& b, Config& config, const ConfigSchema& schema);

}  // namespace fabricmon::config_detail
