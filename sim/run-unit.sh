#!/bin/sh
# Runs cmocka test binaries; prints each binary's summary and a total line.
# Exit status is non-zero when any test failed or a binary crashed.
passed=0
failed=0
status=0
for t in "$@"; do
        out=$("$t" 2>&1)
        rc=$?
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
        p=${p:-0}
        f=${f:-0}
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
                f=1 # crashed or aborted before cmocka could report
        fi
        if [ "$rc" -ne 0 ]; then
                status=1
                printf '%s\n' "$out"
        fi
        printf 'unit %-60s %3s passed, %s failed\n' "$(basename "$t")" "$p" "$f"
        passed=$((passed + p))
        failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
exit $status
