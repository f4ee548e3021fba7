# FABRICMON_FUZZ=ON: the libFuzzer targets of tests/fuzz and only the code they exercise, built with
# clang (Debian 12: clang-14; libFuzzer and the sanitizer runtimes come with libclang-rt-14-dev).
# Included from the top-level CMakeLists.txt, which returns right after: nothing else is built.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "FABRICMON_FUZZ needs clang (libFuzzer): cmake -DCMAKE_CXX_COMPILER=clang++ ...")
endif()
# Every object carries the coverage instrumentation and the sanitizers; only the targets link the
# fuzzer's main (-fsanitize=fuzzer, set per target in tests/fuzz/CMakeLists.txt).
# -O1 with line tables: what libFuzzer's docs advise; assertions stay on in every build type.
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1")
set(CMAKE_CXX_FLAGS_RELEASE "-O1")
set(CMAKE_CXX_FLAGS_DEBUG "-O0")
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -gline-tables-only)
add_link_options(-fsanitize=address,undefined)
# The libraries below are reused whole: they are small and self-contained (the model, the config
# loader, the window). Of the watchdog only the rules are built (tests/fuzz/CMakeLists.txt): the
# config's schema and triage's checks name them.
add_subdirectory(model)
add_subdirectory(config)
add_subdirectory(window)
enable_testing()
add_subdirectory(tests/fuzz)
