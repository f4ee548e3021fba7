# ethtool group: the ethtool stats sources (text files and SIOCETHTOOL), the ethtool_pfc collector,
# its families and one dialect (stat-name table) per driver.
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_file_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_ioctl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_pfc_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects/dialect.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects/mlx5.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects/bnxt_en.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects/ice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects/ionic.cpp
)
# transceiver group: module EEPROM sources (image files, ethtool ioctl/netlink), the decoders of
# SFF-8472 / SFF-8636 / CMIS and the transceiver collector.
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/module_eeprom_file_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/module_eeprom_ioctl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/module_eeprom_netlink.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_collector.cpp
)
