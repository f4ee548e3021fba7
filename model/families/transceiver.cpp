#include "model/families/transceiver.hpp"

#include <array>

namespace fabricmon::families::transceiver {

using enum MetricType;

const FamilyDef kInfo{
    "fabricmon_transceiver_info",
    "The module in the interface's cage, from its EEPROM; always 1. type is the SFF-8024 "
    "identifier "
    "(SFP, QSFP28, QSFP-DD, OSFP, ...), spec the memory map decoded (sff8472, sff8636, cmis), "
    "media "
    "optical|passive_copper|active_copper|base_t|unknown, cable_length_meters for cable "
    "assemblies, "
    "dom=\"true\" when the module reports digital diagnostics, checksum ok|bad (the ID checksums).",
    kGauge, "1",
    "interface,type,spec,vendor,part_number,serial_number,revision,connector,media,cable_length_"
    "meters,"
    "dom,checksum"};
const FamilyDef kTemperature{"fabricmon_transceiver_temperature_celsius",
                             "Module temperature, from its digital diagnostics (DOM).", kGauge,
                             "celsius", "interface"};
const FamilyDef kSupplyVoltage{"fabricmon_transceiver_supply_voltage_volts",
                               "Module supply voltage (Vcc), from its digital diagnostics.", kGauge,
                               "volts", "interface"};
const FamilyDef kTxBias{
    "fabricmon_transceiver_tx_bias_amperes",
    "Laser bias current of one lane (numbered from 1 as ethtool -m prints them).", kGauge,
    "amperes", "interface,lane"};
const FamilyDef kTxPower{"fabricmon_transceiver_tx_power_watts",
                         "Transmitted optical power of one lane, in watts (1 mW = 0 dBm = 0.001).",
                         kGauge, "watts", "interface,lane"};
const FamilyDef kRxPower{
    "fabricmon_transceiver_rx_power_watts",
    "Received optical power of one lane, in watts; 0 is no light on a lane whose "
    "monitor is implemented (lanes without one have no series).",
    kGauge, "watts", "interface,lane"};
const FamilyDef kTemperatureThreshold{
    "fabricmon_transceiver_temperature_threshold_celsius",
    "The module's own temperature alarm and warning thresholds (level high_alarm, high_warning, "
    "low_warning, low_alarm); absent when the module supports none.",
    kGauge, "celsius", "interface,level"};
const FamilyDef kSupplyVoltageThreshold{
    "fabricmon_transceiver_supply_voltage_threshold_volts",
    "The module's own supply voltage alarm and warning thresholds.", kGauge, "volts",
    "interface,level"};
const FamilyDef kTxBiasThreshold{
    "fabricmon_transceiver_tx_bias_threshold_amperes",
    "The module's own laser bias alarm and warning thresholds (every lane).", kGauge, "amperes",
    "interface,level"};
const FamilyDef kTxPowerThreshold{
    "fabricmon_transceiver_tx_power_threshold_watts",
    "The module's own Tx power alarm and warning thresholds (every lane).", kGauge, "watts",
    "interface,level"};
const FamilyDef kRxPowerThreshold{
    "fabricmon_transceiver_rx_power_threshold_watts",
    "The module's own Rx power alarm and warning thresholds (every lane).", kGauge, "watts",
    "interface,level"};
const FamilyDef kFlag{
    "fabricmon_transceiver_flag",
    "The module's latched alarm and warning flags, 0/1: quantity "
    "temperature|supply_voltage|tx_bias|"
    "tx_power|rx_power, level as the thresholds, lane empty for module-level quantities. Latched: "
    "the module clears a flag when it is read, so a 1 means the condition held since the last "
    "read.",
    kGauge, "0/1", "interface,quantity,level,lane"};

const std::array<const FamilyDef*, 12> kAll{&kInfo,
                                            &kTemperature,
                                            &kSupplyVoltage,
                                            &kTxBias,
                                            &kTxPower,
                                            &kRxPower,
                                            &kTemperatureThreshold,
                                            &kSupplyVoltageThreshold,
                                            &kTxBiasThreshold,
                                            &kTxPowerThreshold,
                                            &kRxPowerThreshold,
                                            &kFlag};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::transceiver
