#!/usr/bin/env bash
# Every report, check, scan and detect output on the bundled captures (and on
# ../shared's real captures when present), one file each, into DIR — so a refactor can
# be shown to change nothing: run it before and after, then `diff -r BEFORE AFTER`.
# Usage: tools/outputs.sh DIR   (from the checkout; uses `npx bun main.ts`)
set -u
out=${1:?usage: tools/outputs.sh DIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
run() { # run NAME ARGS…
  local name=$1; shift
  npx bun main.ts "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "exit $?" >>"$out/$name.err"
}
for f in fixtures/captures/*.cast fixtures/corpus/*.cast fixtures/ci/golden.cast; do
  b=$(basename "$(dirname "$f")")-$(basename "$f" .cast)
  run "$b.report" report "$f"
  run "$b.report-json" report "$f" --format json --episodes
  run "$b.report-md" report "$f" --format markdown
  run "$b.check" check "$f"
  run "$b.check-json" check "$f" --format json
  run "$b.scan" scan "$f"
  run "$b.scan-json" scan --json "$f"
  run "$b.info" info "$f"
done
run fake-claude.report-html report fixtures/captures/fake-claude.cast --format html
run fake-claude.report-csv report fixtures/captures/fake-claude.cast --format csv
run fake-claude.report-junit report fixtures/captures/fake-claude.cast --format junit
run fake-claude.detect detect fixtures/captures/fake-claude.cast --at 62
run fake-claude.explain explain fixtures/captures/fake-claude.cast --at 62
run fake-claude.screen screen fixtures/captures/fake-claude.cast --at 62
shared=../shared/captures
if [ -d "$shared" ]; then
  for f in "$shared"/*/*; do
    case "$f" in *.md) continue ;; esac
    b=shared-$(basename "$f")
    run "$b.report" report "$f"
    run "$b.detect" detect "$f"
    run "$b.scan" scan "$f"
  done
fi
echo "outputs in $out: $(ls "$out" | wc -l) files"
