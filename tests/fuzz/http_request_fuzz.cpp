// The HTTP request path of the exporter (exporters/http_server.cpp) without a socket: the bytes of
// a request through Boost.Beast's parser with the server's limits, then what the server reads from
// it: the target and its query (the window API's, exporters/window_json.hpp), the handler it is
// recorded under, the Authorization header (basic auth) and Accept-Encoding.
#include <boost/beast/http.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "exporters/accept_encoding.hpp"
#include "exporters/basic_auth.hpp"
#include "exporters/http_server.hpp"
#include "exporters/request_durations.hpp"
#include "exporters/window_json.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "window/recent_samples.hpp"

using namespace fabricmon;
namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HttpServerOptions defaults;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(defaults.maxRequestBytes));
  parser.body_limit(defaults.maxRequestBytes);
  parser.eager(true);
  boost::beast::error_code ec;
  const size_t used = parser.put(boost::asio::buffer(data, size), ec);
  FUZZ_CHECK(used <= size);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_header_done()) return 0;
  const auto& req = parser.get();

  // As HttpSession::route splits it.
  std::string_view target(req.target().data(), req.target().size());
  const size_t queryAt = target.find('?');
  const std::string_view query =
      queryAt == std::string_view::npos ? std::string_view() : target.substr(queryAt + 1);
  target = target.substr(0, queryAt);
  (void)RequestDurations::handlerFor(target);

  const auto auth = req[http::field::authorization];
  if (auto credentials = parseBasicAuthorization(std::string_view(auth.data(), auth.size()))) {
    FUZZ_CHECK(credentials->user.find(':') == std::string::npos);
  }
  const auto accept = req[http::field::accept_encoding];
  (void)acceptsGzip(std::string_view(accept.data(), accept.size()));

  if (auto q = parseWindowQuery(query)) {
    static const RecentSamples empty;
    const std::string json = renderWindowJson(empty, *q);
    FUZZ_CHECK(!json.empty() && json.front() == '{');
  }
  return 0;
}
