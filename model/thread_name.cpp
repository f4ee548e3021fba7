#include "model/thread_name.hpp"

#include <pthread.h>

#include <array>

namespace fabricmon {

namespace {
constexpr size_t kMaxName = 15;  // TASK_COMM_LEN - 1
}

void nameThisThread(std::string_view name) {
  const std::string cut(name.substr(0, kMaxName));
  ::pthread_setname_np(::pthread_self(), cut.c_str());
}

std::string thisThreadName() {
  std::array<char, kMaxName + 1> buf{};
  if (::pthread_getname_np(::pthread_self(), buf.data(), buf.size()) != 0) return {};
  return std::string(buf.data());
}

}  // namespace fabricmon
