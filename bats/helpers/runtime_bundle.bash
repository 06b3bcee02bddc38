# OCI bundles for driving amd-container-runtime directly with runc (no
# container engine): a busybox rootfs, `runc spec`, jq edits.
#
#   load helpers/common; load helpers/runtime_bundle
#
#   RT_BIN       directory of the binaries under test (CTK_BIN)
#   RT_PROFILES  simulated host profiles (PROFILES)
#   RT_SHIM      the shim under test

: "${CTK_BIN:?load helpers/common before helpers/runtime_bundle}"
RT_BIN=$CTK_BIN
RT_PROFILES=$PROFILES
RT_SHIM=$RT_BIN/amd-container-runtime

# rt_busybox: prints the path of a statically linked busybox.
rt_busybox() {
        local b
        for b in /bin/busybox /usr/bin/busybox; do
                if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
                        printf '%s\n' "$b"
                        return 0
                fi
        done
        echo "rt_busybox: no static busybox (install busybox-static)" >&2
        return 1
}

# rt_bundle DIR CMD...: a bundle in DIR (created) whose process runs CMD
# without a terminal.
rt_bundle() {
        local dir=$1 bb a
        shift
        bb=$(rt_busybox) || return 1
        mkdir -p "$dir/rootfs/bin" "$dir/rootfs/proc" "$dir/rootfs/dev" "$dir/rootfs/sys" || return 1
        cp "$bb" "$dir/rootfs/bin/busybox" || return 1
        for a in sh ls cat id true sleep; do
                ln -sf busybox "$dir/rootfs/bin/$a" || return 1
        done
        (cd "$dir" && runc spec) || return 1
        rt_spec_edit "$dir" '.process.terminal = false | .process.args = $v' --argjson v "$(rt_json_array "$@")"
}

# rt_json_array STRING...: prints a JSON array of the strings (no newlines in them).
rt_json_array() {
        if [ $# -eq 0 ]; then
                echo '[]'
        else
                printf '%s\n' "$@" | jq -R . | jq -s -c .
        fi
}

# rt_spec_edit DIR JQ-FILTER [JQ-ARGS...]: edits DIR/config.json with jq.
rt_spec_edit() {
        local dir=$1 filter=$2
        shift 2
        jq "$@" "$filter" "$dir/config.json" >"$dir/config.json.new" &&
                mv "$dir/config.json.new" "$dir/config.json"
}

# rt_spec_env DIR NAME=VALUE...: appends to process.env.
rt_spec_env() {
        local dir=$1
        shift
        rt_spec_edit "$dir" '.process.env += $v' --argjson v "$(rt_json_array "$@")"
}

# rt_config FILE KEY VALUE...: writes a toolkit config file with string values.
# With RT_STATE_DIR set, "state-dir" is that directory unless given (keeps
# tests and benchmarks off the host's GPU tracker state).
rt_config() {
        local file=$1 i=0 args=() filter='{}'
        shift
        if [ -n "${RT_STATE_DIR:-}" ]; then
                args+=(--arg sd "$RT_STATE_DIR")
                filter='{"state-dir": $sd}'
        fi
        while [ $# -ge 2 ]; do
                args+=(--arg "v$i" "$2")
                filter="$filter | .[\"$1\"] = \$v$i"
                i=$((i + 1))
                shift 2
        done
        jq -n "${args[@]}" "$filter" >"$file"
}
