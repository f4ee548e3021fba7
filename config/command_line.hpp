#pragma once
// The flags of a command line (`fabricmon run`, `triage`, `health-check`) read one at a time:
// "--name=value" is the flag "--name" with its value inline; any other argument is the flag
// itself, and a flag that takes a value takes the next argument.

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

class FlagReader {
 public:
  /// Reads `args` from index `first` on.
  explicit FlagReader(const std::vector<std::string>& args, size_t first = 0)
      : args_(args), next_(first) {}

  /// Moves to the next flag; false when none is left.
  bool next() {
    if (next_ >= args_.size()) return false;
    flag_ = args_[next_++];
    inline_.reset();
    if (const auto eq = flag_.find('='); flag_.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_ = flag_.substr(eq + 1);
      flag_.resize(eq);
    }
    return true;
  }

  /// The current flag, without an inline value ("--node").
  const std::string& flag() const { return flag_; }

  /// The current flag's value: the inline one, else the next argument (which is then used up);
  /// an error "--node needs a value" at the end of the line.
  Result<std::string> value() {
    if (inline_) return *inline_;
    if (next_ >= args_.size()) return Error{flag_ + " needs a value", EINVAL};
    return args_[next_++];
  }

 private:
  const std::vector<std::string>& args_;
  size_t next_;
  std::string flag_;
  std::optional<std::string> inline_;
};

}  // namespace fabricmon
