#include "exporters/status_page.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace fabricmon {
namespace {

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

StatusPage::StatusPage(const std::string& javascriptDir) {
  dygraphJs_ = readWhole(javascriptDir + "/dygraphs/dygraph.min.js");
  dygraphCss_ = readWhole(javascriptDir + "/dygraphs/dygraph.min.css");
  if (dygraphJs_.empty()) {
    spdlog::warn("status page: {}/dygraphs/dygraph.min.js not readable (Debian package libjs-dygraphs); "
                 "the page shows no charts",
                 javascriptDir);
  }
}

HttpReply StatusPage::page() const {
  return {200, "text/html; charset=utf-8", std::string(status_assets::kIndexHtml)};
}

HttpReply StatusPage::asset(std::string_view name) const {
  if (name == "status.js") return {200, "text/javascript; charset=utf-8", std::string(status_assets::kStatusJs)};
  if (name == "status.css") return {200, "text/css; charset=utf-8", std::string(status_assets::kStatusCss)};
  if (name == "dygraph.min.js" && !dygraphJs_.empty()) return {200, "text/javascript; charset=utf-8", dygraphJs_};
  if (name == "dygraph.min.css" && !dygraphCss_.empty()) return {200, "text/css; charset=utf-8", dygraphCss_};
  return {404, "text/plain; charset=utf-8", "not found\n"};
}

}  // namespace fabricmon
