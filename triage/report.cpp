#include "triage/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace fabricmon::triage {
namespace {

const char* colourOf(State s) {
  switch (s) {
    case State::kProblem: return "\033[1;31m";
    case State::kSuspicious: return "\033[33m";
    case State::kOk: return "\033[32m";
    case State::kNoData: return "\033[2m";
  }
  return "";
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string numbersText(const CheckResult& c) {
  std::string out;
  for (const auto& [k, v] : c.numbers) out += (out.empty() ? "" : ", ") + k + " " + v;
  return out;
}

void appendNode(std::string& out, const Verdict& v, bool colour, const std::string& indent) {
  const std::string reset = colour ? "\033[0m" : "";
  const CheckResult* cause = v.wrong ? &v.ranked.front() : nullptr;
  if (cause) {
    out += indent + "VERDICT: " + (colour ? colourOf(State::kProblem) : "") + cause->title + reset +
           (cause->where.empty() ? "" : " on " + cause->where) + "\n";
    out += indent + "  " + cause->summary + "\n";
    const std::string nums = numbersText(*cause);
    if (!nums.empty()) out += indent + "  numbers: " + nums + "\n";
    out += indent + "  next: " + cause->action + "\n";
    if (!v.jobsHit.empty()) {
      std::string jobs;
      for (const auto& j : v.jobsHit) jobs += (jobs.empty() ? "" : ", ") + j;
      out += indent + "  jobs hit: " + jobs + "\n";
    }
  } else {
    out += indent + "VERDICT: " + (colour ? colourOf(State::kOk) : "") + "nothing wrong" + reset +
           ": no check is a problem\n";
  }
  out += indent + "checks (" + (cause ? "the cause first, then " : "") + "runbook order):\n";
  size_t titleWidth = 0;
  for (const auto& c : v.ranked) titleWidth = std::max(titleWidth, c.title.size());
  for (const auto& c : v.ranked) {
    if (&c == cause) continue;
    const std::string state(stateName(c.state));
    out += indent + "  " + std::to_string(c.step) + ". " + pad(c.title, titleWidth) + "  " +
           (colour ? colourOf(c.state) : "") + pad(state, 10) + reset + "  " +
           (c.where.empty() ? "" : c.where + ": ") + c.summary;
    const std::string nums = numbersText(c);
    if (!nums.empty() && c.state != State::kNoData) out += " (" + nums + ")";
    out += "\n";
  }
}

nlohmann::json checkJson(const CheckResult& c) {
  nlohmann::json j = {{"id", c.id}, {"title", c.title}, {"step", c.step}, {"state", std::string(stateName(c.state))},
                      {"where", c.where}, {"summary", c.summary}, {"action", c.action}};
  nlohmann::json nums = nlohmann::json::object();
  for (const auto& [k, v] : c.numbers) nums[k] = v;
  j["numbers"] = nums;
  return j;
}

nlohmann::json verdictJson(const Verdict& v) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : v.ranked) checks.push_back(checkJson(c));
  return {{"source", v.source},
          {"window_seconds", v.windowSeconds},
          {"wrong", v.wrong},
          {"cause", v.wrong ? nlohmann::json(v.ranked.front().id) : nlohmann::json(nullptr)},
          {"checks", checks},
          {"jobs_hit", v.jobsHit}};
}

}  // namespace

bool FleetVerdict::wrong() const {
  for (const auto& v : ranked) {
    if (v.wrong) return true;
  }
  return false;
}

std::string renderText(const Verdict& v, bool colour) {
  char head[256];
  std::snprintf(head, sizeof head, "fabricmon triage: %s (last %.0f s)\n", v.source.c_str(), v.windowSeconds);
  std::string out = head;
  appendNode(out, v, colour, "");
  return out;
}

std::string renderJson(const Verdict& v) { return verdictJson(v).dump(2) + "\n"; }

std::string renderText(const FleetVerdict& f, bool colour) {
  char head[512];
  std::snprintf(head, sizeof head, "fabricmon triage: %s, %zu node(s) (last %.0f s)\nSCOPE: %s%s\n", f.source.c_str(),
                f.nodes, f.windowSeconds, f.scope.c_str(),
                f.scopeReason.empty() ? "" : (" (" + f.scopeReason + ")").c_str());
  std::string out = head;
  size_t shown = 0;
  for (const auto& v : f.ranked) {
    if (!v.wrong && shown > 0) continue;  // healthy nodes after the sick ones: summarised below
    out += "\n== " + v.source + "\n";
    appendNode(out, v, colour, "");
    ++shown;
  }
  size_t healthy = 0;
  for (const auto& v : f.ranked) healthy += !v.wrong;
  if (f.wrong() && healthy > 0) out += "\n" + std::to_string(healthy) + " other node(s): nothing wrong\n";
  return out;
}

std::string renderJson(const FleetVerdict& f) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& v : f.ranked) nodes.push_back(verdictJson(v));
  nlohmann::json j = {{"source", f.source}, {"window_seconds", f.windowSeconds}, {"scope", f.scope},
                      {"scope_reason", f.scopeReason}, {"node_count", f.nodes}, {"wrong", f.wrong()},
                      {"nodes", nodes}};
  return j.dump(2) + "\n";
}

}  // namespace fabricmon::triage
