# fec group: the fec_dir parser, the ethtool netlink messages, the fec collector, the pre-FEC names.
add_executable(fec_test ${CMAKE_CURRENT_LIST_DIR}/fec_test.cpp)
target_link_libraries(fec_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(fec_test)
