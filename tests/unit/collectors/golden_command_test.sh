#!/usr/bin/env bash
# The golden-regeneration command of tests/fixtures/README.md runs as written and selects tests, and
# every build/ program the README and docs/ tell a reader to run is one the build makes.
# Usage: golden_command_test.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
src=$1
bin=$2
fail=0

# The one fenced line that sets FABRICMON_UPDATE_GOLDEN. Listing mode (--gtest_list_tests) runs no
# test, so nothing is rewritten; a plain run without the variable compares instead of writing.
command=$(grep -m1 '^FABRICMON_UPDATE_GOLDEN=1 build/' "$src/tests/fixtures/README.md" || true)
if [ -z "$command" ]; then
  echo "FAIL: tests/fixtures/README.md has no 'FABRICMON_UPDATE_GOLDEN=1 build/...' command"
  exit 1
fi
# The README is written for the default build directory; this suite may run in another (build-asan).
read -r -a words <<<"${command#FABRICMON_UPDATE_GOLDEN=1 }"
program=$bin/${words[0]#build/}
args=("${words[@]:1}")
for i in "${!args[@]}"; do args[$i]=${args[$i]//\'/}; done

listed=$(cd "$src" && "$program" "${args[@]}" --gtest_list_tests | grep -c '^  ' || true)
echo "the documented filter selects $listed golden tests"
if [ "$listed" -lt 1 ]; then
  echo "FAIL: '$command' selects no test"
  fail=1
fi
out=$(cd "$src" && env -u FABRICMON_UPDATE_GOLDEN "$program" "${args[@]}" 2>&1) || {
  echo "$out" | tail -20
  echo "FAIL: the golden tests the command selects do not pass"
  fail=1
}
passed=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
if [ "${passed:-0}" != "$listed" ]; then
  echo "FAIL: listed $listed tests, $passed passed"
  fail=1
fi

# Every build/<path> a document names (a program to run) exists after the build. Names with a
# placeholder (<version>) are left out, and the benchmarks only when the build skipped them.
while IFS=: read -r doc path; do
  case $path in *'<'*|*_) continue ;; esac
  case $path in build/tests/bench/*) [ -d "$bin/tests/bench" ] || continue ;; esac
  if [ ! -e "$bin/${path#build/}" ]; then
    echo "FAIL: $doc names $path, which the build does not make"
    fail=1
  fi
done < <(cd "$src" && grep -rHo 'build/[A-Za-z0-9_./-]*[A-Za-z0-9_]' README.md docs tests/fixtures/README.md \
           tests/*/README.md | sort -u)
exit $fail
