#!/usr/bin/env bats
# Commands that only read write nothing: --help, --version, version, gpu list,
# cdi list, cdi validate, gpu-tracker status (enabled or not), config show,
# every --dry-run, the runtime's --help and --version.  And where --profile,
# --root or --config point elsewhere, what a command writes follows the
# configuration, never the real host's defaults.
#
# The commands run in a private mount namespace where /etc and /var are
# overlays whose writes land in this test's directory: what they would have
# written to the host's /etc/cdi, /var/lib/amd-container-toolkit or
# /var/log/amd-container-runtime.log shows there, and the host stays as it
# was.  Each directory involved is listed (names, sizes, modes, mtimes)
# before and after.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" "$CTK_BIN/amd-ctk-fakefs" "$CTK_BIN/amd-container-runtime" || return 1
        [ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace with /etc and /var as overlays)"
}

setup() {
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
        T=$BATS_TEST_TMPDIR
        P=$PROFILES/seed-4xmi210.json
        mkdir -p "$T"/{etc,var}-{up,work} "$T/cdi" "$T/work"
        # the test's configuration: its own state, log and spec directories
        printf '{"state-dir": "%s", "log-file": "%s", "cdi-spec-dirs": ["%s"], "root": "%s"}\n' \
                "$T/work/state" "$T/work/runtime.log" "$T/cdi" "$(ctk_host "$P")" >"$T/config.json"
        "$CTK" --profile "$P" cdi generate --output "$T/cdi/amd.json" >/dev/null
        printf '{\n    "runtimes": {}\n}\n' >"$T/work/daemon.json"
        printf 'version = 2\n' >"$T/work/config.toml"
}

# privately SCRIPT: runs bash SCRIPT in a private mount namespace with /etc
# and /var as overlays (their writes in $T/etc-up, $T/var-up), with $T, $P,
# $CTK_BIN and these functions; its output in $output, its status in $status.
privately() {
        # shellcheck disable=SC2016
        run unshare --mount --propagation private bash -ec '
                t=$1
                for d in etc var; do
                        mount -t overlay overlay -o "lowerdir=/$d,upperdir=$t/$d-up,workdir=$t/$d-work" "/$d"
                done
                eval "$2"' sh "$T" "$1"
}

# listing DIR...: every entry below, with type, size, mode and mtime (sorted).
listing() {
        find "$@" -mindepth 1 -printf '%p %y %s %m %T@\n' 2>/dev/null | sort
}
export -f listing

# The read-only commands, one a line (run with AMD_CTK_CONFIG=$T/config.json).
READ_ONLY='amd-ctk --help
amd-ctk -h
amd-ctk --version
amd-ctk version
amd-ctk help
amd-ctk help cdi generate
amd-ctk gpu list
amd-ctk gpu list --json
amd-ctk gpu list --all-vendors
amd-ctk cdi list
amd-ctk cdi list --json
amd-ctk cdi list --spec-dirs
amd-ctk cdi list --all-vendors
amd-ctk cdi validate --path $T/cdi/amd.json
amd-ctk cdi validate
amd-ctk cdi generate --output -
amd-ctk gpu-tracker status
amd-ctk gpu-tracker status --json
amd-ctk config show
amd-ctk config default
amd-ctk seccomp profile
amd-ctk runtime configure --dry-run --config-path $T/work/daemon.json
amd-ctk runtime configure --dry-run --config-path $T/work/daemon.json --swarm-resources
amd-ctk runtime configure --dry-run --config-path $T/work/daemon.json --remove --swarm-resources
amd-ctk runtime configure --dry-run --swarm-refresh
amd-ctk runtime configure --dry-run --runtime=containerd --config-path $T/work/99-amd.toml --containerd-config $T/work/config.toml
amd-ctk runtime configure --dry-run --runtime=podman --config-path $T/work/99-amd.conf
amd-ctk runtime configure --dry-run --runtime=crio --config-path $T/work/99-amd.conf
amd-ctk runtime configure --dry-run
amd-container-runtime --version
amd-container-runtime version
amd-container-runtime --help
amd-container-runtime help
amd-container-runtime
amd-ctk-fakefs --help
amd-ctk-fakefs --version'

# Runs each line of $1 with AMD_CTK_CONFIG (when $2 is set), the help of
# every command, and compares the listings of $T/work, /etc/cdi,
# /var/lib/amd-container-toolkit, /var/log and of the overlays' writes
# before and after.  Prints DIFF and what differs.
RUN_ALL='
        before=$(listing "$t/work" "$t/etc-up" "$t/var-up" /etc/cdi /var/lib/amd-container-toolkit /var/log)
        while IFS= read -r line; do
                [ -n "$line" ] || continue
                set -- $(eval echo "$line")
                prog=$CTK_BIN/$1
                shift
                AMD_CTK_CONFIG=${CONFIG:-} "$prog" "$@" >/dev/null 2>&1 </dev/null || true
        done <<<"$COMMANDS"
        after=$(listing "$t/work" "$t/etc-up" "$t/var-up" /etc/cdi /var/lib/amd-container-toolkit /var/log)
        [ "$before" = "$after" ] || { echo DIFF; diff <(echo "$before") <(echo "$after") || true; }'

@test "read-only commands write nothing, the tracker disabled: not even its state directory appears" {
        export T P CTK_BIN COMMANDS=$READ_ONLY CONFIG=$T/config.json
        privately "$RUN_ALL"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" != *DIFF* ]]
        [ ! -e "$T/work/state" ]
}

@test "read-only commands write nothing, the tracker enabled (status reconciles only what it shows)" {
        export T P CTK_BIN COMMANDS=$READ_ONLY CONFIG=$T/config.json
        AMD_CTK_CONFIG=$T/config.json "$CTK" gpu-tracker enable
        # a container the tracker holds although runc no longer knows it
        jq -c --arg r "$T/runc-root" '.runtimeRoots = ((.runtimeRoots // []) + [$r])
                | .containers += [["gone", [1], (.runtimeRoots | length - 1), 0, 0]]' \
                "$T/work/state/gpu-tracker.json" >"$T/state.json" && mv "$T/state.json" "$T/work/state/gpu-tracker.json"
        privately "$RUN_ALL"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" != *DIFF* ]]
        run "$CTK" --config "$T/config.json" gpu-tracker status --json
        [ "$(jq -c '.gpus[1].containers' <<<"$output")" = '[]' ] # shown gone, file untouched
        grep -q '"gone"' "$T/work/state/gpu-tracker.json"
}

@test "the default configuration: the runtime's --help and --version never create its log; nothing in /etc or /var" {
        export T P CTK_BIN CONFIG=
        export COMMANDS='amd-container-runtime --version
amd-container-runtime --help
amd-container-runtime -h
amd-container-runtime version
amd-container-runtime
amd-ctk --version
amd-ctk cdi validate
amd-ctk gpu list
amd-ctk config show'
        privately "$RUN_ALL"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" != *DIFF* ]]
        [ ! -e "$T/var-up/log/amd-container-runtime.log" ]
}

@test "a simulated host's state never goes to the real host's state directory; the configured one gets it" {
        export T P CTK_BIN
        # shellcheck disable=SC2016
        privately '
                before=$(listing "$t/etc-up" "$t/var-up" /var/lib/amd-container-toolkit)
                ctk=$CTK_BIN/amd-ctk
                for host in "--profile $P" "--root /nonexistent-host"; do
                        $ctk $host runtime configure --swarm-resources --config-path "$t/work/daemon.json" 2>&1 || echo "exit $?"
                        $ctk $host gpu-tracker enable 2>&1 || echo "exit $?"
                        $ctk $host gpu-tracker status 2>&1 || echo "exit $?"
                        $ctk $host cdi generate --refresh --output "$t/work/refresh.json" 2>&1 || echo "exit $?"
                done
                after=$(listing "$t/etc-up" "$t/var-up" /var/lib/amd-container-toolkit)
                [ "$before" = "$after" ] || { echo DIFF; diff <(echo "$before") <(echo "$after") || true; }'
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" != *DIFF* ]]
        why="the host is simulated (--profile $P): its state would go to this host's /var/lib/amd-container-toolkit; set state-dir in a configuration file (--config FILE) for it"
        [ "$(grep -cxF "amd-ctk: the host is simulated (--profile $P): its state would go to this host's /var/lib/amd-container-toolkit; set state-dir in a configuration file (--config FILE) for it" <<<"$output")" -eq 3 ]
        [ "$(grep -cxF "amd-ctk: cannot keep a copy of the CDI spec: $why" <<<"$output")" -eq 1 ]
        [ "$(grep -c "^amd-ctk: .*the host is simulated (--root /nonexistent-host): " <<<"$output")" -eq 4 ]
        [ "$(grep -c '^exit 1$' <<<"$output")" -eq 8 ]
        # nothing was written either
        [ "$(cat "$T/work/daemon.json")" = "$(printf '{\n    "runtimes": {}\n}')" ]
        [ ! -e "$T/work/refresh.json" ]

        # with the test's configuration, the record goes to its state directory
        privately '
                before=$(listing "$t/etc-up" "$t/var-up" /var/lib/amd-container-toolkit)
                $CTK_BIN/amd-ctk --config "$t/config.json" --profile "$P" runtime configure --swarm-resources \
                        --config-path "$t/work/daemon.json" >/dev/null
                after=$(listing "$t/etc-up" "$t/var-up" /var/lib/amd-container-toolkit)
                [ "$before" = "$after" ] || { echo DIFF; diff <(echo "$before") <(echo "$after") || true; }'
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" != *DIFF* ]]
        [ "$(jq -r '."config-path"' "$T/work/state/swarm-resources.json")" = "$T/work/daemon.json" ]
}
