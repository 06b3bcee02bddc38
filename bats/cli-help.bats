#!/usr/bin/env bats
# amd-ctk and amd-ctk-fakefs as a whole: --help and -h on every command the
# help lists, and what a command line that names no command gets.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        ctk_require_built "$CTK" "$FAKEFS" || return 1
}

# Both help options of one command line: usage on stdout, nothing on stderr, exit 0.
assert_help() {
        local opt
        for opt in --help -h; do
                run --separate-stderr "$@" "$opt"
                [ "$status" -eq 0 ] || {
                        echo "'$* $opt' exited $status: $stderr"
                        return 1
                }
                [ -z "$stderr" ] || {
                        echo "'$* $opt' wrote to stderr: $stderr"
                        return 1
                }
                [[ "$output" == *USAGE:* || "$output" == *Usage:* ]] || {
                        echo "'$* $opt' printed no usage: $output"
                        return 1
                }
        done
}

@test "amd-ctk: --help and -h on every command and subcommand its help lists" {
        assert_help "$CTK"
        cmds=$("$CTK" --help | ctk_help_commands)
        # the commands of the issue, at least
        for c in version gpu cdi runtime gpu-tracker; do
                grep -qx "$c" <<<"$cmds"
        done
        n=0
        for c in $cmds; do
                assert_help "$CTK" "$c"
                for s in $("$CTK" "$c" --help | ctk_help_commands); do
                        assert_help "$CTK" "$c" "$s"
                        n=$((n + 1))
                done
        done
        [ "$n" -ge 10 ] # gpu list, cdi generate/validate/list, gpu-tracker enable/disable/status/reset, ...
}

@test "amd-ctk-fakefs: --help and -h on every command its help lists" {
        assert_help "$FAKEFS"
        cmds=$("$FAKEFS" --help | ctk_help_commands)
        [ "$(sort <<<"$cmds" | tr '\n' ' ')" = "import-kfd materialize mount umount " ]
        for c in $cmds; do
                assert_help "$FAKEFS" "$c"
        done
}

@test "amd-ctk: an unknown command or global option is the usage on stderr, exit 2, nothing on stdout" {
        for args in frobnicate "frobnicate gpu" "--bogus gpu list" "" "--debug" "help frobnicate"; do
                run --separate-stderr "$CTK" $args
                [ "$status" -eq 2 ] || {
                        echo "'amd-ctk $args' exited $status"
                        return 1
                }
                [ -z "$output" ]
                [[ "$stderr" == *"USAGE:"* ]]
        done
        run --separate-stderr "$CTK" frobnicate
        [ "${stderr_lines[0]}" = "amd-ctk: unknown command 'frobnicate'" ]
        run --separate-stderr "$CTK" help frobnicate
        [ "${stderr_lines[0]}" = "amd-ctk: unknown command 'frobnicate'" ]
}

@test "amd-ctk help COMMAND is COMMAND --help" {
        for c in gpu cdi version; do
                [ "$("$CTK" help "$c")" = "$("$CTK" "$c" --help)" ]
        done
        [ "$("$CTK" help)" = "$("$CTK" --help)" ]
}

# the command with its standard output on a full disk
to_full() { "$@" >/dev/full; }

@test "output that cannot be written (a full disk) is one error line and exit 1, not a cut output with status 0" {
        local p="$PROFILES/seed-4xmi210.json" args
        for args in "version" "--help" "--profile $p gpu list" "--profile $p cdi generate" "--profile $p cdi list" \
                "seccomp profile" "runtime configure --dry-run --config-path /nonexistent/daemon.json"; do
                run --separate-stderr to_full "$CTK" $args
                [ "$status" -eq 1 ] || {
                        echo "'amd-ctk $args >/dev/full' exited $status"
                        return 1
                }
                [ "${#stderr_lines[@]}" -eq 1 ] && [[ "$stderr" == "amd-ctk: cannot write the "* ]] || {
                        echo "'amd-ctk $args >/dev/full' said: $stderr"
                        return 1
                }
        done
        run --separate-stderr to_full "$FAKEFS" --help
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk-fakefs: cannot write the standard output: No space left on device" ]
}
