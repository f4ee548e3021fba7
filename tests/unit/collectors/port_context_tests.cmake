# A port's context: where it sits on the host (host topology, roles and rails over a built PCI
# tree) and the switch it faces over LLDP (the json0 parser on a real lldpd capture, the lldpcli
# runner against stand-in programs, the lldp_neighbors collector over a fake source). The LLDP
# collector against a real lldpd across two namespaces is tests/deploy/lldp_netns_test.sh. The PCI
# function's own health: its PCIe AER counters (its temperature sensors and devlink health
# reporters: nic_temperature_test.cpp, devlink_health_test.cpp, in the default group of CMakeLists.txt).
add_executable(port_context_test
  ${CMAKE_CURRENT_LIST_DIR}/lldp_json_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lldpcli_source_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lldp_neighbor_collector_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_topology_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pcie_aer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/local_jobs_test.cpp
)
target_compile_definitions(port_context_test PRIVATE FABRICMON_FIXTURE_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
target_link_libraries(port_context_test PRIVATE fabricmon_collectors GTest::gtest_main)
if(TARGET fabricmon_config)
  target_link_libraries(port_context_test PRIVATE fabricmon_config)
endif()
gtest_discover_tests(port_context_test)
