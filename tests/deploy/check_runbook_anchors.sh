#!/usr/bin/env bash
# check_runbook_anchors.sh RULES RUNBOOK: every alert of RULES has a runbook_url, the anchor of every
# runbook_url is the GitHub slug of exactly one heading of RUNBOOK, and the runbook's own #links resolve.
set -euo pipefail
rules=${1:?usage: check_runbook_anchors.sh RULES RUNBOOK}
runbook=${2:?usage: check_runbook_anchors.sh RULES RUNBOOK}

# GitHub's heading anchors: lower case, punctuation dropped (except - and _), spaces become '-'.
slugs=$(grep -E '^#{1,6} ' "$runbook" | sed -E 's/^#+ +//; s/ +$//' | tr 'A-Z' 'a-z' |
  sed -E 's/[^a-z0-9 _-]//g; s/ /-/g')

failed=0
alerts=$(grep -cE '^ *- alert: ' "$rules")
urls=$(grep -cE '^ *runbook_url: ' "$rules")
if ((alerts != urls)); then
  echo "FAIL: $alerts alerts but $urls runbook_url annotations in $rules"
  failed=1
fi
for anchor in $(grep -oE 'runbook\.md#[A-Za-z0-9_-]+' "$rules" | sed 's/.*#//' | sort -u); do
  n=$(grep -cxF -- "$anchor" <<<"$slugs" || true)
  if ((n == 1)); then
    echo "ok   #$anchor"
  else
    echo "FAIL #$anchor: $n headings of $runbook have this anchor (want 1)"
    failed=1
  fi
done
# Links inside the runbook itself.
for anchor in $(grep -oE '\]\(#[A-Za-z0-9_-]+\)' "$runbook" | sed -E 's/^\]\(#//; s/\)$//' | sort -u); do
  if ! grep -qxF -- "$anchor" <<<"$slugs"; then
    echo "FAIL $runbook links to #$anchor, which no heading has"
    failed=1
  fi
done
exit "$failed"
