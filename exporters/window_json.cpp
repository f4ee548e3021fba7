#include "exporters/window_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "exporters/findings_json.hpp"

namespace fabricmon {

void appendJsonNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

Result<RecentSamples::Query> parseWindowQuery(std::string_view query) {
  RecentSamples::Query q;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string_view name = part.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
    if (name == "seconds") {
      int seconds = 0;
      const auto res = std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (res.ec != std::errc() || res.ptr != value.data() + value.size() || seconds < 1 ||
          seconds > kMaxWindowSeconds) {
        return Error{"seconds must be a whole number from 1 to " + std::to_string(kMaxWindowSeconds), EINVAL};
      }
      q.window = std::chrono::seconds(seconds);
    } else if (name == "family") {
      const auto kept = RecentSamples::keptFamilies();
      if (std::none_of(kept.begin(), kept.end(),
                       [&](const FamilyDef* f) { return f->name == value; })) {
        return Error{"family is not kept in the recent history (see docs/contract.md)", EINVAL};
      }
      q.family = std::string(value);
    } else if (name == "device" || name == "port" || name == "interface") {
      // One port's series (the status page's and triage's unit); label values are plain names.
      if (value.empty() || value.find_first_of("%+\"\\") != std::string_view::npos) {
        return Error{std::string(name) + " must be a plain name", EINVAL};
      }
      for (const auto& [k, v] : q.labels) {
        if (k == name) return Error{std::string(name) + " given twice", EINVAL};
      }
      q.labels.emplace_back(std::string(name), std::string(value));
    } else if (name == "points") {
      if (value != "1" && value != "0" && value != "true" && value != "false") {
        return Error{"points must be 1 or 0", EINVAL};
      }
      q.points = value == "1" || value == "true";
    } else {
      return Error{"unknown parameter (use seconds, family, device, port, interface, points)", EINVAL};
    }
  }
  return q;
}

std::string renderWindowJson(const RecentSamples& recent, const RecentSamples::Query& query) {
  const auto windows = recent.window(query);
  std::string out = "{\"seconds\":" + std::to_string(query.window.count()) + ",\"covered_seconds\":";
  appendJsonNumber(out, std::min<double>(recent.coveredSeconds(), double(query.window.count())));
  out += ",\"poll_seconds\":";
  appendJsonNumber(out, recent.pollSeconds());
  out += ",\"series\":[";
  bool firstSeries = true;
  for (const auto& w : windows) {
    if (!firstSeries) out += ',';
    firstSeries = false;
    out += "{\"name\":";
    appendJsonString(out, w.series->family->name);
    out += ",\"labels\":{";
    bool first = true;
    for (const auto& [k, v] : w.series->labels()) {
      if (!first) out += ',';
      first = false;
      appendJsonString(out, k);
      out += ':';
      appendJsonString(out, v);
    }
    out += "},\"type\":";
    out += w.counter ? "\"counter\"" : "\"gauge\"";
    out += ",\"samples\":" + std::to_string(w.samples);
    const std::pair<const char*, double> fields[] = {
        {"span_seconds", w.seconds}, {"increase", w.increase}, {"rate", w.rate},
        {"peak_rate", w.peakRate},   {"refresh_seconds", w.refreshSeconds},
        {"last", w.last},            {"min", w.min},           {"max", w.max}};
    for (const auto& [name, value] : fields) {
      if (!w.counter && (std::string_view(name) == "increase" || std::string_view(name) == "rate" ||
                         std::string_view(name) == "peak_rate" || std::string_view(name) == "refresh_seconds")) {
        continue;
      }
      out += ",\"";
      out += name;
      out += "\":";
      appendJsonNumber(out, value);
    }
    if (query.points) {
      out += ",\"points\":[";
      for (size_t i = 0; i < w.points.size(); ++i) {
        if (i > 0) out += ',';
        out += '[';
        char buf[32];
        const auto res = std::to_chars(buf, buf + sizeof buf, w.points[i].t, std::chars_format::fixed, 3);
        out.append(buf, res.ptr);
        out += ',';
        appendJsonNumber(out, w.points[i].v);
        out += ']';
      }
      out += ']';
    }
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace fabricmon
