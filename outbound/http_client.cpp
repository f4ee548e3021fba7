#include "outbound/http_client.hpp"

#include <cerrno>
#include <fstream>
#include <memory>
#include <sstream>

#include "outbound/curl_library.hpp"

namespace fabricmon {
namespace {

struct Sink {
  std::string* body;
  size_t max;
  bool overflow = false;
};

size_t writeBody(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t n = size * count;
  if (sink->body->size() + n > sink->max) {
    sink->overflow = true;
    return 0;  // makes curl fail the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

}  // namespace

Result<HttpResponse> httpRequest(const std::string& method, const std::string& url,
                                 const HttpClientOptions& options, const std::string& body,
                                 const std::string& contentType, size_t maxBody,
                                 const std::atomic<bool>* cancel) {
  auto loaded = curlLibrary();
  if (!loaded) return loaded.error();
  const CurlLibrary& c = **loaded;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(c.easyInit(), c.easyCleanup);
  if (!curl) return Error{"http client: curl_easy_init failed", ENOMEM};
  CURL* h = curl.get();
  HttpResponse response;
  Sink sink{&response.body, maxBody};
  char errbuf[CURL_ERROR_SIZE] = {0};
  c.easySetopt(h, CURLOPT_URL, url.c_str());
  c.easySetopt(h, CURLOPT_ERRORBUFFER, errbuf);
  c.easySetopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  c.easySetopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  c.easySetopt(h, CURLOPT_PROXY, "");  // ignore http_proxy and friends
  c.easySetopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  c.easySetopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.timeout.count()));
  c.easySetopt(h, CURLOPT_WRITEFUNCTION, &writeBody);
  c.easySetopt(h, CURLOPT_WRITEDATA, &sink);
  c.easySetopt(h, CURLOPT_USERAGENT, "fabricmon");
  if (options.caFile) c.easySetopt(h, CURLOPT_CAINFO, options.caFile->c_str());
  if (options.certFile) c.easySetopt(h, CURLOPT_SSLCERT, options.certFile->c_str());
  if (options.keyFile) c.easySetopt(h, CURLOPT_SSLKEY, options.keyFile->c_str());
  if (options.insecureSkipVerify) {
    c.easySetopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    c.easySetopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (options.username) {
    c.easySetopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    c.easySetopt(h, CURLOPT_USERNAME, options.username->c_str());
    c.easySetopt(h, CURLOPT_PASSWORD, options.password.c_str());
  }
  curl_slist* headers = nullptr;
  if (options.bearerToken) {
    headers = c.slistAppend(headers, ("Authorization: Bearer " + *options.bearerToken).c_str());
  }
  if (!contentType.empty()) headers = c.slistAppend(headers, ("Content-Type: " + contentType).c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headerList(headers, c.slistFreeAll);
  if (headers) c.easySetopt(h, CURLOPT_HTTPHEADER, headers);
  if (method == "POST") {
    c.easySetopt(h, CURLOPT_POST, 1L);
    c.easySetopt(h, CURLOPT_POSTFIELDS, body.data());
    c.easySetopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  } else if (method != "GET") {
    c.easySetopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  CURLcode rc = CURLE_OK;
  if (cancel == nullptr) {
    rc = c.easyPerform(h);
  } else {
    // The multi interface, so that a cancel is seen within kCancelPoll rather than at libcurl's
    // next progress callback (about once a second while a server says nothing).
    constexpr int kCancelPollMs = 50;
    std::unique_ptr<CURLM, CURLMcode (*)(CURLM*)> multi(c.multiInit(), c.multiCleanup);
    if (!multi) return Error{"http client: curl_multi_init failed", ENOMEM};
    c.multiAddHandle(multi.get(), h);
    int running = 1;
    while (running > 0 && !cancel->load()) {
      if (c.multiPerform(multi.get(), &running) != CURLM_OK) break;
      if (running > 0) c.multiPoll(multi.get(), nullptr, 0, kCancelPollMs, nullptr);
    }
    rc = CURLE_ABORTED_BY_CALLBACK;
    int queued = 0;
    while (CURLMsg* msg = c.multiInfoRead(multi.get(), &queued)) {
      if (msg->msg == CURLMSG_DONE) rc = msg->data.result;
    }
    c.multiRemoveHandle(multi.get(), h);
  }
  if (sink.overflow) {
    return Error{method + " " + url + ": response larger than " + std::to_string(maxBody) + " bytes", EMSGSIZE};
  }
  if (rc != CURLE_OK) {
    const std::string why = errbuf[0] != 0 ? errbuf : c.easyStrerror(rc);
    const int errnum = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT
                       : rc == CURLE_COULDNT_CONNECT  ? ECONNREFUSED
                                                      : EIO;
    return Error{method + " " + url + ": " + why, errnum};
  }
  c.easyGetinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

Result<std::string> httpGet(const std::string& url, const HttpClientOptions& options, size_t maxBody) {
  auto r = httpRequest("GET", url, options, {}, {}, maxBody);
  if (!r) return r.error();
  if (r->status == 200) return std::move(r->body);
  std::string why = r->body.substr(0, 300);
  while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
  return Error{"GET " + url + ": HTTP " + std::to_string(r->status) + (why.empty() ? "" : ": " + why),
               r->status == 401 || r->status == 403 ? EACCES : EIO};
}

Result<std::string> readSecretFile(const std::string& key, const std::string& path) {
  std::ifstream in(path);
  if (!in) return sysError(key + ": cannot read " + path, errno ? errno : ENOENT);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return Error{key + ": " + path + " is empty", EINVAL};
  return s.substr(b, e - b + 1);
}

std::string urlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace fabricmon
