# The kernel log: the record parser and the file source, the driver message table (a real line per
# row), and the source against this machine's real /dev/kmsg (skipped unless root).
add_executable(kernel_log_test
  ${CMAKE_CURRENT_LIST_DIR}/kmsg_record_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nic_driver_messages_test.cpp
)
target_compile_definitions(kernel_log_test PRIVATE FABRICMON_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(kernel_log_test PRIVATE fabricmon_collectors GTest::gtest_main)
gtest_discover_tests(kernel_log_test)

# Against the real /dev/kmsg: the collector over a simulated NIC whose PCI address the records
# name, judged by the real watchdog.
add_executable(kmsg_kernel_test ${CMAKE_CURRENT_LIST_DIR}/kmsg_kernel_test.cpp)
target_link_libraries(kmsg_kernel_test PRIVATE fabricmon_collectors fabricmon_watchdog fabricmon_sim
                                               fabricmon_config GTest::gtest_main)
gtest_discover_tests(kmsg_kernel_test PROPERTIES RUN_SERIAL TRUE)
