# fec group: the fec_dir parser, the ethtool netlink messages, the fec collector, the pre-FEC names.
add_executable(fec_test ${CMAKE_CURRENT_LIST_DIR}/fec_test.cpp)
target_link_libraries(fec_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(fec_test)

# The shared netlink socket (family resolution, request/answer) and the FEC source against the kernel.
add_executable(netlink_socket_test ${CMAKE_CURRENT_LIST_DIR}/netlink_socket_test.cpp)
target_link_libraries(netlink_socket_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(netlink_socket_test)
