# ethtool group: the ethtool text parser, file and ioctl sources, the ethtool_pfc collector.
add_executable(ethtool_test
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_text_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_ioctl_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_pfc_collector_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_dialects_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ethtool_kernel_test.cpp
)
target_compile_definitions(ethtool_test PRIVATE
  FABRICMON_ETHTOOL_FIXTURES="${PROJECT_SOURCE_DIR}/tests/fixtures/ethtool")
# fabricmon_sim: the dialect tests drive the collector over the simulator's vendors.
target_link_libraries(ethtool_test PRIVATE fabricmon_collectors fabricmon_sim GTest::gtest_main GTest::gmock)
gtest_discover_tests(ethtool_test)
