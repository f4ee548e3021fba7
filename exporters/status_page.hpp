#pragma once
// The status page at / and its assets under /static/: the page, its script and style are built
// into the binary (exporters/status_page/); the chart library is Debian's libjs-dygraphs, read
// once from /usr/share/javascript at start (Debian policy: no embedded copies of libraries).

#include <string>
#include <string_view>

#include "exporters/http_server.hpp"

namespace fabricmon {

namespace status_assets {
extern const std::string_view kIndexHtml;
extern const std::string_view kStatusJs;
extern const std::string_view kStatusCss;
}  // namespace status_assets

inline constexpr std::string_view kDefaultJavascriptDir = "/usr/share/javascript";

class StatusPage {
 public:
  /// Reads dygraphs from `javascriptDir`/dygraphs; without it the page still works, minus charts.
  explicit StatusPage(const std::string& javascriptDir = std::string(kDefaultJavascriptDir));
  HttpReply page() const;
  /// /static/NAME; 404 for anything else.
  HttpReply asset(std::string_view name) const;
  bool chartsAvailable() const { return !dygraphJs_.empty(); }

 private:
  std::string dygraphJs_, dygraphCss_;
};

}  // namespace fabricmon
