#pragma once
// Logs a per-file failure once when it starts and once when it stops, not on every poll
// (docs/architecture.md, "Errors").

#include <string>
#include <string_view>
#include <unordered_map>

#include "model/result.hpp"

namespace fabricmon {

class ErrorTracker {
 public:
  explicit ErrorTracker(std::string collector) : collector_(std::move(collector)) {}

  /// Returns true when this is the start of a failure (and logs it).
  bool failed(std::string_view key, const Error& error);
  /// Returns true when this ends a failure (and logs the recovery).
  bool recovered(std::string_view key);
  size_t failingCount() const { return failing_.size(); }
  /// Forgets keys not touched since the last call (a vanished device must not pin memory).
  void sweep();

 private:
  struct Entry {
    std::string message;
    bool touched = true;
  };
  // Transparent hashing: the per-read recovered() check looks up a string_view without allocating.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::string collector_;
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> failing_;
};

}  // namespace fabricmon
