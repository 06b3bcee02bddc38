#!/usr/bin/env bats
# `amd-ctk config default|show` and how amd-ctk reads the configuration file.

load helpers/common

setup() {
        AMD_CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$AMD_CTK" || return 1
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
        CFG="$BATS_TEST_TMPDIR/config.json"
}

@test "config default prints a complete configuration that config show reads back unchanged" {
        run "$AMD_CTK" config default
        [ "$status" -eq 0 ]
        default=$output
        for key in root profile runtime-path log-file log-level state-dir resource-kinds seccomp-numa ctk-path \
                cdi-spec-dirs cdi-refresh mode cdi-refresh-on-stale accept-visible-devices-envvar-when-unprivileged \
                cdi-annotation-prefixes cdi-kinds; do
                jq -e --arg k "$key" 'has($k)' <<<"$default" >/dev/null
        done
        [ "$(jq -r '."log-file"' <<<"$default")" = /var/log/amd-container-runtime.log ]
        [ "$(jq -r '."state-dir"' <<<"$default")" = /var/lib/amd-container-toolkit ]
        [ "$(jq -c '."resource-kinds"' <<<"$default")" = '["AMD_GPU","GPU"]' ]
        [ "$(jq -c '."cdi-spec-dirs"' <<<"$default")" = '["/etc/cdi","/var/run/cdi"]' ]
        [ "$(jq -r '."seccomp-numa"' <<<"$default")" = true ]
        [ "$(jq -r '."cdi-refresh"' <<<"$default")" = true ]
        [ "$(jq -r '.mode' <<<"$default")" = auto ]
        [ "$(jq -r '."cdi-refresh-on-stale"' <<<"$default")" = false ]
        [ "$(jq -r '."accept-visible-devices-envvar-when-unprivileged"' <<<"$default")" = true ]
        [ "$(jq -c '."cdi-annotation-prefixes"' <<<"$default")" = '["cdi.k8s.io/"]' ]
        [ "$(jq -c '."cdi-kinds"' <<<"$default")" = '["amd.com/gpu"]' ]
        printf '%s\n' "$default" >"$CFG"
        run "$AMD_CTK" --config "$CFG" config show
        [ "$status" -eq 0 ]
        [ "$output" = "$default" ]
        # Through the environment twin too.
        AMD_CTK_CONFIG="$CFG" run "$AMD_CTK" config show
        [ "$status" -eq 0 ]
        [ "$output" = "$default" ]
}

@test "config show: the file's values over the defaults" {
        printf '{\n  "log-level": "debug",\n  "resource-kinds": ["GPU"]\n}\n' >"$CFG"
        run "$AMD_CTK" --config "$CFG" config show
        [ "$status" -eq 0 ]
        [ "$(jq -r '."log-level"' <<<"$output")" = debug ]
        [ "$(jq -c '."resource-kinds"' <<<"$output")" = '["GPU"]' ]
        [ "$(jq -r '."log-file"' <<<"$output")" = /var/log/amd-container-runtime.log ]
}

@test "config errors: file:line:column and what, exit 1" {
        printf '{\n  "log-level": "debug",\n  "loglevel": "info"\n}\n' >"$CFG"
        run "$AMD_CTK" --config "$CFG" config show
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk: $CFG:3:3: unknown key \"loglevel\" (known keys: "* ]]
        printf '{"seccomp-numa": "no"}' >"$CFG"
        run "$AMD_CTK" --config "$CFG" config show
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $CFG:1:2: \"seccomp-numa\" must be true or false, not a string" ]
        printf '{"log-level": "debug",}' >"$CFG"
        run "$AMD_CTK" --config "$CFG" config show
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $CFG:1:23: string or '}' expected near '}'" ]
}

@test "an explicitly named config file must exist" {
        run "$AMD_CTK" --config "$BATS_TEST_TMPDIR/absent.json" config show
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk: configuration file: "*"$BATS_TEST_TMPDIR/absent.json: No such file or directory" ]]
        AMD_CTK_CONFIG="$BATS_TEST_TMPDIR/absent.json" run "$AMD_CTK" config show
        [ "$status" -eq 1 ]
}

@test "config usage errors" {
        run "$AMD_CTK" config
        [ "$status" -eq 0 ] # the group's help
        [ "$output" = "$("$AMD_CTK" config --help)" ]
        run "$AMD_CTK" config frobnicate
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk config: unknown command 'frobnicate' (see 'amd-ctk config --help')" ]
        run "$AMD_CTK" config default extra
        [ "$status" -eq 2 ]
        run "$AMD_CTK" config --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"default"*"show"* ]]
}
