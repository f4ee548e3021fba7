#pragma once
// Helpers for the qos tests: a temporary directory, file writing, the ttar unpacker for the
// captured sysfs trees (tests/fixtures/qos/*.ttar) and sample lookup.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/sample.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon::qos_test {

using TempDir = fabricmon::testing::TempDir;

void writeFile(const std::filesystem::path& path, std::string_view content);

/// Unpacks a ttar archive (prometheus/procfs ttar: `Path:`/`Lines:`/content/`Mode:` blocks,
/// `Directory:`, `SymlinkTo:`, an `EOF` suffix on the last line = no trailing newline) below
/// `dest`. Returns an error message, or "" on success.
std::string unpackTtar(const std::filesystem::path& archive, const std::filesystem::path& dest);

/// The value of the sample whose series key is `key`; nullopt when absent; fails the test when
/// twice.
std::optional<double> valueOf(const std::vector<Sample>& samples, std::string_view key);

/// How many samples belong to `family`.
size_t countFamily(const std::vector<Sample>& samples, std::string_view family);

/// How many file descriptors this process has open (entries of /proc/self/fd).
size_t openFdCount();

/// Writes `content` to a new file beside `path` and renames it over `path`, the way an atomic
/// config update replaces a file (a descriptor kept on the old file keeps reading the old bytes).
void replaceFile(const std::filesystem::path& path, std::string_view content);

}  // namespace fabricmon::qos_test
