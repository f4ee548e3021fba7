# qos group: DCB sources (YAML files, rtnetlink) and the dcqcn_config / dcb_config collectors.
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/dcb_file_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/dcb_netlink_msg.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/dcb_netlink_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dcqcn_config_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dcb_config_collector.cpp
)
# The DCB files are YAML (docs/contract.md §2); yaml-cpp stays private to the parser.
target_link_libraries(fabricmon_collectors PRIVATE yaml-cpp)
