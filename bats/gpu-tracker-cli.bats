#!/usr/bin/env bats
# amd-ctk gpu-tracker against the 4-GPU host of the GPU tracker
# documentation (sim/profiles/seed-4xmi210.json), with a private state
# directory named by a temporary config file.  Every output is compared with
# the documentation's text; the status table byte for byte, in the
# document's columns and words within 100 columns (cli-output.bats).

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export PROFILE="$PROFILES/seed-4xmi210.json"
        ctk_require_built "$CTK" || return 1
}

setup() {
        export STATE="$BATS_TEST_TMPDIR/state"
        export CFG="$BATS_TEST_TMPDIR/config.json"
        printf '{"state-dir": "%s"}\n' "$STATE" >"$CFG"
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
}

ctk() { "$CTK" --config "$CFG" --profile "$PROFILE" "$@"; }
tracker() { ctk gpu-tracker "$@"; }

ID_A=36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8
ID_B=90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd
ID_C=8463b475b55b104b30edec8ddf6249b6214b27127106aa0ff4a8a514b856810e

RULE=--------------------------------------------------------------------

# The documentation's table with the rows given, within 100 columns: its
# columns and words, Docker's 64-digit ids by their first 12 characters,
# rules as long as the header (trailing blanks trimmed, as the documentation
# shows them).
table() {
        printf '%s\n' "$RULE" "GPU Id    UUID                     Accessibility       Container Ids" "$RULE"
        printf '%s\n' "$@" | sed -E 's/([0-9a-f]{12})[0-9a-f]{52}$/\1/'
}

# Compares a status table with the expected text, byte for byte (no line
# ends in a blank), every line within 100 columns.
assert_table() {
        local want
        want=$(table "$@")
        if [ "$output" != "$want" ]; then
                diff <(echo "$want") <(echo "$output") || true
                return 1
        fi
        [ -z "$(printf '%s\n' "$output" | awk 'length($0) > 100')" ]
}

# Records a container holding GPUs in the state file, as the runtime would
# (no runtime root recorded: never reconciled away).  Args: ID GPU[,GPU]...
hold() {
        local f="$STATE/gpu-tracker.json"
        jq -c ".containers += [[\"$1\", [$2], null, 0, 0]]" "$f" >"$f.new" && mv "$f.new" "$f"
}

@test "gpu-tracker -h prints the documented help, without root" {
        run --separate-stderr "$CTK" gpu-tracker -h
        [ "$status" -eq 0 ]
        [ "$output" = "$(cat <<'HELP'
NAME:
   AMD Container Toolkit CLI gpu-tracker - GPU Tracker related commands

USAGE:
   amd-ctk gpu-tracker [gpu-ids] [accessibility]

     Arguments:
       gpu-ids        Comma-separated list of GPU IDs (comma separated list, range operator, all)
       accessibility  Must be either 'exclusive' or 'shared'

     Examples:
       amd-ctk gpu-tracker 0,1,2 exclusive
       amd-ctk gpu-tracker 0,1-2 shared
       amd-ctk gpu-tracker all shared

   OR

   amd-ctk gpu-tracker [command] [options]

COMMANDS:
   disable  Disable the GPU Tracker
   enable   Enable the GPU Tracker
   reset    Reset the GPU Tracker
   status   Show Status of GPUs
   help, h  Shows a list of commands or help for one command

OPTIONS:
   --help, -h  show help
HELP
)" ]
        run "$CTK" gpu-tracker status --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"gpu-tracker status - Show Status of GPUs"* ]]
}

@test "section 1-3: status, enable, disable" {
        run tracker status
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker is disabled" ]
        # status only reads: nothing written, not even the state directory
        [ ! -e "$STATE" ]

        run tracker enable
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker has been enabled" ]
        run tracker enable
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker is already enabled" ]

        run tracker status
        [ "$status" -eq 0 ]
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Shared              -" \
                "2         0x6E32F10EFC982B4C       Shared              -" \
                "3         0x12FE4F7FDAF06B9        Shared              -"

        run tracker disable
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker has been disabled" ]
        run tracker status
        [ "$output" = "GPU Tracker is disabled" ]
        run tracker disable
        [ "$output" = "GPU Tracker is already disabled" ]
}

@test "section 4: containers are listed under each GPU, one line each" {
        tracker enable
        hold $ID_A 0,1,2
        hold $ID_B 1,3
        run tracker status
        [ "$status" -eq 0 ]
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              $ID_A" \
                "1         0x89CAA15875FF5A43       Shared              $ID_A" \
                "                                                       $ID_B" \
                "2         0x6E32F10EFC982B4C       Shared              $ID_A" \
                "3         0x12FE4F7FDAF06B9        Shared              $ID_B"

        # the poststop hook: by argument, or from the OCI state on stdin
        run tracker release $ID_A
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        run tracker status
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Shared              $ID_B" \
                "2         0x6E32F10EFC982B4C       Shared              -" \
                "3         0x12FE4F7FDAF06B9        Shared              $ID_B"
        run tracker release <<<"{\"ociVersion\":\"1.0.2\",\"id\":\"$ID_B\",\"status\":\"stopped\",\"bundle\":\"/b\"}"
        [ "$status" -eq 0 ]
        [ "$(jq -c .containers "$STATE/gpu-tracker.json")" = "[]" ]
}

@test "the release hook: nothing to do costs no lock; a release waits for the lock and is done when it returns" {
        tracker enable
        hold $ID_A 0
        cp "$STATE/gpu-tracker.json" "$BATS_TEST_TMPDIR/before.json"
        # this shell holds the lock (as a create or delete in progress would)
        local lock
        exec {lock}<>"$STATE/gpu-tracker.lock"
        flock "$lock"
        # runc runs the hook on every delete: a container the state does not
        # name returns at once, lock held or not
        run timeout 5 "$CTK" --config "$CFG" gpu-tracker release $ID_B {lock}>&-
        [ "$status" -eq 0 ]
        cmp "$STATE/gpu-tracker.json" "$BATS_TEST_TMPDIR/before.json"
        # one it names waits for the lock (it has it open, and runs on), and
        # has released when it exits
        "$CTK" --config "$CFG" gpu-tracker release $ID_A >"$BATS_TEST_TMPDIR/out" 2>&1 {lock}>&- &
        local releaser=$!
        ctk_wait_for 60 ctk_has_open $releaser "$STATE/gpu-tracker.lock"
        kill -0 $releaser # still waiting
        cmp "$STATE/gpu-tracker.json" "$BATS_TEST_TMPDIR/before.json"
        exec {lock}>&-
        wait $releaser
        [ ! -s "$BATS_TEST_TMPDIR/out" ]
        [ "$(jq -c .containers "$STATE/gpu-tracker.json")" = "[]" ]
}

@test "section 5: exclusive, and exclusive refused for a GPU used by two containers" {
        tracker enable
        hold $ID_B 1,3
        run tracker 1-3 exclusive
        [ "$status" -eq 0 ]
        [ "$output" = "GPUs [1 2 3] have been made exclusive" ]
        run tracker status
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Exclusive           $ID_B" \
                "2         0x6E32F10EFC982B4C       Exclusive           -" \
                "3         0x12FE4F7FDAF06B9        Exclusive           $ID_B"

        tracker 1 shared
        hold $ID_C 0,1,2
        run tracker 1 exclusive
        [ "$status" -eq 0 ]
        [ "$output" = "GPUs [1] have not been made exclusive because more than one container is currently using it" ]
        run tracker 0-1 exclusive
        [ "$output" = "$(printf '%s\n' 'GPUs [0] have been made exclusive' \
                'GPUs [1] have not been made exclusive because more than one container is currently using it')" ]
}

@test "section 6: shared" {
        tracker enable
        tracker 1-3 exclusive
        run tracker 1 shared
        [ "$status" -eq 0 ]
        [ "$output" = "GPUs [1] have been made shared" ]
        run tracker status
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Shared              -" \
                "2         0x6E32F10EFC982B4C       Exclusive           -" \
                "3         0x12FE4F7FDAF06B9        Exclusive           -"
        # ids in the selection grammar: UUIDs, all, mixed
        run tracker 0x12fe4f7fdaf06b9,0 exclusive
        [ "$output" = "GPUs [0 3] have been made exclusive" ]
        run tracker all shared
        [ "$output" = "GPUs [0 1 2 3] have been made shared" ]
        # the names of our CDI spec, as the runtime reads them
        run tracker 1,amd.com/gpu=2,amd.com/gpu=0x12FE4F7FDAF06B9 exclusive
        [ "$output" = "GPUs [1 2 3] have been made exclusive" ]
        run tracker amd.com/gpu=all shared
        [ "$output" = "GPUs [0 1 2 3] have been made shared" ]
        before=$(cat "$STATE/gpu-tracker.json")
        run --separate-stderr tracker amd.com/gpu=9 exclusive
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk: 'amd.com/gpu=9' names no GPU of this host (its names are GPU indices, 0x<UUID> and all; 'amd-ctk cdi list' shows them)" ]
        run --separate-stderr tracker example.com/nic=eth0 exclusive
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk: 'example.com/nic=eth0' is not a device of amd.com/gpu: the GPU Tracker knows AMD GPUs only" ]
        [ "$(cat "$STATE/gpu-tracker.json")" = "$before" ]
}

@test "exclusive/shared while disabled: nothing happens" {
        run tracker 1-3 exclusive
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker is disabled" ]
        run tracker 1 shared
        [ "$output" = "GPU Tracker is disabled" ]
}

@test "section 7: a changed topology is detected, reset recovers and keeps enabled" {
        tracker enable
        tracker 2 exclusive
        hold $ID_A 0
        # the recorded GPU 1 was in another partition mode (as after a repartition)
        f="$STATE/gpu-tracker.json"
        jq -c '.gpus[1].partition = "cpx_nps4"' "$f" >"$f.new" && mv "$f.new" "$f"
        run --separate-stderr tracker status
        [ "$status" -eq 1 ]
        [ "$output$stderr" = "GPUs info is invalid. Please reset GPU Tracker." ]
        run --separate-stderr tracker 0 exclusive
        [ "$status" -eq 1 ]
        [ "$stderr" = "GPUs info is invalid. Please reset GPU Tracker." ]

        run tracker reset
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf '%s\n' 'GPU Tracker has been reset' \
                'Since GPU Tracker was enabled, it is recommended to stop and restart running containers to get the most accurate GPU Tracker status')" ]
        run tracker status
        [ "$status" -eq 0 ]
        assert_table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Shared              -" \
                "2         0x6E32F10EFC982B4C       Shared              -" \
                "3         0x12FE4F7FDAF06B9        Shared              -"

        tracker disable
        run tracker reset
        [ "$output" = "GPU Tracker has been reset" ]
        run tracker status
        [ "$output" = "GPU Tracker is disabled" ]
}

@test "card renumbering alone does not invalidate the state" {
        tracker enable
        f="$STATE/gpu-tracker.json"
        jq -c '.gpus[0].drm = ["/dev/dri/card9", "/dev/dri/renderD140"]' "$f" >"$f.new" && mv "$f.new" "$f"
        run tracker status
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 7 ]
}

@test "a corrupt state: one line naming the file and the fix; reset recovers; still enabled meanwhile; disable replaces it" {
        tracker enable
        echo '{"enabled": tr' >"$STATE/gpu-tracker.json"
        for cmd in status enable "0 exclusive"; do
                run --separate-stderr tracker $cmd
                [ "$status" -eq 1 ]
                [ -z "$output" ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == *"$STATE/gpu-tracker.json is corrupt"* ]]
                [[ "$stderr" == *"run 'amd-ctk gpu-tracker reset'"* ]]
        done
        run tracker reset
        [ "$status" -eq 0 ]
        [[ "$output" == "GPU Tracker has been reset"* ]]
        run tracker status
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 7 ]
        # disabling needs nothing of a state that cannot be read
        echo '{"enabled": tr' >"$STATE/gpu-tracker.json"
        run tracker disable
        [ "$status" -eq 0 ]
        [ "$output" = "GPU Tracker has been disabled" ]
        run tracker status
        [ "$output" = "GPU Tracker is disabled" ]
}

# typed SCRIPT: runs SCRIPT (commands as docs/troubleshooting.md types
# them) in a mount namespace of its own where /var/lib is $VARLIB, with
# amd-ctk on PATH and a configuration that names the simulated host and
# the default state directory; $status and $output
typed() {
        run unshare -m --propagation private sh -c 'mount --bind "$1" /var/lib && shift && eval "$1"' typed \
                "$VARLIB" "export PATH=$CTK_BIN:\$PATH AMD_CTK_CONFIG=$TYPED_CFG; $1"
        echo "$output"
}

# The fixes docs/troubleshooting.md gives for the tracker's state, each typed
# as it is written: the message as the page quotes it, then the tracker as
# enabled (or disabled) as it was.
@test "troubleshooting's fixes for the tracker's state, as typed: the tracker as enabled as it was" {
        VARLIB=$BATS_TEST_TMPDIR/varlib
        mkdir -p "$VARLIB"
        D=/var/lib/amd-container-toolkit
        TYPED_CFG=$BATS_TEST_TMPDIR/typed.json
        printf '{"profile": "%s", "state-dir": "%s"}\n' "$PROFILE" "$D" >"$TYPED_CFG"
        enabled_table="$(table \
                "0         0xEA35F57CC80DEB35       Shared              -" \
                "1         0x89CAA15875FF5A43       Shared              -" \
                "2         0x6E32F10EFC982B4C       Shared              -" \
                "3         0x12FE4F7FDAF06B9        Shared              -")"
        for was in enabled disabled; do
                rm -rf "${VARLIB:?}"/*
                typed "amd-ctk gpu-tracker enable && amd-ctk gpu-tracker 1 exclusive"
                [ "$status" -eq 0 ]
                [ $was = enabled ] || typed "amd-ctk gpu-tracker disable"
                want=$([ $was = enabled ] && echo "$enabled_table" || echo "GPU Tracker is disabled")
                # corrupt: reset
                echo '{"enabled": tr' >"$VARLIB/amd-container-toolkit/gpu-tracker.json"
                if [ $was = enabled ]; then
                        typed "amd-ctk gpu-tracker status"
                        [ "$status" -eq 1 ]
                        [[ "$output" == "amd-ctk: GPU Tracker state $D/gpu-tracker.json is corrupt ("*"); run 'amd-ctk gpu-tracker reset' to start over" ]]
                fi
                typed "amd-ctk gpu-tracker reset"
                [ "$status" -eq 0 ]
                typed "amd-ctk gpu-tracker status"
                [ "$output" = "$want" ]
                # a symbolic link: remove it, then reset
                rm "$VARLIB/amd-container-toolkit/gpu-tracker.json"
                ln -s /etc/hostname "$VARLIB/amd-container-toolkit/gpu-tracker.json"
                typed "amd-ctk gpu-tracker 0 exclusive"
                if [ $was = enabled ]; then
                        [ "$status" -eq 1 ]
                        [ "$output" = "amd-ctk: GPU Tracker state $D/gpu-tracker.json is a symbolic link: refused (remove it, then run 'amd-ctk gpu-tracker reset')" ]
                fi
                typed "rm $D/gpu-tracker.json && amd-ctk gpu-tracker reset"
                [ "$status" -eq 0 ]
                [[ "${lines[0]}" == "GPU Tracker has been reset" ]]
                typed "amd-ctk gpu-tracker status"
                [ "$output" = "$want" ]
                # the state removed alone
                rm "$VARLIB/amd-container-toolkit/gpu-tracker.json"
                typed "amd-ctk gpu-tracker status"
                [ "$output" = "$want" ]
                # the directory every user's, its group's, someone else's: the fix the line gives
                for bad in "chmod 0777 $D" "chmod 0770 $D" "chown 65534 $D"; do
                        typed "$bad"
                        typed "amd-ctk gpu-tracker status"
                        [ "$status" -eq 1 ]
                        case $bad in
                        *0777*) why="it is writable by every user (mode 0777)" ;;
                        *0770*) why="it is writable by its group (mode 0770)" ;;
                        *) why="it is owned by uid 65534, not root" ;;
                        esac
                        [ "$output" = "amd-ctk: GPU Tracker state directory $D is not trusted: $why: refused (chown root:root $D; chmod 0700 $D)" ]
                        typed "chown root:root $D; chmod 0700 $D"
                        typed "amd-ctk gpu-tracker status"
                        [ "$output" = "$want" ]
                done
                # the topology changed (a repartition): reset
                if [ $was = enabled ]; then
                        typed "amd-ctk gpu-tracker 0 shared" # (writes the state status made afresh)
                        f=$VARLIB/amd-container-toolkit/gpu-tracker.json
                        jq -c '.gpus[1].partition = "cpx_nps4"' "$f" >"$f.new" && mv "$f.new" "$f"
                        typed "amd-ctk gpu-tracker status"
                        [ "$output" = "GPUs info is invalid. Please reset GPU Tracker." ]
                        typed "amd-ctk gpu-tracker reset"
                        typed "amd-ctk gpu-tracker status"
                        [ "$output" = "$want" ]
                fi
        done
}

@test "status --json" {
        run tracker status --json
        [ "$status" -eq 0 ]
        [ "$(jq -c . <<<"$output")" = '{"enabled":false,"gpus":[]}' ]
        tracker enable
        tracker 3 exclusive
        hold $ID_A 1
        hold $ID_B 1
        run tracker status --json
        [ "$status" -eq 0 ]
        [ "$(jq -c '.gpus[1]' <<<"$output")" = "{\"index\":1,\"uuid\":\"0x89CAA15875FF5A43\",\"accessibility\":\"shared\",\"containers\":[\"$ID_A\",\"$ID_B\"]}" ]
        [ "$(jq -c '[.enabled, (.gpus | length), .gpus[3].accessibility, .gpus[3].uuid]' <<<"$output")" = '[true,4,"exclusive","0x12FE4F7FDAF06B9"]' ]
}

@test "usage errors: missing and invalid arguments, unknown GPUs" {
        run --separate-stderr tracker 0
        [ "$status" -eq 2 ]
        [ "$stderr" = "amd-ctk gpu-tracker: missing argument: expected gpu-ids accessibility (see 'amd-ctk gpu-tracker --help')" ]
        run --separate-stderr tracker 0 private
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk gpu-tracker: invalid value 'private' for accessibility (exclusive or shared)" ]
        tracker enable
        before=$(cat "$STATE/gpu-tracker.json")
        run --separate-stderr tracker 1,9 exclusive
        [ "$status" -eq 1 ]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [[ "$stderr" == *9* ]]
        [ "$(cat "$STATE/gpu-tracker.json")" = "$before" ]
        run --separate-stderr tracker status extra
        [ "$status" -eq 2 ]
}

@test "root is required (help is not)" {
        cp "$CTK" "$BATS_TEST_TMPDIR/amd-ctk"
        chmod 755 "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/amd-ctk"
        run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
                "$BATS_TEST_TMPDIR/amd-ctk" --config "$CFG" --profile "$PROFILE" gpu-tracker status
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk gpu-tracker status: permission denied: the GPU Tracker needs root" ]
        run setpriv --reuid=65534 --regid=65534 --clear-groups "$BATS_TEST_TMPDIR/amd-ctk" gpu-tracker -h
        [ "$status" -eq 0 ]
        [ ! -e "$STATE" ]
}
