# ethtool group: the ethtool stats sources (text files and SIOCETHTOOL) and the ethtool_pfc collector.
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_file_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/ethtool_ioctl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_pfc_collector.cpp
)
