# Transceivers: the SFF-8472 / SFF-8636 / CMIS decoders over images built from the specs and over
# hostile bytes, and the transceiver collector over the image-file source. The decoders against
# Debian's real `ethtool -m` are tests/integration/transceiver_oracle_test.cpp.
add_executable(transceiver_test
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_decode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_collector_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_fixtures_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transceiver_sim_test.cpp
)
target_compile_definitions(transceiver_test PRIVATE FABRICMON_FIXTURE_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures")
target_link_libraries(transceiver_test PRIVATE fabricmon_collectors fabricmon_sim GTest::gtest_main)
if(TARGET fabricmon_config)
  target_link_libraries(transceiver_test PRIVATE fabricmon_config)
endif()
gtest_discover_tests(transceiver_test)
