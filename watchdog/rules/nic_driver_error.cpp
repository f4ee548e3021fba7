// nic_driver_error: the kernel logged a fatal or recoverable error about a NIC fabricmon watches
// (nic_driver_log, collectors/nic_driver_messages.cpp). Judged from the latest record per function
// and pattern (fabricmon_nic_driver_last_record_timestamp_seconds); the record's text travels as the
// series' note (Batch::notes), never as a label. A fatal-class record is critical, a recoverable one
// a warning; info-class records (a probe, a clean reload) raise nothing. The finding clears once
// `quiet_period` passed without another record of that pattern.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "watchdog/rules/nic_driver_error.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {

std::string findingText(std::string_view message, size_t limit) {
  std::string out;
  out.reserve(std::min(message.size(), limit) + 3);
  for (unsigned char c : message) {
    char piece[5];
    size_t n = 0;
    if (c < 0x20 || c >= 0x7f) {
      n = static_cast<size_t>(std::snprintf(piece, sizeof piece, "\\x%02x", c));
    } else if (c == '"' || c == '\\') {
      piece[0] = '\\';
      piece[1] = static_cast<char>(c);
      n = 2;
    } else {
      piece[0] = static_cast<char>(c);
      n = 1;
    }
    if (out.size() + n > limit) {
      out += "...";
      return out;
    }
    out.append(piece, n);
  }
  return out;
}

namespace {

// How long ago the record was logged: since the watchdog saw it arrive (the steady clock), or since
// the kernel logged it (the record's time, on the wall clock) when that is longer. A function that
// comes back after a driver reload or a firmware reset brings its tallies back as new series, which
// the history starts afresh as if their records had just arrived; the record's own time says a
// fatal error from three days ago is no news. A wall clock stepped back never makes a record
// younger than the steady clock says; one stepped forward ages it early (docs/rules.md).
double recordAge(const RuleContext& ctx, const Tracked& s) {
  const double seen = double(ctx.now - s.changedT) / kSecond;
  const double wall = std::chrono::duration<double>(ctx.wallNow.time_since_epoch()).count();
  return std::max(seen, wall - s.raw);
}

void judge(RuleContext& ctx, const Tracked& s, const Subject& subject, Severity severity, Nanos quiet) {
  Verdict v;
  v.judged = true;
  v.stamp = s.t;
  const double age = recordAge(ctx, s);
  v.fire = age < double(quiet) / kSecond;
  v.clear = !v.fire;
  v.evidence.add("seconds_since_record", age);
  v.evidence.add("record_unix_seconds", s.raw);
  v.evidence.add("quiet_period_seconds", double(quiet) / kSecond);
  if (v.fire) {
    std::string where = std::string(s.label("device"));
    if (!subject.port.empty()) where += fmt::format(" port {}", subject.port);
    if (!subject.interface.empty()) {
      where += where.empty() ? std::string(subject.interface) : fmt::format(" ({})", subject.interface);
    }
    v.summary = fmt::format("{} {} on {} {}: {} record \"{}\"", s.label("driver"), s.label("pattern"),
                            s.label("pci_address"), where, s.label("severity"), findingText(s.note()));
  }
  ctx.observe(s.label("pattern"), severity, subject, Policy{}, v);
}

// Records the ring overwrote before the collector read them: a fatal one among them was never
// judged. Not about a NIC (the kernel log is the node's), so the finding names none.
void judgeLostRecords(RuleContext& ctx, Nanos quiet) {
  const auto lost = ctx.history.family(Fam::kKernelLogLost);
  if (lost.empty() || !ctx.ready(lost.front())) return;
  const Tracked& s = *lost.front();
  Verdict v;
  v.judged = true;
  v.stamp = s.t;
  v.fire = s.increasedWithin(quiet);
  v.clear = !v.fire;
  v.evidence.add("lost_records_total", s.raw);
  v.evidence.add("quiet_period_seconds", double(quiet) / kSecond);
  if (v.fire) {
    v.summary = fmt::format(
        "the kernel log overran: records were overwritten before fabricmon read them ({:.0f} since it started), "
        "so a NIC driver error among them went unseen; read dmesg, and raise log_buf_len if it recurs",
        s.raw);
  }
  ctx.observe(kKernelLogLostReason, Severity::kWarning, Subject{}, Policy{}, v);
}

void evaluateNicDriverError(RuleContext& ctx, const NicDriverErrorRule& rule) {
  const Nanos quiet = toNanos(rule.quietPeriod);
  for (const Tracked* s : ctx.history.family(Fam::kNicDriverLastRecord)) {
    if (s->changedT == kNever) continue;
    const std::string_view cls = s->label("severity");
    Severity severity;
    if (cls == "fatal") {
      severity = Severity::kCritical;
    } else if (cls == "recoverable") {
      severity = Severity::kWarning;
    } else {
      continue;  // info: what a healthy probe or a clean reload logs
    }
    // A function with several ports: its record concerns each of them.
    ctx.forEachNicSubject(*s, [&](const Subject& subject) { judge(ctx, *s, subject, severity, quiet); });
  }
  judgeLostRecords(ctx, quiet);
}

void planNicDriverError(const NicDriverErrorRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kNicDriverErrorRule =
    defineRule<NicDriverErrorRule, planNicDriverError, evaluateNicDriverError>("nic_driver_error", "nic_health");

}  // namespace fabricmon::watchdog
