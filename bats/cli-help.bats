#!/usr/bin/env bats
# One command-line grammar for amd-ctk, amd-ctk-fakefs and
# amd-container-runtime (core/base/cmdline.h), checked command by command:
# every command their help lists (so a new command is covered by itself)
# against {--help, -h, no argument, an unknown option, a value it refuses},
# streams and exit statuses; `help`/`h`; --version.
#
# The "no argument" runs do what the commands do by default (runtime
# configure writes /etc/docker/daemon.json, cdi generate /etc/cdi/amd.json):
# they run in a private mount namespace with /etc and /var as overlays whose
# writes land in this test's directory, on a simulated host.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        export RT="$CTK_BIN/amd-container-runtime"
        ctk_require_built "$CTK" "$FAKEFS" "$RT" || return 1
}

setup() {
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
}

# The command paths of PROGRAM, DEPTH levels down (its help's COMMANDS).
command_paths() {
        local prog=$1 depth=$2
        shift 2
        echo "$prog${*:+ $*}"
        [ "$depth" -gt 0 ] || return 0
        local c
        for c in $("$CTK_BIN/$prog" "$@" --help | ctk_help_commands); do
                command_paths "$prog" $((depth - 1)) "$@" "$c"
        done
}

all_commands() {
        command_paths amd-ctk 2
        command_paths amd-ctk-fakefs 1
        echo amd-container-runtime
}

# What each command does without arguments, and a value it refuses.
#   PATH | no argument: status | its stdout matches (ERE) | arguments with a refused value | status | stderr
# (a group: "help" for its help; a command without values: an argument it
# does not take, which is a usage error).  Runs in this order.
TABLE="amd-ctk|help||--debug=maybe version|1|amd-ctk: invalid value 'maybe' for --debug (true or false)
amd-ctk version|0|^Version: |x|2|amd-ctk version: unexpected argument 'x' (see 'amd-ctk version --help')
amd-ctk runtime|help||frob|2|amd-ctk runtime: unknown command 'frob' (see 'amd-ctk runtime --help')
amd-ctk runtime configure|0|[Cc]onfig file.*: /etc/docker/daemon.json$|--runtime=frob|1|amd-ctk runtime configure: invalid value 'frob' for --runtime (docker, containerd, podman or crio)
amd-ctk cdi|help||frob|2|amd-ctk cdi: unknown command 'frob' (see 'amd-ctk cdi --help')
amd-ctk cdi generate|0|^Generated CDI spec: /etc/cdi/amd.json$|--device-name-strategy frob|1|amd-ctk cdi generate: invalid value 'frob' for --device-name-strategy (index, uuid or index,uuid)
amd-ctk cdi validate|0|^Validating CDI spec: /etc/cdi/amd.json|--path=|1|amd-ctk cdi validate: invalid value '' for --path (a file name)
amd-ctk cdi list|0|^Found 4 AMD GPU devices|--spec-dir=|1|amd-ctk cdi list: invalid value '' for --spec-dir (a directory)
amd-ctk gpu|help||frob|2|amd-ctk gpu: unknown command 'frob' (see 'amd-ctk gpu --help')
amd-ctk gpu list|0|^Found 4 AMD GPU devices|--json=frob|1|amd-ctk gpu list: invalid value 'frob' for --json (true or false)
amd-ctk gpu-tracker|help||0 frob|1|amd-ctk gpu-tracker: invalid value 'frob' for accessibility (exclusive or shared)
amd-ctk gpu-tracker status|0|^GPU Tracker is disabled$|--json=frob|1|amd-ctk gpu-tracker status: invalid value 'frob' for --json (true or false)
amd-ctk gpu-tracker enable|0|^GPU Tracker has been enabled$|frob|2|amd-ctk gpu-tracker enable: unexpected argument 'frob' (see 'amd-ctk gpu-tracker enable --help')
amd-ctk gpu-tracker reset|0|^GPU Tracker has been reset|frob|2|amd-ctk gpu-tracker reset: unexpected argument 'frob' (see 'amd-ctk gpu-tracker reset --help')
amd-ctk gpu-tracker disable|0|^GPU Tracker has been disabled$|frob|2|amd-ctk gpu-tracker disable: unexpected argument 'frob' (see 'amd-ctk gpu-tracker disable --help')
amd-ctk config|help||frob|2|amd-ctk config: unknown command 'frob' (see 'amd-ctk config --help')
amd-ctk config default|0|^\{|frob|2|amd-ctk config default: unexpected argument 'frob' (see 'amd-ctk config default --help')
amd-ctk config show|0|^\{|frob|2|amd-ctk config show: unexpected argument 'frob' (see 'amd-ctk config show --help')
amd-ctk seccomp|help||frob|2|amd-ctk seccomp: unknown command 'frob' (see 'amd-ctk seccomp --help')
amd-ctk seccomp profile|0|^\{|--base=|1|amd-ctk seccomp profile: invalid value '' for --base (a file name, or '-' for the standard input)
amd-ctk-fakefs|help||frob|2|amd-ctk-fakefs: unknown command 'frob' (see 'amd-ctk-fakefs --help')
amd-ctk-fakefs materialize|2||a b c|2|amd-ctk-fakefs materialize: unexpected argument 'c' (see 'amd-ctk-fakefs materialize --help')
amd-ctk-fakefs import-kfd|2||--output= dir|1|amd-ctk-fakefs import-kfd: invalid value '' for --output (a file name)
amd-ctk-fakefs mount|2||a b c|2|amd-ctk-fakefs mount: unexpected argument 'c' (see 'amd-ctk-fakefs mount --help')
amd-ctk-fakefs umount|2||a b|2|amd-ctk-fakefs umount: unexpected argument 'b' (see 'amd-ctk-fakefs umount --help')
amd-container-runtime|0|^NAME:|--amd-config=|1|amd-container-runtime: invalid value '' for --amd-config (a file name)"

@test "the table has a row for every command the programs' help lists, and no other" {
        want=$(all_commands | sort)
        have=$(cut -d'|' -f1 <<<"$TABLE" | sort)
        [ "$want" = "$have" ] || {
                diff <(echo "$want") <(echo "$have")
                return 1
        }
        [ "$(wc -l <<<"$want")" -ge 26 ]
}

# The program's binary and the arguments of a command path.
prog_of() { echo "$CTK_BIN/${1%% *}"; }
args_of() { [[ "$1" == *" "* ]] && echo "${1#* }" || true; }

@test "--help and -h on every command: its help on stdout, nothing on stderr, exit 0; help and h say the same" {
        mapfile -t paths < <(all_commands)
        for path in "${paths[@]}"; do
                prog=$(prog_of "$path")
                # shellcheck disable=SC2046
                set -- $(args_of "$path")
                run --separate-stderr "$prog" "$@" --help
                [ "$status" -eq 0 ] && [ -z "$stderr" ] && [[ "$output" == "NAME:"* ]] || {
                        echo "'$path --help' exited $status, stderr: $stderr"
                        return 1
                }
                help=$output
                [[ "$path" == amd-container-runtime ]] && continue # (runc's help follows; the second test)
                # the NAME line names the command (the GPU tracker's, as its document shows it)
                [[ "${lines[1]}" == "   $path - "* || "$path" == "amd-ctk gpu-tracker" ]] || {
                        echo "'$path --help' names: ${lines[1]}"
                        return 1
                }
                for other in "-h" "-help" "--h"; do
                        run --separate-stderr "$prog" "$@" "$other"
                        [ "$status" -eq 0 ] && [ -z "$stderr" ] && [ "$output" = "$help" ] || {
                                echo "'$path $other' differs from --help (status $status)"
                                return 1
                        }
                done
                if [ $# -gt 0 ]; then
                        for word in help h; do
                                run --separate-stderr "$prog" "$word" "$@"
                                [ "$status" -eq 0 ] && [ -z "$stderr" ] && [ "$output" = "$help" ] || {
                                        echo "'${path%% *} $word $*' differs from --help (status $status)"
                                        return 1
                                }
                        done
                        # `help` where the parent expects a command, as the Go toolkit's CLI
                        run --separate-stderr "$prog" "${@:1:$#-1}" help "${!#}"
                        [ "$output" = "$help" ] || {
                                echo "'$path' through its parent's help command differs"
                                return 1
                        }
                fi
        done
}

@test "amd-container-runtime --help, -h, help and no argument: ours first, then the low-level runtime's" {
        for args in "--help" "-h" "help" ""; do
                # shellcheck disable=SC2086
                run --separate-stderr "$RT" $args
                [ "$status" -eq 0 ]
                [ -z "$stderr" ]
                [ "${lines[1]}" = "   amd-container-runtime - OCI runtime that gives containers AMD GPUs, over runc or crun" ]
                [[ "$output" == *"--amd-config FILE"* ]]
                [[ "$output" == *"The other options and commands are those of the low-level runtime, "*":"* ]]
                [[ "$output" == *"$(runc --help | head -n 3 | tail -n 1)"* ]] # runc's help, after ours
        done
        # a command's help is the low-level runtime's alone
        run --separate-stderr "$RT" create --help
        [ "$status" -eq 0 ]
        [ "$output" = "$(runc create --help)" ]
}

@test "--version: amd-ctk's and amd-ctk-fakefs's are amd-ctk version's lines; the runtime's is ours, then runc's" {
        want=$("$CTK" version)
        [[ "$want" =~ ^Version:\ .+$'\n'Build\ Date:\ .+$'\n'GitCommit:\ [0-9a-f]+$ ]]
        for v in --version -v; do
                run --separate-stderr "$CTK" "$v"
                [ "$status" -eq 0 ] && [ "$output" = "$want" ] && [ -z "$stderr" ]
                run --separate-stderr "$FAKEFS" "$v"
                [ "$status" -eq 0 ] && [ "$output" = "$want" ] && [ -z "$stderr" ]
        done
        for args in "--version" "-v" "version"; do
                run --separate-stderr "$RT" $args
                [ "$status" -eq 0 ]
                [ "${lines[0]}" = "amd-container-runtime version $(sed -n 's/^Version: //p' <<<"$want") ($(sed -n 's/^GitCommit: //p' <<<"$want"))" ]
                [ "$(printf '%s\n' "${lines[@]:1}")" = "$(runc --version)" ]
        done
}

@test "an unknown option is one line on stderr, nothing on stdout, exit 2, on every command" {
        mapfile -t paths < <(all_commands)
        for path in "${paths[@]}"; do
                prog=$(prog_of "$path")
                # shellcheck disable=SC2046
                set -- $(args_of "$path")
                opt=--no-such-option
                [ "$path" != amd-container-runtime ] || opt=--amd-no-such-option # (the rest is runc's)
                run --separate-stderr "$prog" "$@" "$opt"
                [ "$status" -eq 2 ] && [ -z "$output" ] &&
                        [ "$stderr" = "$path: unknown option '$opt' (see '$path --help')" ] || {
                        echo "'$path $opt' exited $status; stdout: $output; stderr: $stderr"
                        return 1
                }
                # also as --name=value and -name
                run --separate-stderr "$prog" "$@" "$opt=1"
                [ "$status" -eq 2 ] && [ "$stderr" = "$path: unknown option '$opt' (see '$path --help')" ]
        done
        # an unknown command, at the top and in a group
        run --separate-stderr "$CTK" frobnicate
        [ "$status" -eq 2 ] && [ -z "$output" ]
        [ "$stderr" = "amd-ctk: unknown command 'frobnicate' (see 'amd-ctk --help')" ]
        run --separate-stderr "$CTK" help frobnicate
        [ "$status" -eq 2 ]
        [ "$stderr" = "amd-ctk: unknown command 'frobnicate' (see 'amd-ctk --help')" ]
        run --separate-stderr "$CTK" gpu-tracker 1
        [ "$status" -eq 2 ]
        [ "$stderr" = "amd-ctk gpu-tracker: missing argument: expected gpu-ids accessibility (see 'amd-ctk gpu-tracker --help')" ]
}

# The table's no-argument and refused-value runs, each command with its
# exit status, stdout and stderr in $OUT/N.{rc,out,err}, in a private mount
# namespace where /etc and /var are overlays (their writes land in $OUT).
run_table_privately() {
        OUT=$BATS_TEST_TMPDIR/out
        mkdir -p "$OUT" "$BATS_TEST_TMPDIR"/{etc,var}-{up,work} "$BATS_TEST_TMPDIR/state"
        printf '{"state-dir": "%s", "root": "%s", "log-file": "%s"}\n' "$BATS_TEST_TMPDIR/state" \
                "$(ctk_host seed-4xmi210)" "$BATS_TEST_TMPDIR/runtime.log" >"$BATS_TEST_TMPDIR/config.json"
        n=0
        while IFS='|' read -r path _; do
                printf '%s\n' "$path" >"$OUT/$n.path"
                n=$((n + 1))
        done <<<"$TABLE"
        # shellcheck disable=SC2016
        unshare --mount --propagation private bash -ec '
                t=$1 bin=$2
                for d in etc var; do
                        mount -t overlay overlay -o "lowerdir=/$d,upperdir=$t/$d-up,workdir=$t/$d-work" "/$d"
                done
                # a spec the machine has is hidden (a whiteout in the overlay;
                # the machine'"'"'s file untouched): cdi generate writes its own
                rm -f /etc/cdi/amd.json
                export AMD_CTK_CONFIG=$t/config.json
                i=0
                while IFS="|" read -r path _ _ bad _; do
                        set -- $path
                        prog=$bin/$1
                        shift
                        (cd "$t" && "$prog" "$@") >"$t/out/$i.noarg.out" 2>"$t/out/$i.noarg.err" </dev/null &&
                                echo 0 >"$t/out/$i.noarg.rc" || echo $? >"$t/out/$i.noarg.rc"
                        (cd "$t" && "$prog" "$@" $bad) >"$t/out/$i.bad.out" 2>"$t/out/$i.bad.err" </dev/null &&
                                echo 0 >"$t/out/$i.bad.rc" || echo $? >"$t/out/$i.bad.rc"
                        i=$((i + 1))
                done <<<"$3"' sh "$BATS_TEST_TMPDIR" "$CTK_BIN" "$TABLE"
}

@test "no argument: a group prints its help (stdout, exit 0); a command does its default, or says what is missing" {
        run_table_privately
        i=0
        while IFS='|' read -r path rc pattern _; do
                got_rc=$(cat "$OUT/$i.noarg.rc") out=$(cat "$OUT/$i.noarg.out") err=$(cat "$OUT/$i.noarg.err")
                prog=$(prog_of "$path")
                # shellcheck disable=SC2046
                set -- $(args_of "$path")
                if [ "$rc" = help ]; then
                        [ "$got_rc" -eq 0 ] && [ -z "$err" ] && [ "$out" = "$("$prog" "$@" --help)" ] || {
                                echo "'$path' alone: status $got_rc, not its help: $out$err"
                                return 1
                        }
                elif [ "$rc" -eq 2 ]; then
                        [ "$got_rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <<<"$err")" -eq 1 ] &&
                                [[ "$err" == "$path: missing argument: expected "*" (see '$path --help')" ]] || {
                                echo "'$path' alone: status $got_rc: $err"
                                return 1
                        }
                else
                        [ "$got_rc" -eq "$rc" ] && [ -z "$err" ] && grep -Eq -- "$pattern" <<<"$out" || {
                                echo "'$path' alone: status $got_rc (want $rc); stdout: $out; stderr: $err"
                                return 1
                        }
                fi
                i=$((i + 1))
        done <<<"$TABLE"
        # the defaults were written in the namespace's overlays, nowhere else
        [ -s "$BATS_TEST_TMPDIR/etc-up/cdi/amd.json" ]
        [ -s "$BATS_TEST_TMPDIR/etc-up/docker/daemon.json" ]
        [ -e "$BATS_TEST_TMPDIR/state/gpu-tracker.json" ]
}

@test "a value a command refuses: one line on stderr saying which and what it takes, exit 1; a usage error 2" {
        run_table_privately
        i=0
        while IFS='|' read -r path _ _ bad rc want; do
                got_rc=$(cat "$OUT/$i.bad.rc") out=$(cat "$OUT/$i.bad.out") err=$(cat "$OUT/$i.bad.err")
                [ "$got_rc" -eq "$rc" ] && [ -z "$out" ] && [ "$err" = "$want" ] || {
                        echo "'$path $bad': status $got_rc (want $rc)"
                        echo "stderr: $err"
                        echo "want:   $want"
                        return 1
                }
                i=$((i + 1))
        done <<<"$TABLE"
}

# the command with its standard output on a full disk
to_full() { "$@" >/dev/full; }

@test "output that cannot be written (a full disk) is one error line and exit 1, not a cut output with status 0" {
        local p="$PROFILES/seed-4xmi210.json" args
        for args in "version" "--help" "--profile $p gpu list" "--profile $p cdi generate --output $BATS_TEST_TMPDIR/amd.json" \
                "--profile $p cdi list" "seccomp profile" "runtime configure --dry-run --config-path /nonexistent/daemon.json"; do
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
