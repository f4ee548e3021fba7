# qos group: DCB sources, dcqcn_config and dcb_config collectors.
add_executable(qos_test
  ${CMAKE_CURRENT_LIST_DIR}/qos_test_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/qos_dcb_file_source_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/qos_dcb_netlink_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/qos_dcb_netns_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/qos_dcqcn_collector_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/qos_dcb_collector_test.cpp
)
target_compile_definitions(qos_test PRIVATE QOS_FIXTURE_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures/qos")
target_link_libraries(qos_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(qos_test)
