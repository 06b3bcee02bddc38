#!/usr/bin/env bats
# amd-container-runtime is a launcher that execs the low-level runtime itself
# when a call needs nothing from us, and the full runtime
# (libexec/amd-container-toolkit/amd-container-runtime-full) otherwise.
# Here the launcher is copied alone into a directory of its own, so a call
# that reaches the full runtime fails with the launcher's "cannot run" line:
# which calls succeed shows which ones the launcher took. The low-level
# runtime is a script that records its arguments.

load helpers/common
load helpers/runtime_bundle

setup() {
        T=$(mktemp -d /tmp/ctk-launch.XXXXXX)
        mkdir -p "$T/bin" "$T/bundle" "$T/state"
        cp "$RT_SHIM" "$T/bin/amd-container-runtime"
        LAUNCHER=$T/bin/amd-container-runtime
        cat >"$T/fake-runc" <<EOS
#!/bin/sh
printf '%s\n' "\$0" "\$@" >"$T/argv"
EOS
        chmod +x "$T/fake-runc"
        CFG=$T/config.json
        export AMD_CTK_CONFIG=$CFG
        jq -n --arg r "$T/fake-runc" --arg s "$T/state" --arg p "$PROFILES/seed-4xmi210.json" \
                '{"runtime-path": $r, "state-dir": $s, "profile": $p, "log-file": "/dev/null"}' >"$CFG"
        echo '{"ociVersion": "1.0.2", "process": {"env": ["PATH=/bin", "TERM=xterm"]}}' >"$T/bundle/config.json"
        SLEEPERS=()
        MISSING="amd-container-runtime: cannot run $T/bin/../libexec/amd-container-toolkit/amd-container-runtime-full: No such file or directory (reinstall amd-container-toolkit)"
}

teardown() {
        [ -z "${SLEEPERS[*]}" ] || kill "${SLEEPERS[@]}" 2>/dev/null || true
        rm -rf "$T"
}

# direct ARGS...: the launcher alone handles the call (the fake runtime got
# exactly ARGS).
direct() {
        rm -f "$T/argv"
        run "$LAUNCHER" "$@"
        [ "$status" -eq 0 ] || {
                echo "status $status: $output"
                return 1
        }
        [ "$(cat "$T/argv")" = "$(printf '%s\n' "$T/fake-runc" "$@")" ]
}

# full ARGS...: the call needs the full runtime (missing here).
full() {
        rm -f "$T/argv"
        run "$LAUNCHER" "$@"
        [ "$status" -eq 1 ] && [ "$output" = "$MISSING" ] && [ ! -e "$T/argv" ] || {
                echo "status $status: $output"
                return 1
        }
}

@test "launcher: state, start, kill, create and delete without GPUs go straight to the low-level runtime" {
        direct --root /r state ID
        direct --root /r --log /l --log-format json start ID
        direct kill ID 9
        direct --root /r create --bundle "$T/bundle" ID
        direct run -b "$T/bundle" --detach ID
        direct delete --force ID
        direct features
}

@test "launcher: a spec that may name GPUs goes to the full runtime, even spelt with \\u escapes" {
        cp "$T/bundle/config.json" "$T/plain.json"
        for env in AMD_VISIBLE_DEVICES=0 AMD_VISIBLE_DEVICES=void DOCKER_RESOURCE_AMD_GPU=0x1 \
                '\u0041MD_VISIBLE_DEVICES=0' 'DOCKER\u005fRESOURCE_GPU=0'; do
                printf '{"process": {"env": ["PATH=/bin", "%s"]}}\n' "$env" >"$T/bundle/config.json"
                full create --bundle "$T/bundle" ID
        done
        # other escapes (Go writes < > & as \u003c \u003e \u0026) stay direct
        printf '{"process": {"env": ["X=\\u003cy\\u003e"]}}\n' >"$T/bundle/config.json"
        grep -qF 'X=\u003cy' "$T/bundle/config.json"
        direct create --bundle "$T/bundle" ID
        # an unreadable spec: the full runtime reports it
        rm "$T/bundle/config.json"
        full create --bundle "$T/bundle" ID
}

@test "launcher: CDI request annotations count with the prefixes of cdi-annotation-prefixes only" {
        annotated() { printf '{"process": {"env": ["PATH=/bin"]}, "annotations": {"%s": "amd.com/gpu=0"}}\n' "$1" \
                >"$T/bundle/config.json"; }
        annotated cdi.k8s.io/x
        full create --bundle "$T/bundle" ID
        annotated gpus.example.com/x
        direct create --bundle "$T/bundle" ID
        jq '. + {"cdi-annotation-prefixes": ["gpus.example.com/"]}' "$CFG" >"$T/c" && mv "$T/c" "$CFG"
        full create --bundle "$T/bundle" ID
        annotated 'gpus.example.com\/x' # JSON's escaped '/'
        grep -qF 'gpus.example.com\/x' "$T/bundle/config.json"
        full create --bundle "$T/bundle" ID
        annotated cdi.k8s.io/x
        direct create --bundle "$T/bundle" ID
        # none: annotations request nothing
        jq '. + {"cdi-annotation-prefixes": []}' "$CFG" >"$T/c" && mv "$T/c" "$CFG"
        direct create --bundle "$T/bundle" ID
}

@test "launcher: with the GPU tracker enabled, a delete of a container goes to the full runtime" {
        direct delete ID
        direct delete --force ID
        touch "$T/state/gpu-tracker.enabled"
        full delete ID
        full delete --force ID
        full delete ID -f=true                 # (after the id, Go's spellings)
        full delete --force ../ID              # not a container id: the full runtime says so
        direct delete                          # no id: nothing to release, runc reports it
        [ ! -e "$T/state/gpu-tracker.json" ]   # nothing tracked, nothing written
}

# runc's state of container ID in ROOT: init STATUS (running, exited, reused:
# its pid runs with another start time), or no state.json (created, or
# another runtime's layout), or no directory (gone).
runc_state() {
        local root=$1 id=$2 kind=$3 pid start
        mkdir -p "$root/$id"
        case $kind in
        running | reused)
                sleep 1000 &
                pid=$!
                SLEEPERS+=("$pid")
                start=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
                [ "$kind" = running ] || start=$((start + 1))
                ;;
        exited)
                sh -c 'exit 0' &
                pid=$!
                wait $pid
                start=1
                ;;
        no-state) return 0 ;;
        gone) rm -rf "${root:?}/$id" && return 0 ;;
        esac
        echo "{\"id\":\"$id\",\"init_process_pid\":$pid,\"init_process_start\":$start,\"config\":{}}" \
                >"$root/$id/state.json"
}

@test "launcher: whatever runc's state says (stopped, gone, running, reused pid), a tracked delete is not its to decide" {
        mkdir -p "$T/fakebin"
        mv "$T/fake-runc" "$T/fakebin/runc"
        sed -i "s|\$0|$T/fake-runc|" "$T/fakebin/runc" # (argv[0] as direct() expects it)
        jq --arg r "$T/fakebin/runc" '."runtime-path" = $r' "$CFG" >"$CFG.new" && mv "$CFG.new" "$CFG"
        touch "$T/state/gpu-tracker.enabled"
        local r=$T/runc-root kind
        for kind in exited reused gone running no-state; do
                runc_state "$r" c1 $kind
                full --root "$r" delete c1
                full --root "$r" delete --force c1
        done
        unset XDG_RUNTIME_DIR
        full delete ctk-launcher-test-none
        # the tracker disabled again: runc's own delete, whatever the state
        rm "$T/state/gpu-tracker.enabled"
        for kind in exited running; do
                runc_state "$r" c1 $kind
                direct --root "$r" delete c1
        done
}

@test "launcher: --version, --help, --debug and log-level debug go to the full runtime" {
        full --version
        full --help
        full --debug state ID
        full create --help
        jq '."log-level" = "debug"' "$CFG" >"$CFG.new" && mv "$CFG.new" "$CFG"
        full state ID
        jq '."log-level" = "info"' "$CFG" >"$CFG.new" && mv "$CFG.new" "$CFG"
        direct state ID
}

@test "launcher: configuration files it does not read itself go to the full runtime" {
        local good
        good=$(cat "$CFG")
        for bad in '{"log-level": "loud"}' '{"runtime-path": 7}' '{"unknown": true}' \
                '{"log-level": "info", "log-level": "info"}' '{"log-file": "/tmp/\u00e9"}' '[]' '{' \
                "{\"runtime-path\": \"$T/fake-runc\"} x"; do
                echo "$bad" >"$CFG"
                full state ID
        done
        # --amd-config names the file; a missing named file is an error of the full runtime
        echo "$good" >"$T/other.json"
        echo '{"log-level": "loud"}' >"$CFG"
        rm -f "$T/argv"
        run "$LAUNCHER" --amd-config="$T/other.json" state ID
        [ "$status" -eq 0 ]
        [ "$(cat "$T/argv")" = "$(printf '%s\n' "$T/fake-runc" state ID)" ]
        run "$LAUNCHER" --amd-config="$T/none.json" state ID
        [ "$output" = "$MISSING" ]
        # blank, spaced, escaped and array values it does read
        printf '{\n\t"runtime-path" : "%s",\r\n "resource-kinds": ["AMD_GPU", "GPU"], "seccomp-numa": false,\n "root": null, "log-file": "\\/dev\\/null"}\n' \
                "$T/fake-runc" >"$CFG"
        direct state ID
}

@test "launcher: a failure to reach the full runtime is one line on stderr and in runc's log" {
        echo '{"process": {"env": ["AMD_VISIBLE_DEVICES=0"]}}' >"$T/bundle/config.json"
        cp "$T/bundle/config.json" "$T/before.json"
        run "$LAUNCHER" --log "$T/runc.log" --log-format json create --bundle "$T/bundle" ID
        [ "$status" -eq 1 ]
        [ "$output" = "$MISSING" ]
        [ "$(jq -r .msg "$T/runc.log")" = "$MISSING" ] # as the full runtime writes its errors
        [ "$(jq -r .level "$T/runc.log")" = error ]
        cmp "$T/bundle/config.json" "$T/before.json"
}

@test "launcher: installed next to the full runtime, both paths work; never started by itself" {
        mkdir -p "$T/libexec/amd-container-toolkit"
        cp "$RT_BIN/../libexec/amd-container-toolkit/amd-container-runtime-full" "$T/libexec/amd-container-toolkit/"
        echo '{"process": {"env": ["AMD_VISIBLE_DEVICES=9"]}}' >"$T/bundle/config.json"
        run "$LAUNCHER" create --bundle "$T/bundle" ID
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)" ]
        direct state ID
        # the full runtime gets the launcher's path, and refuses to exec it
        ln -s "$LAUNCHER" "$T/runc"
        jq --arg r "$T/runc" '."runtime-path" = $r' "$CFG" >"$CFG.new" && mv "$CFG.new" "$CFG"
        run "$LAUNCHER" state ID
        [ "$status" -eq 1 ]
        [[ "$output" == *"is amd-container-runtime itself"* ]]
        AMD_CONTAINER_RUNTIME_LAUNCHER=/x run "$LAUNCHER" state ID
        [ "$status" -eq 1 ]
        [[ "$output" == *"started by itself"* ]]
}

@test "make install puts the launcher in bin and the full runtime in libexec" {
        # (with the default configuration: gen-man runs runc --help through it)
        env -u AMD_CTK_CONFIG make -C "$CTK_REPO" --no-print-directory -s install PREFIX=/usr DESTDIR="$T/root" >/dev/null
        [ -x "$T/root/usr/bin/amd-container-runtime" ]
        [ -x "$T/root/usr/libexec/amd-container-toolkit/amd-container-runtime-full" ]
        run "$T/root/usr/bin/amd-container-runtime" --version
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == "amd-container-runtime version "* ]]
}
