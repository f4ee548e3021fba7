#include "outbound/curl_library.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <mutex>
#include <string>

namespace fabricmon {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr && missing.empty()) missing = symbol;
  return out != nullptr;
}

Result<CurlLibrary> load() {
  // RTLD_NODELETE: the library stays for the process' life (curl_global_cleanup is never called,
  // as before, when it was linked).
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error{std::string("http client: cannot load ") + kSoname + " (Debian package libcurl4): " +
                     (why != nullptr ? why : "unknown error"),
                 ENOENT};
  }
  CurlLibrary lib{};
  std::string missing;
  resolve(handle, "curl_global_init", lib.globalInit, missing);
  resolve(handle, "curl_easy_init", lib.easyInit, missing);
  resolve(handle, "curl_easy_cleanup", lib.easyCleanup, missing);
  resolve(handle, "curl_easy_setopt", lib.easySetopt, missing);
  resolve(handle, "curl_easy_perform", lib.easyPerform, missing);
  resolve(handle, "curl_easy_getinfo", lib.easyGetinfo, missing);
  resolve(handle, "curl_easy_strerror", lib.easyStrerror, missing);
  resolve(handle, "curl_slist_append", lib.slistAppend, missing);
  resolve(handle, "curl_slist_free_all", lib.slistFreeAll, missing);
  resolve(handle, "curl_multi_init", lib.multiInit, missing);
  resolve(handle, "curl_multi_cleanup", lib.multiCleanup, missing);
  resolve(handle, "curl_multi_add_handle", lib.multiAddHandle, missing);
  resolve(handle, "curl_multi_remove_handle", lib.multiRemoveHandle, missing);
  resolve(handle, "curl_multi_perform", lib.multiPerform, missing);
  resolve(handle, "curl_multi_poll", lib.multiPoll, missing);  // libcurl >= 7.66
  resolve(handle, "curl_multi_info_read", lib.multiInfoRead, missing);
  if (!missing.empty()) {
    return Error{std::string("http client: ") + kSoname + " has no " + missing + " (libcurl too old?)", ENOSYS};
  }
  if (const CURLcode rc = lib.globalInit(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return Error{"http client: curl_global_init failed: " + std::string(lib.easyStrerror(rc)), EIO};
  }
  return lib;
}

}  // namespace

Result<const CurlLibrary*> curlLibrary() {
  // Loaded once; a failure is remembered too (the library does not appear while we run).
  static const Result<CurlLibrary> loaded = load();
  if (!loaded) return loaded.error();
  return &*loaded;
}

}  // namespace fabricmon
