# fec group: the FEC sources (YAML files, ethtool generic netlink) and the fec collector.
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/fec_file_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/fec_netlink_msg.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/fec_netlink_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fec_collector.cpp
)
