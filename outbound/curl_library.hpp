#pragma once
// libcurl, loaded when the first outbound request is made rather than at start-up. The daemon makes
// outbound requests only when alerting.alertmanager is configured, and libcurl brings about two
// dozen shared libraries (GnuTLS, Kerberos, LDAP, SSH, RTMP, ...) whose mapped pages were ~4 MiB of
// the daemon's resident memory (docs/benchmarks.md, "Shared libraries"). Types and constants come
// from <curl/curl.h>; the functions from libcurl.so.4 (the soname of Debian's libcurl4 package).

#include <curl/curl.h>

#include "model/result.hpp"

namespace fabricmon {

/// The libcurl entry points the HTTP client calls.
struct CurlLibrary {
  CURLcode (*globalInit)(long flags);
  CURL* (*easyInit)();
  void (*easyCleanup)(CURL*);
  CURLcode (*easySetopt)(CURL*, CURLoption, ...);
  CURLcode (*easyPerform)(CURL*);
  CURLcode (*easyGetinfo)(CURL*, CURLINFO, ...);
  const char* (*easyStrerror)(CURLcode);
  curl_slist* (*slistAppend)(curl_slist*, const char*);
  void (*slistFreeAll)(curl_slist*);
  CURLM* (*multiInit)();
  CURLMcode (*multiCleanup)(CURLM*);
  CURLMcode (*multiAddHandle)(CURLM*, CURL*);
  CURLMcode (*multiRemoveHandle)(CURLM*, CURL*);
  CURLMcode (*multiPerform)(CURLM*, int*);
  CURLMcode (*multiPoll)(CURLM*, curl_waitfd*, unsigned, int, int*);
  CURLMsg* (*multiInfoRead)(CURLM*, int*);
};

/// libcurl, loaded and initialised (curl_global_init) once per process on the first call; an error
/// naming the library when it cannot be loaded or lacks a function. Thread-safe.
Result<const CurlLibrary*> curlLibrary();

}  // namespace fabricmon
