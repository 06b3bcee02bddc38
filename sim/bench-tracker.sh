#!/bin/sh
# GPU tracker latency for `make bench`: allocation + release of one
# container's GPUs on the mi300x-cpx-x8 host with 1,000 containers already
# tracked (each operation includes the lock, reading and reconciling the
# state, and the durable write).  Prints one line with the median.
#
#   sh sim/bench-tracker.sh [TRACKED [ROUNDS]]
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
bin="$BUILD/tests/sim/bench/tracker-bench"
"$MAKE" --no-print-directory -s BUILD="$BUILD" "$bin"
exec "$bin" sim/profiles/mi300x-cpx-x8.json "${1:-1000}" "${2:-200}"
