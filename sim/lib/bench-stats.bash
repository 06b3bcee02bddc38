# Statistics and table rows for sim/bench.sh (sourced): the samples are
# microseconds in the associative array samples[KEY], space-separated.

added=0 # what the last row or runc_row added (us)

# quantile KEY Q: the Q quantile (0-1) in microseconds.
quantile() {
        # shellcheck disable=SC2086,SC2154 # (samples: sim/bench.sh's)
        printf '%s\n' ${samples[$1]} | sort -n | awk -v q="$2" '{ v[NR] = $1 } END {
                i = q * (NR - 1) + 1; lo = int(i); f = i - lo
                print int(v[lo] + (lo < NR ? f * (v[lo + 1] - v[lo]) : 0)) }'
}
median() { quantile "$1" 0.5; }

ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }

# row LABEL BASE-KEY SHIM-KEY: one line of the second table; the difference
# in $added (us).
row() {
        local label=$1 base=$2 shim=$3 mb ms_
        mb=$(median "$base")
        ms_=$(median "$shim")
        added=$((ms_ - mb))
        printf '%-40s %8s %8s %8s %7s\n' "$label" "$(ms "$mb")" "$(ms "$ms_")" "$(ms $((ms_ - mb)))" \
                "$(awk -v a="$ms_" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')"
}

# runc_row LABEL BASE-KEY SHIM-KEY: one line of the first table (with the
# ratio of the keys' -cpu samples too); the create + delete difference in
# $added (us).
runc_row() {
        local label=$1 base=$2 shim=$3
        local mb ms_
        mb=$(median "$base")
        ms_=$(median "$shim")
        added=$((ms_ - mb))
        printf '%-34s %8s %8s %8s %8s %8s %7s %7s\n' "$label" "$(ms "$(median "$base-create")")" \
                "$(ms "$(median "$shim-create")")" "$(ms "$(median "$base-delete")")" \
                "$(ms "$(median "$shim-delete")")" "$(ms "$added")" \
                "$(awk -v a="$ms_" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')" \
                "$(awk -v a="$(median "$shim-cpu")" -v b="$(median "$base-cpu")" 'BEGIN { printf "%.3f", a / b }')"
}

# mode_row LABEL KEY BASE-KEY LEGACY-KEY: a line of the modes' table: what
# KEY adds to BASE-KEY, wall and CPU (the keys' -cpu samples), and that
# against what LEGACY-KEY adds.
mode_row() {
        local w c wl cl
        w=$(($(median "$2") - $(median "$3")))
        c=$(($(median "$2-cpu") - $(median "$3-cpu")))
        wl=$(($(median "$4") - $(median "$3")))
        cl=$(($(median "$4-cpu") - $(median "$3-cpu")))
        printf '%-40s %8s %8s %8s %8s\n' "$1" "$(ms "$w")" "$(ms "$c")" \
                "$(awk -v a="$w" -v b="$wl" 'BEGIN { printf "%.3f", a / b }')" \
                "$(awk -v a="$c" -v b="$cl" 'BEGIN { printf "%.3f", a / b }')"
}
