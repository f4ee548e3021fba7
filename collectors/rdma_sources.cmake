# Sources of the sysfs RDMA group (topology discovery, rdma_port, pma_counters, hw_counters, netdev_link,
# port_topology, pcie_aer, nic_temperature and its hwmon source), and devlink_health (its source
# reads devlink netlink or a capture file; its functions are the RDMA devices' PCI addresses).
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_slot_groups.cpp
  ${CMAKE_CURRENT_LIST_DIR}/topology_discovery.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_port_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pma_counter_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hw_counter_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/netdev_link_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_table_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_topology.cpp
  ${CMAKE_CURRENT_LIST_DIR}/port_roles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/port_topology_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pcie_aer_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pcie_aer_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/hwmon_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nic_temperature_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/devlink_health_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/devlink_health_collector.cpp
)

# The MAD group: libibumad/libibmad (Debian: libibumad-dev, libibmad-dev).
target_sources(fabricmon_collectors PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sources/mad_fields.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sources/umad_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/peer_port_collector.cpp
)
target_link_libraries(fabricmon_collectors PUBLIC ibmad ibumad)
