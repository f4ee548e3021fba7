#include "watchdog/input_families.hpp"

#include <unordered_map>

namespace fabricmon::watchdog {
namespace {

constexpr double kMax4 = 15, kMax8 = 255, kMax16 = 65535, kMax32 = 4294967295.0;

// Order follows enum Fam.
constexpr InputFamily kFamilies[] = {
    {"fabricmon_port_info", {"device", "port", "interface"}, false, 0},
    {"fabricmon_port_state", {"device", "port", ""}, false, 0},
    {"fabricmon_port_physical_state", {"device", "port", ""}, false, 0},
    {"fabricmon_port_rate_bytes_per_second", {"device", "port", ""}, false, 0},
    {"fabricmon_port_symbol_errors_total", {"device", "port", ""}, true, kMax16},
    {"fabricmon_port_link_error_recovery_total", {"device", "port", ""}, true, kMax8},
    {"fabricmon_port_link_downed_total", {"device", "port", ""}, true, kMax8},
    {"fabricmon_port_receive_errors_total", {"device", "port", ""}, true, kMax16},
    {"fabricmon_pma_stat_total", {"device", "port", "counter"}, true, 0},
    {"fabricmon_roce_ecn_marked_packets_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_cnp_sent_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_cnp_handled_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_cnp_ignored_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_out_of_sequence_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_packet_sequence_errors_total", {"device", "port", ""}, true, 0},
    {"fabricmon_roce_local_ack_timeouts_total", {"device", "port", ""}, true, 0},
    {"fabricmon_hw_stat_total", {"device", "port", "counter"}, true, 0},
    {"fabricmon_netdev_up", {"interface", "", ""}, false, 0},
    {"fabricmon_netdev_carrier_changes_total", {"interface", "", ""}, true, 0},
    {"fabricmon_netdev_carrier_down_changes_total", {"interface", "", ""}, true, 0},
    {"fabricmon_pfc_pause_seconds_total", {"interface", "priority", "direction"}, true, 0, 1.0},
    {"fabricmon_pause_storm_warning_events_total", {"interface", "", ""}, true, 0},
    {"fabricmon_pause_storm_error_events_total", {"interface", "", ""}, true, 0},
    {"fabricmon_priority_transmit_packets_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_priority_receive_packets_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_priority_discards_total", {"interface", "priority", "kind"}, true, 0},
    {"fabricmon_priority_ecn_marked_packets_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_phy_link_down_events_total", {"interface", "", ""}, true, 0},
    {"fabricmon_phy_symbol_errors_total", {"interface", "", ""}, true, 0},
    {"fabricmon_dcqcn_np_enabled", {"interface", "priority", ""}, false, 0},
    {"fabricmon_dcqcn_rp_enabled", {"interface", "priority", ""}, false, 0},
    {"fabricmon_dcqcn_parameter", {"interface", "role", "parameter"}, false, 0},
    {"fabricmon_pfc_enabled", {"interface", "priority", ""}, false, 0},
    {"fabricmon_dcb_trust_dscp", {"interface", "", ""}, false, 0},
    {"fabricmon_dcb_dscp_priority", {"interface", "dscp", ""}, false, 0},
    {"fabricmon_pfc_pause_frames_received_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_pfc_pause_frames_transmitted_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_dcb_pfc_indications_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_dcb_pfc_requests_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_device_info", {"device", "", ""}, false, 0},
    {"fabricmon_phy_transmitted_bytes_total", {"interface", "", ""}, true, 0},
    {"fabricmon_pfc_storm_prevention_timeout_seconds", {"interface", "", ""}, false, 0},
    {"fabricmon_global_pause_frames_received_total", {"interface", "", ""}, true, 0},
    {"fabricmon_global_pause_frames_transmitted_total", {"interface", "", ""}, true, 0},
    {"fabricmon_priority_receive_bytes_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_priority_transmit_bytes_total", {"interface", "priority", ""}, true, 0},
    {"fabricmon_rdma_vport_bytes_total", {"interface", "direction", ""}, true, 0},
    {"fabricmon_port_transmit_wait_total", {"device", "port", ""}, true, kMax32},
    {"fabricmon_peer_port_transmit_wait_total", {"device", "port", ""}, true, kMax32},
    {"fabricmon_peer_port_symbol_errors_total", {"device", "port", ""}, true, kMax16},
    {"fabricmon_peer_port_link_error_recovery_total", {"device", "port", ""}, true, kMax8},
    {"fabricmon_peer_port_link_downed_total", {"device", "port", ""}, true, kMax8},
    {"fabricmon_peer_port_receive_errors_total", {"device", "port", ""}, true, kMax16},
    {"fabricmon_peer_pma_stat_total", {"device", "port", "counter"}, true, 0},
    {"fabricmon_port_link_down_observed_total", {"device", "port", ""}, true, 0},
    {"fabricmon_peer_port_link_down_observed_total", {"device", "port", ""}, true, 0},
    {"fabricmon_port_link_width_active_lanes", {"device", "port", ""}, false, 0},
    {"fabricmon_port_link_width_enabled_lanes", {"device", "port", ""}, false, 0},
    {"fabricmon_peer_port_link_width_enabled_lanes", {"device", "port", ""}, false, 0},
    {"fabricmon_port_lane_speed_active_bytes_per_second", {"device", "port", ""}, false, 0},
    {"fabricmon_port_lane_speed_enabled_bytes_per_second", {"device", "port", ""}, false, 0},
    {"fabricmon_peer_port_lane_speed_enabled_bytes_per_second", {"device", "port", ""}, false, 0},
};
static_assert(std::size(kFamilies) == kFamCount);

}  // namespace

const InputFamily& inputFamily(Fam fam) { return kFamilies[static_cast<size_t>(fam)]; }

std::optional<Fam> inputFamilyByName(std::string_view name) {
  static const auto* const kByName = [] {
    auto* m = new std::unordered_map<std::string_view, Fam>();
    for (size_t i = 0; i < kFamCount; ++i) m->emplace(kFamilies[i].name, static_cast<Fam>(i));
    return m;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

bool wanted(Fam fam, std::string_view third, double* saturatesAt) {
  *saturatesAt = inputFamily(fam).saturatesAt;
  switch (fam) {
    case Fam::kPeerPortCounter:
      *saturatesAt = kMax4;
      return third == "local_link_integrity_errors";
    case Fam::kPortCounter:
      // Both are 4-bit PMA counters (IBTA PortCounters; docs/metrics.md).
      *saturatesAt = kMax4;
      return third == "local_link_integrity_errors" || third == "excessive_buffer_overrun_errors";
    case Fam::kHwCounter:
      return third == "roce_adp_retrans";
    case Fam::kDcqcnParameter:
      // OFED ecn/roce_np names and the upstream debugfs cc_params names.
      return third == "cnp_802p_prio" || third == "np_cnp_prio" || third == "cnp_dscp" ||
             third == "np_cnp_dscp";
    default:
      return true;
  }
}

}  // namespace fabricmon::watchdog
