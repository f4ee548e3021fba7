#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// the pluggable module in each watched interface's cage (transceiver collector): its identity,
// its digital diagnostics (DOM) in base units, the module's own thresholds and latched flags.
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::transceiver {

extern const FamilyDef kInfo;           // fabricmon_transceiver_info
extern const FamilyDef kTemperature;    // fabricmon_transceiver_temperature_celsius
extern const FamilyDef kSupplyVoltage;  // fabricmon_transceiver_supply_voltage_volts
extern const FamilyDef kTxBias;         // fabricmon_transceiver_tx_bias_amperes
extern const FamilyDef kTxPower;        // fabricmon_transceiver_tx_power_watts
extern const FamilyDef kRxPower;        // fabricmon_transceiver_rx_power_watts
extern const FamilyDef
    kTemperatureThreshold;  // fabricmon_transceiver_temperature_threshold_celsius
extern const FamilyDef
    kSupplyVoltageThreshold;               // fabricmon_transceiver_supply_voltage_threshold_volts
extern const FamilyDef kTxBiasThreshold;   // fabricmon_transceiver_tx_bias_threshold_amperes
extern const FamilyDef kTxPowerThreshold;  // fabricmon_transceiver_tx_power_threshold_watts
extern const FamilyDef kRxPowerThreshold;  // fabricmon_transceiver_rx_power_threshold_watts
extern const FamilyDef kFlag;              // fabricmon_transceiver_flag

/// Every family above.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::transceiver
