#!/usr/bin/env bats
# The GPU tracker on the container create/delete path: amd-container-runtime
# driven directly with runc (busybox bundles, a private runc --root), on the
# documented 4-GPU host (sim/profiles/seed-4xmi210.json).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle

# a hung container must not hang the suite (a hang detector, not a speed
# test: the 40 simultaneous creates take 100 s on a loaded 2-CPU machine)
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}

ID_A=36b012bb34c96149a6ef5b28623e6e75cf9f71eb2b824b2c8f44e0449c7a1aa8
ID_B=90cb29e11e83aa3ae497c68c90e1f0894b85262188c1ef9c7284457a9bc35ffd
ID_C=d23ff3dce1839cbf8ce7ad362641ab85e80b315c319edf73b269c460e348053a

setup_file() {
        ctk_require_built "$RT_SHIM" "$RT_BIN/amd-ctk" || return 1
        command -v runc >/dev/null || {
                echo "runc is required" >&2
                return 1
        }
        # one busybox bundle, copied per container
        export TEMPLATE="$BATS_FILE_TMPDIR/template"
        rt_bundle "$TEMPLATE" sleep 1000
}

setup() {
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
        export T="$BATS_TEST_TMPDIR"
        export STATE="$T/state" ROOT="$T/runc-root" CFG="$T/config.json"
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log"
        mkdir -p "$ROOT"
}

teardown() {
        # containers of a failed test must not outlive it
        local id
        for id in $(runc --root "$ROOT" list -q 2>/dev/null); do
                runc --root "$ROOT" delete --force "$id" >/dev/null 2>&1 || true
        done
}

tracker() { "$RT_BIN/amd-ctk" --config "$CFG" gpu-tracker "$@"; }

# bundle ID AMD_VISIBLE_DEVICES: a bundle (in $T/ID) asking for those GPUs.
bundle() {
        cp -a "$TEMPLATE" "$T/$1"
        rt_spec_env "$T/$1" "AMD_VISIBLE_DEVICES=$2"
}

shim() { "$RT_SHIM" --amd-config="$CFG" --root "$ROOT" "$@"; }
# The container's stdio are files: a created container keeps them open, and
# a pipe (bats' `run`) would never see its end.  The shim's own errors are
# passed on to our stderr.
create() {
        local rc=0
        shim create --bundle "$T/$1" "$1" </dev/null >"$T/$1.stdout" 2>"$T/$1.stderr" || rc=$?
        cat "$T/$1.stderr" >&2
        return $rc
}
delete() { shim delete --force "$1"; }

# The state file, read under the tracker lock (as every tracker command reads it).
settled_state() { flock "$STATE/gpu-tracker.lock" cat "$STATE/gpu-tracker.json"; }
# The containers holding GPU n, in order, one per line.
holders() { settled_state | jq -r --argjson g "$1" '.containers[] | select(.[1] | index($g)) | .[0]'; }

# lowlevel_stub SH-CODE: the low-level runtime (config runtime-path) becomes
# a script that runs SH-CODE, then runc with its arguments.  In SH-CODE $cmd
# is the runc subcommand, $id the container id (the last argument), and
# `listed ID` says whether the tracker state records the container.
lowlevel_stub() {
        local stub="$T/lowlevel-stub"
        cat >"$stub" <<EOF
#!/bin/sh
cmd=
for a; do
        case \$a in create | run | delete) [ -n "\$cmd" ] || cmd=\$a ;; esac
        id=\$a
done
listed() { jq -e --arg id "\$1" 'any(.containers[]; .[0] == \$id)' "$STATE/gpu-tracker.json" >/dev/null; }
$1
exec runc "\$@"
EOF
        chmod +x "$stub"
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log" \
                runtime-path "$stub"
}

# wait_for_file FILE: until FILE is not empty (at most 5 s).
wait_for_file() {
        local n=0
        until [ -s "$1" ] || [ $n -ge 100 ]; do
                n=$((n + 1))
                sleep 0.05
        done
        [ -s "$1" ]
}

@test "create records the GPUs, adds the release hook; delete releases" {
        tracker enable
        bundle $ID_A 0-2
        run create $ID_A
        [ "$status" -eq 0 ]
        [ "$(holders 0)" = $ID_A ] && [ "$(holders 2)" = $ID_A ] && [ -z "$(holders 3)" ]
        # the hook runs the amd-ctk beside the runtime, with the same config
        hook=$(jq -c '.hooks.poststop[-1]' "$T/$ID_A/config.json")
        [ "$(jq -r .path <<<"$hook")" = "$RT_BIN/amd-ctk" ]
        [ "$(jq -c .args <<<"$hook")" = "[\"amd-ctk\",\"--config\",\"$CFG\",\"gpu-tracker\",\"release\",\"$ID_A\"]" ]
        # the runtime root and the creating process are recorded for reconciliation
        [ "$(jq -r '.runtimeRoots[0]' "$STATE/gpu-tracker.json")" = "$ROOT" ]

        run delete $ID_A
        [ "$status" -eq 0 ]
        [ "$(settled_state | jq -c .containers)" = "[]" ]
        run runc --root "$ROOT" state $ID_A
        [ "$status" -ne 0 ]
}

@test "an exclusive conflict fails the create with one line; nothing is written" {
        tracker enable
        bundle $ID_B 1,3
        create $ID_B
        tracker 1-3 exclusive
        before=$(cat "$STATE/gpu-tracker.json")
        bundle $ID_C 0-2
        run --separate-stderr create $ID_C
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: GPU 1 is exclusive and in use by container 90cb29e11e83" ]
        [ "$(cat "$STATE/gpu-tracker.json")" = "$before" ]
        run runc --root "$ROOT" state $ID_C
        [ "$status" -ne 0 ]
        # a shared GPU is granted to both
        tracker 1 shared
        run create $ID_C
        [ "$status" -eq 0 ]
        [ "$(holders 1)" = "$(printf '%s\n' $ID_B $ID_C)" ]
}

@test "delete through the runtime releases, without the hook too" {
        tracker enable
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log" \
                ctk-path /nonexistent/amd-ctk
        bundle $ID_A 1
        create $ID_A
        [ "$(jq '.hooks.poststop // [] | length' "$T/$ID_A/config.json")" = 0 ]
        [ "$(holders 1)" = $ID_A ]
        # runc refuses to delete a running container: nothing is released
        runc --root "$ROOT" start $ID_A
        run shim delete $ID_A
        [ "$status" -ne 0 ]
        [ "$(holders 1)" = $ID_A ]
        run delete $ID_A
        [ "$status" -eq 0 ]
        [ -z "$(holders 1)" ]
        grep -q "container $ID_A: GPU tracker: GPUs released" "$T/runtime.log"
}

@test "the poststop hook releases when runc deletes the container itself" {
        tracker enable
        bundle $ID_A 3
        create $ID_A
        [ "$(holders 3)" = $ID_A ]
        runc --root "$ROOT" delete --force $ID_A
        [ -z "$(holders 3)" ]
}

@test "stale allocations are dropped before they block anyone" {
        tracker enable
        tracker 2 exclusive
        # no release hook (no amd-ctk to run), deleted behind the runtime's back
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log" \
                ctk-path /nonexistent/amd-ctk
        bundle $ID_A 2
        create $ID_A
        [ "$(jq '.hooks.poststop // [] | length' "$T/$ID_A/config.json")" = 0 ]
        runc --root "$ROOT" delete --force $ID_A
        [ "$(holders 2)" = $ID_A ]
        # the exclusive GPU is free for the next container
        bundle $ID_B 2
        run create $ID_B
        [ "$status" -eq 0 ]
        [ "$(holders 2)" = $ID_B ]
}

@test "a create that runc fails leaves nothing behind once it is over" {
        tracker enable
        tracker 0 exclusive
        bundle $ID_A 0
        rt_spec_edit "$T/$ID_A" '.root.path = "/nonexistent-rootfs"'
        run create $ID_A
        [ "$status" -ne 0 ]
        # runc failed and the creating process is gone: the next tracker
        # command drops what the create took
        run tracker status
        [ "$status" -eq 0 ]
        [[ "${lines[3]}" == "0         0xEA35F57CC80DEB35       Exclusive           -"* ]]
        bundle $ID_B 0
        run create $ID_B
        [ "$status" -eq 0 ]
}

@test "a disabled tracker never blocks containers, even with a corrupt state" {
        tracker disable
        echo garbage >"$STATE/gpu-tracker.json"
        bundle $ID_A 0-3
        run create $ID_A
        [ "$status" -eq 0 ]
        [ "$(cat "$STATE/gpu-tracker.json")" = garbage ]
        [ "$(jq '.hooks.poststop // [] | length' "$T/$ID_A/config.json")" = 0 ]
        run delete $ID_A
        [ "$status" -eq 0 ]
}

@test "a refused create never reaches runc; its error is runc's last log entry" {
        tracker enable
        bundle $ID_B 1
        create $ID_B
        tracker 1 exclusive
        before=$(cat "$STATE/gpu-tracker.json")
        bundle $ID_C 1,2
        rc=0
        shim --log "$T/runc.log" --log-format json create --bundle "$T/$ID_C" $ID_C \
                </dev/null >"$T/$ID_C.stdout" 2>"$T/$ID_C.stderr" || rc=$?
        [ "$rc" -eq 1 ]
        msg="amd-container-runtime: GPU 1 is exclusive and in use by container 90cb29e11e83"
        [ "$(cat "$T/$ID_C.stderr")" = "$msg" ]
        [ "$(tail -n 1 "$T/runc.log" | jq -r .level)" = error ]
        [ "$(tail -n 1 "$T/runc.log" | jq -r .msg)" = "$msg" ]
        [ "$(cat "$STATE/gpu-tracker.json")" = "$before" ]
        [ "$(runc --root "$ROOT" list -q)" = $ID_B ]
        run runc --root "$ROOT" state $ID_C
        [ "$status" -ne 0 ]
}

@test "GPUs that are no longer the recorded ones fail a create; no container is left" {
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host mi210-xgmi-x8)" log-file "$T/runtime.log"
        tracker enable
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log"
        before=$(cat "$STATE/gpu-tracker.json")
        bundle $ID_A 0
        run --separate-stderr create $ID_A
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: GPUs info is invalid. Please reset GPU Tracker." ]
        [ "$(cat "$STATE/gpu-tracker.json")" = "$before" ]
        [ -z "$(runc --root "$ROOT" list -q)" ]
}

@test "a corrupt state fails a tracked create with the fix; no container is left" {
        tracker enable
        echo garbage >"$STATE/gpu-tracker.json"
        bundle $ID_A 0
        run --separate-stderr create $ID_A
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: GPU Tracker state $STATE/gpu-tracker.json is corrupt "*"; run 'amd-ctk gpu-tracker reset' to start over" ]]
        [ "$(cat "$STATE/gpu-tracker.json")" = garbage ]
        [ -z "$(runc --root "$ROOT" list -q)" ]
}

@test "a tracked create allocates before the low-level runtime starts" {
        tracker enable
        lowlevel_stub 'if [ "$cmd" = create ]; then
        if listed "$id"; then echo listed >"$T/stub.log"; else echo "not listed" >"$T/stub.log"; fi
fi'
        bundle $ID_A 0
        create $ID_A
        [ "$(cat "$T/stub.log")" = listed ]
        [ "$(holders 0)" = $ID_A ]
        [ "$(jq -r '.hooks.poststop[-1].args[-1]' "$T/$ID_A/config.json")" = $ID_A ]
        runc --root "$ROOT" state $ID_A >/dev/null
}

@test "run allocates before the low-level runtime starts" {
        tracker enable
        lowlevel_stub 'if [ "$cmd" = run ]; then
        if listed "$id"; then echo listed >"$T/stub.log"; else echo "not listed" >"$T/stub.log"; fi
fi'
        bundle $ID_A 1
        shim run --detach --bundle "$T/$ID_A" $ID_A </dev/null >"$T/$ID_A.stdout" 2>"$T/$ID_A.stderr"
        [ "$(cat "$T/stub.log")" = listed ]
        [ "$(holders 1)" = $ID_A ]
        [ "$(jq -r '.hooks.poststop[-1].args[-1]' "$T/$ID_A/config.json")" = $ID_A ]
}

@test "a create the low-level runtime fails exits with its status; its GPUs are free for the next create" {
        tracker enable
        tracker 0 exclusive
        lowlevel_stub 'if [ "$cmd" = create ]; then
        case $id in
        exit-*)
                echo "stub: create failed" >&2
                exit 3
                ;;
        sig-*) kill -TERM $$ ;;
        esac
fi'
        bundle exit-3 0
        run --separate-stderr create exit-3
        [ "$status" -eq 3 ]
        [ "$stderr" = "stub: create failed" ]
        # the creating process is gone and runc has no such container: the
        # next tracker command drops the allocation
        run tracker status --json
        [ "$status" -eq 0 ]
        [[ "$output" != *exit-3* ]]
        bundle sig-term 0,1
        run create sig-term
        [ "$status" -eq 143 ]
        run tracker status --json
        [[ "$output" != *sig-term* ]]
        # the exclusive GPU is free at once
        bundle $ID_B 0
        run create $ID_B
        [ "$status" -eq 0 ]
        [ "$(holders 0)" = $ID_B ]
}

@test "40 simultaneous creates of exclusive GPUs: never two holders, refusals leave no trace" {
        tracker enable
        tracker all exclusive
        for i in $(seq 1 40); do
                id=c$i
                bundle $id $((i % 4))
        done
        pids=()
        for i in $(seq 1 40); do
                (
                        rc=0
                        create c$i 2>"$T/c$i.out" || rc=$?
                        echo $rc >"$T/c$i.rc"
                ) &
                pids+=($!)
        done
        wait "${pids[@]}" # (a bare wait would also wait for bats' timeout watchdog)
        granted=0
        for i in $(seq 1 40); do
                rc=$(cat "$T/c$i.rc")
                if [ "$rc" -eq 0 ]; then
                        granted=$((granted + 1))
                        [ "$(holders $((i % 4)))" = c$i ]
                        runc --root "$ROOT" state c$i >/dev/null
                else
                        grep -q "is exclusive and in use by container c" "$T/c$i.out"
                        [ "$(jq --arg id c$i '[.containers[] | select(.[0] == $id)] | length' "$STATE/gpu-tracker.json")" = 0 ]
                        ! runc --root "$ROOT" state c$i >/dev/null 2>&1 || false
                fi
        done
        [ "$granted" -eq 4 ]
        for g in 0 1 2 3; do [ "$(holders $g | wc -l)" -eq 1 ]; done
}

@test "200 creates and deletes interleaved through the runtime: the state ends empty" {
        tracker enable
        tracker 2,3 exclusive
        for w in $(seq 1 10); do
                cp -a "$TEMPLATE" "$T/w$w"
                rt_spec_env "$T/w$w" "AMD_VISIBLE_DEVICES=$((w % 2)),$((2 + w % 2))"
        done
        pids=()
        for w in $(seq 1 10); do
                (
                        for k in $(seq 1 20); do
                                id=w$w-$k
                                shim create --bundle "$T/w$w" $id </dev/null >/dev/null 2>>"$T/w$w.err" || true
                                shim delete --force $id >/dev/null 2>>"$T/w$w.err" || true
                        done
                ) &
                pids+=($!)
        done
        wait "${pids[@]}"
        [ "$(settled_state | jq -c .containers)" = "[]" ]
        [ -z "$(runc --root "$ROOT" list -q)" ]
        # the only failures were refusals of an exclusive GPU (runc may warn,
        # on a loaded host, that it retries removing a busy cgroup)
        ! grep -v -e "is exclusive and in use by container" \
                -e 'level=warning msg="Failed to remove cgroup (will retry)"' "$T"/w*.err
}

# With the tracker enabled, a delete runs runc's as a child and releases
# the GPUs only once runc has deleted the container.
# Containers made without the poststop hook (no amd-ctk for it), so that
# only the delete can release them.
no_hook_config() {
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log" \
                ctk-path /nonexistent/amd-ctk
}

runc_status() { runc --root "$ROOT" state "$1" | jq -r .status; }
is_stopped() { [ "$(runc_status "$1")" = stopped ]; }
# stop ID: the created container is started, killed, and seen stopped.
stop() {
        runc --root "$ROOT" start "$1"
        runc --root "$ROOT" kill "$1" KILL
        ctk_wait_for 10 is_stopped "$1"
}

@test "a tracked delete: a stopped container and one runc no longer knows are released" {
        tracker enable
        no_hook_config
        bundle $ID_A 1
        bundle $ID_B 2
        create $ID_A
        create $ID_B
        [ "$(holders 1)" = $ID_A ] && [ "$(holders 2)" = $ID_B ]
        stop $ID_A
        [ "$(holders 1)" = $ID_A ]
        run shim delete $ID_A
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        [ -z "$(holders 1)" ] && [ "$(holders 2)" = $ID_B ]
        run runc --root "$ROOT" state $ID_A
        [ "$status" -ne 0 ]
        grep -q "container $ID_A: GPU tracker: GPUs released" "$T/runtime.log"
        # deleted behind the runtime's back: runc fails, the GPUs are released
        runc --root "$ROOT" delete --force $ID_B
        run shim delete $ID_B
        [ "$status" -ne 0 ]
        [[ "$output" == *"container does not exist"* ]] # runc's error
        [ -z "$(holders 2)" ]
}

@test "a running container's delete without --force: runc refuses, its GPUs are kept" {
        tracker enable
        no_hook_config
        bundle $ID_A 0
        create $ID_A
        runc --root "$ROOT" start $ID_A
        before=$(settled_state)
        bundle $ID_B 3
        create $ID_B
        run shim delete $ID_A
        [ "$status" -ne 0 ]
        [ "$(runc_status $ID_A)" = running ]
        [ "$(holders 0)" = $ID_A ]
        [ "$(settled_state | jq -c '.containers | map(.[0])')" = "[\"$ID_A\",\"$ID_B\"]" ]
        [ "$(jq -c '.containers[0]' <<<"$before")" = "$(settled_state | jq -c '.containers[0]')" ]
}

@test "delete --force of a running container releases its GPUs once runc has deleted it" {
        tracker enable
        no_hook_config
        bundle $ID_A 0-3
        create $ID_A
        runc --root "$ROOT" start $ID_A
        run shim delete --force $ID_A
        [ "$status" -eq 0 ]
        for g in 0 1 2 3; do [ -z "$(holders $g)" ]; done
        run runc --root "$ROOT" state $ID_A
        [ "$status" -ne 0 ]
        # -f after the id, as urfave/cli allows
        bundle $ID_B 1
        create $ID_B
        runc --root "$ROOT" start $ID_B
        run shim delete $ID_B -f
        [ "$status" -eq 0 ]
        [ -z "$(holders 1)" ]
}

@test "a tracked delete whose low-level runtime cannot be run keeps the GPUs allocated" {
        tracker enable
        tracker 1 exclusive
        no_hook_config
        bundle $ID_A 1
        create $ID_A
        runc --root "$ROOT" start $ID_A
        before=$(settled_state)
        # runc disappears (an upgrade in progress, a broken runtime-path)
        printf 'not a program\n' >"$T/broken-runc"
        chmod 0644 "$T/broken-runc"
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log" \
                ctk-path /nonexistent/amd-ctk runtime-path "$T/broken-runc"
        for flags in "--force" ""; do
                run shim delete $flags $ID_A
                [ "$status" -ne 0 ]
                [ "${#lines[@]}" -eq 1 ]
                [[ "$output" == "amd-container-runtime: "*"$T/broken-runc"* ]]
                [ "$(runc_status $ID_A)" = running ]
                [ "$(holders 1)" = $ID_A ]
                [ "$(settled_state)" = "$before" ]
        done
        # the exclusive GPU is still refused to another container
        no_hook_config
        bundle $ID_B 1
        run --separate-stderr create $ID_B
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: GPU 1 is exclusive and in use by container 36b012bb34c9" ]
}

@test "deleting a container the tracker does not hold leaves the state byte-identical" {
        tracker enable
        tracker 3 exclusive
        bundle $ID_A 3
        create $ID_A
        cp -a "$TEMPLATE" "$T/$ID_B" # asks for no GPU
        create $ID_B
        settled_state >"$T/before"
        stop $ID_B
        run shim delete $ID_B
        [ "$status" -eq 0 ]
        settled_state | cmp - "$T/before"
        cp -a "$TEMPLATE" "$T/$ID_C"
        create $ID_C
        runc --root "$ROOT" start $ID_C
        run shim delete --force $ID_C
        [ "$status" -eq 0 ]
        settled_state | cmp - "$T/before"
        [ "$(holders 3)" = $ID_A ]
}

@test "a state that is not in the writer's form (edited, pretty-printed) is still released" {
        tracker enable
        no_hook_config
        bundle $ID_A 2
        bundle $ID_B 3
        create $ID_A
        create $ID_B
        settled_state | jq . >"$T/pretty"
        mv "$T/pretty" "$STATE/gpu-tracker.json"
        stop $ID_A
        rt_config "$CFG" state-dir "$STATE" root "$(ctk_host seed-4xmi210)" log-file "$T/runtime.log"
        run shim delete $ID_A
        [ "$status" -eq 0 ]
        [ -z "$(holders 2)" ]
        [ "$(holders 3)" = $ID_B ]
        run runc --root "$ROOT" state $ID_A
        [ "$status" -ne 0 ]
}

@test "right after a delete returns, gpu-tracker status never shows the container" {
        tracker enable
        no_hook_config
        for i in 1 2 3 4 5 6; do
                bundle c$i 0
                create c$i
                # no runtime root: only the release, not reconciliation, can drop it
                settled_state | jq -c '.containers |= map(.[2] = null)' >"$T/edited"
                mv "$T/edited" "$STATE/gpu-tracker.json"
                if [ $((i % 2)) = 0 ]; then
                        stop c$i
                        shim delete c$i
                else
                        runc --root "$ROOT" start c$i
                        shim delete --force c$i
                fi
                run tracker status
                [ "$status" -eq 0 ]
                [[ "$output" != *"c$i"* ]]
        done
}
