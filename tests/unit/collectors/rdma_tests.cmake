# Tests of the sysfs RDMA group: topology discovery and the rdma_port, pma_counters, hw_counters and
# netdev_link collectors over the fixture trees of tests/fixtures (unpacked from ttar at test time).
add_executable(rdma_collectors_test
  ${CMAKE_CURRENT_LIST_DIR}/rdma_test_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_ttar_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/topology_discovery_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_collectors_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_bad_input_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_hardening_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dir_handles_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/netdev_link_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sysfs_table_collector_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export_only_slots_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rdma_golden_test.cpp
)
target_compile_definitions(rdma_collectors_test PRIVATE
  FABRICMON_FIXTURE_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
target_link_libraries(rdma_collectors_test PRIVATE fabricmon_collectors fabricmon_exporters GTest::gtest_main)
# config.hpp is header-only for the collectors; link the config library once it exists.
if(TARGET fabricmon_config)
  target_link_libraries(rdma_collectors_test PRIVATE fabricmon_config)
endif()
gtest_discover_tests(rdma_collectors_test)

# MAD attribute decoding on SMP data captured from ibsim (tests/fixtures/mad/README.md).
add_executable(mad_fields_test ${CMAKE_CURRENT_LIST_DIR}/mad_fields_test.cpp)
target_compile_definitions(mad_fields_test PRIVATE FABRICMON_FIXTURE_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
target_link_libraries(mad_fields_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(mad_fields_test)

# The regeneration command documented in tests/fixtures/README.md runs as written and selects tests.
add_test(NAME golden_regeneration_command
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/golden_command_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})

# The peer_port collector's logic over a fake MadSource (the real fabric: tests/ibsim).
add_executable(peer_port_collector_test ${CMAKE_CURRENT_LIST_DIR}/peer_port_collector_test.cpp)
target_link_libraries(peer_port_collector_test PRIVATE fabricmon_collectors GTest::gtest_main)
if(TARGET fabricmon_config)
  target_link_libraries(peer_port_collector_test PRIVATE fabricmon_config)
endif()
gtest_discover_tests(peer_port_collector_test)
