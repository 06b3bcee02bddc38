#!/usr/bin/env bats
# Input limits: every input a stranger can make huge or deep gets bounded
# time and memory and one clear error, never a crash (docs/reliability.md, "Limits").

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs
load helpers/runtime_bundle

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" "$RT_SHIM" || return 1
        export TEMPLATE=$BATS_FILE_TMPDIR/template
        rt_bundle "$TEMPLATE" true
}

setup() {
        T=$BATS_TEST_TMPDIR
        CFG=$T/config.json
        printf '{"root": "%s", "runtime-path": "/bin/true", "log-file": "%s"}\n' \
                "$(ctk_host seed-4xmi210)" "$T/runtime.log" >"$CFG"
}

teardown() {
        local id
        for id in $(runc --root "$T/state" list -q 2>/dev/null); do
                runc --root "$T/state" delete -f "$id" >/dev/null 2>&1 || true
        done
        fakefs_teardown
}

# bounded CMD...: runs CMD with at most 30 s and 1 GiB of address space;
# $status, $output and $MAXRSS (KiB) as it ends.
bounded() { bounded_in 1048576 "$@"; }
# bounded_in KIB CMD...: the same with KIB of address space.
bounded_in() {
        local kib=$1
        shift
        run --separate-stderr /usr/bin/time -f '%M' -o "$T/rss" timeout 30 \
                sh -c 'ulimit -v "$0" && exec "$@"' "$kib" "$@"
        MAXRSS=$(tail -n 1 "$T/rss")
        [ "$status" -lt 124 ] || {
                echo "timed out or killed (status $status)" >&2
                return 1
        }
}

# spec_with JQ-FILTER [JQ-ARGS...]: a bundle whose config.json is the template's, changed by JQ-FILTER
spec_with() {
        rm -rf "$T/b"
        cp -a "$TEMPLATE" "$T/b"
        jq -c "$@" "$TEMPLATE/config.json" >"$T/b/config.json"
}

@test "a 50 MB config.json with a GPU request: edited in bounded time and memory" {
        cp -a "$TEMPLATE" "$T/b"
        python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["process"]["env"].append("AMD_VISIBLE_DEVICES=0")
s["annotations"] = {"k%d" % i: "v" * 1000 for i in range(50000)}
json.dump(s, open(sys.argv[2], "w"))' "$TEMPLATE/config.json" "$T/b/config.json"
        [ "$(stat -c %s "$T/b/config.json")" -gt 50000000 ]
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" big
        [ "$status" -eq 0 ]
        [ "$MAXRSS" -lt 524288 ]
        jq -e '.linux.devices | length == 3' "$T/b/config.json" >/dev/null
}

@test "JSON nested 10,000 deep: the spec, the toolkit config, a CDI spec and daemon.json each give one error" {
        deep=$(python3 -c 'print("[" * 10000 + "]" * 10000)')
        spec_with ".process.env += [\"AMD_VISIBLE_DEVICES=0\"]"
        printf '%s' "$(jq -c . "$T/b/config.json" | sed 's/}$//'),\"x\":$deep}" >"$T/b/config.json"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" deep
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: invalid container spec: $T/b/config.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"log-level": %s}' "$deep" >"$T/deep-config.json"
        bounded "$RT_SHIM" --amd-config="$T/deep-config.json" state x
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: $T/deep-config.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"cdiVersion": "0.5.0", "kind": "amd.com/gpu", "devices": %s}' "$deep" >"$T/deep-cdi.json"
        bounded "$CTK_BIN/amd-ctk" cdi validate --path "$T/deep-cdi.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"$T/deep-cdi.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"x": %s}' "$deep" >"$T/daemon.json"
        cp "$T/daemon.json" "$T/daemon.orig"
        bounded "$CTK_BIN/amd-ctk" runtime configure --config-path "$T/daemon.json"
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk: $T/daemon.json:1:"*"maximum parsing depth reached"* ]]
        cmp "$T/daemon.json" "$T/daemon.orig"
}

@test "containerd's config.toml nested 10,000 deep (arrays, inline tables): one error, nothing written" {
        python3 -c 'print("imports = " + "[" * 10000 + "]" * 10000)' >"$T/arrays.toml"
        python3 -c 'print("a = " + "{b = " * 10000 + "1" + "}" * 10000)' >"$T/tables.toml"
        for f in arrays tables; do
                cp "$T/$f.toml" "$T/$f.orig"
                bounded "$CTK_BIN/amd-ctk" runtime configure --runtime containerd --config-path "$T/conf.d/99-amd.toml" \
                        --containerd-config "$T/$f.toml"
                [ "$status" -eq 1 ]
                [[ "$stderr" == "amd-ctk: $T/$f.toml:1:"*": values nested more than 64 deep" ]]
                cmp "$T/$f.toml" "$T/$f.orig"
                [ ! -e "$T/conf.d" ]
        done
}

@test "a 100,000-token AMD_VISIBLE_DEVICES: answered at once, valid or not" {
        python3 -c 'print(",".join(["0-3"] * 50000 + ["1"] * 50000))' >"$T/toks"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=" + ($toks | rtrimstr("\n"))]' --rawfile toks "$T/toks"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" many
        [ "$status" -eq 0 ]
        jq -e '.linux.devices | length == 9' "$T/b/config.json" >/dev/null
        python3 -c 'print(",".join(str(i % 9) for i in range(100000)))' >"$T/toks"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=" + ($toks | rtrimstr("\n"))]' --rawfile toks "$T/toks"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" many2
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 4 does not exist (this host has GPUs 0-3)" ]
}

@test "a 1 GB sysfs file from a broken driver: one error naming it, no 1 GB read" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        echo "huge 1073741824 /sys/class/kfd/kfd/topology/nodes/2/properties" >"$FAKEFS_MNT/.fakefs/ctl"
        [ "$(stat -c %s "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/2/properties")" -eq 1073741824 ]
        bounded "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list
        [ "$status" -eq 1 ]
        [[ "$stderr" == *"$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/2/properties is larger than 1 MiB: not read (no sysfs attribute is: a broken driver?)"* ]]
        [ "$MAXRSS" -lt 65536 ]
        echo clear >"$FAKEFS_MNT/.fakefs/ctl"
        "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list >/dev/null
}

# big_spec FILE KIND N: a CDI spec of KIND with N devices "d0".."d<N-1>"
big_spec() {
        python3 -c '
import sys
out, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(out, "w") as f:
    f.write("{\"cdiVersion\": \"0.5.0\", \"kind\": \"%s\", \"devices\": [" % kind)
    f.write(",".join("{\"name\": \"d%d\", \"containerEdits\": {\"env\": [\"X=%d\"]}}" % (i, i) for i in range(n)))
    f.write("]}\n")' "$@"
}

@test "CDI specs of 1,000,000 and 100,000 devices: skipped as over the caps; a create naming another spec's device succeeds" {
        mkdir -p "$T/cdi"
        "$CTK_BIN/amd-ctk" --profile "$RT_PROFILES/seed-4xmi210.json" cdi generate --output "$T/cdi/amd.json" >/dev/null
        big_spec "$T/cdi/huge.json" vendor.com/huge 1000000
        big_spec "$T/cdi/many.json" vendor.com/many 100000
        [ "$(stat -c %s "$T/cdi/huge.json")" -gt 16777216 ]
        [ "$(stat -c %s "$T/cdi/many.json")" -lt 16777216 ]
        jq --arg d "$T/cdi" '.["cdi-spec-dirs"] = [$d] | .["cdi-kinds"] = ["*"]' "$CFG" >"$T/cfg-cdi.json"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=amd.com/gpu=1"]'
        bounded "$RT_SHIM" --amd-config="$T/cfg-cdi.json" create --bundle "$T/b" cdi-caps
        [ "$status" -eq 0 ]
        jq -e '.linux.devices | length == 3' "$T/b/config.json" >/dev/null
        [ "$MAXRSS" -lt 524288 ]
        grep -q "level=WARNING.*$T/cdi/huge.json is larger than 16 MiB: not read (spec skipped)" "$T/runtime.log"
        grep -q "level=WARNING.*$T/cdi/many.json has 100000 devices, more than the 65536 a spec may have (spec skipped)" "$T/runtime.log"
        # naming a device of one: the file and why, in one line
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=vendor.com/many=d7"]'
        bounded "$RT_SHIM" --amd-config="$T/cfg-cdi.json" create --bundle "$T/b" cdi-caps2
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: AMD_VISIBLE_DEVICES: vendor.com/many=d7: no CDI spec in $T/cdi has kind vendor.com/many; skipped: $T/cdi/huge.json is larger than 16 MiB: not read (spec skipped); $T/cdi/many.json has 100000 devices, more than the 65536 a spec may have (spec skipped)" ]]
        bounded "$CTK_BIN/amd-ctk" cdi list --spec-dir "$T/cdi"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 5 CDI devices in $T/cdi" ]
        [ "$(grep -c 'spec skipped' <<<"$stderr")" -eq 2 ]
}

# big_env FILE N: the template's config.json with AMD_VISIBLE_DEVICES=0 and
# N more one-character environment entries, written as they come (no copy
# of the whole in memory)
big_env() {
        python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["process"]["env"] = ["AMD_VISIBLE_DEVICES=0", "@"]
head, tail = json.dumps(s).split("\"@\"")
n = int(sys.argv[3])
with open(sys.argv[2], "w") as f:
    f.write(head)
    chunk = ",".join(["\"a\""] * 1000000)
    for i in range(n // 1000000):
        f.write(chunk if i == 0 else "," + chunk)
    f.write(tail)' "$TEMPLATE/config.json" "$1" "$2"
}

@test "30 million one-character environment entries (120 MB): refused before anything is built, in 256 MiB" {
        cp -a "$TEMPLATE" "$T/b"
        big_env "$T/b/config.json" 30000000
        [ "$(stat -c %s "$T/b/config.json")" -gt 120000000 ]
        cp "$T/b/config.json" "$T/before.json"
        # (the address space the runtime may have: a 3 GB parse would fail another way)
        bounded_in 262144 "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" env30m
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: invalid container spec: $T/b/config.json: process.env has more than 1048576 entries, the most a spec may have: refused" ]
        echo "peak RSS: $MAXRSS KiB"
        [ "$MAXRSS" -lt 262144 ]
        cmp "$T/b/config.json" "$T/before.json"
        grep -q "level=ERROR.*process.env has more than 1048576 entries" "$T/runtime.log"
}

# caps_bundle DIR ENV ANNOTATIONS MOUNTS DEVICES HOOKS: a bundle whose
# process shows what it got, asking for GPU 1, with that many environment
# entries, annotations, mounts (distinct directories under /mnt), device
# nodes and cgroup rules (/dev/null's numbers), and hooks (/bin/true, half
# createRuntime, half poststop); 0 leaves the template's
caps_bundle() {
        rt_bundle "$1" sh -c 'echo "env=$(env | grep -c ^X=) mounts=$(grep -c " /mnt/" /proc/self/mountinfo) devices=$(ls /dev/c 2>/dev/null | wc -l)"; ls /dev/dri'
        mkdir -p "$1.src" "$1/rootfs/mnt"
        python3 -c '
import json, sys
path, src = sys.argv[1], sys.argv[2]
env, ann, mounts, devices, hooks = (int(a) for a in sys.argv[3:8])
s = json.load(open(path))
s["process"]["env"] += ["AMD_VISIBLE_DEVICES=1"]
s["process"]["env"] += ["X=1"] * (env - len(s["process"]["env"]))
if ann:
    s["annotations"] = {"a%d" % i: "" for i in range(ann)}
s["mounts"] += [{"destination": "/mnt/%d" % i, "type": "bind", "source": src, "options": ["bind"]}
                for i in range(max(0, mounts - len(s["mounts"])))]
if devices:
    s["linux"]["devices"] = [{"path": "/dev/c/%d" % i, "type": "c", "major": 1, "minor": 3} for i in range(devices)]
    rules = s["linux"]["resources"]["devices"]
    rules += [{"allow": True, "type": "c", "major": 1, "minor": 3, "access": "rwm"}] * (devices - len(rules))
if hooks:
    s["hooks"] = {"createRuntime": [{"path": "/bin/true"}] * (hooks // 2),
                  "poststop": [{"path": "/bin/true"}] * (hooks - hooks // 2)}
json.dump(s, open(path, "w"))' "$1/config.json" "$1.src" "$2" "$3" "$4" "$5" "$6"
}

# run_at_caps BUNDLE: runs it through the runtime and runc
run_at_caps() {
        jq --arg log "$T/runtime.log" '{"root": .root, "log-file": $log}' "$CFG" >"$T/runc.json"
        run --separate-stderr "$RT_SHIM" --amd-config="$T/runc.json" --root "$T/state" run --bundle "$1" "$2"
        echo "$output"
        echo "$stderr"
}

@test "bundles at every count cap: env, annotations, mounts, devices and cgroup rules at once; hooks: the container starts with its GPU" {
        # (runc's own time is most of this test's: some 60 s for 65,536 mounts and
        # 1,048,576 annotations; with 1,024 hooks as well, each hook reading a
        # state of those annotations, it took runc more than 15 minutes)
        caps_bundle "$T/b" 1048576 1048576 65536 65536 0
        [ "$(jq '.process.env | length' "$T/b/config.json")" -eq 1048576 ]
        [ "$(jq '.annotations | length' "$T/b/config.json")" -eq 1048576 ]
        [ "$(jq '.mounts | length' "$T/b/config.json")" -eq 65536 ]
        [ "$(jq '.linux.devices | length' "$T/b/config.json")" -eq 65536 ]
        [ "$(jq '.linux.resources.devices | length' "$T/b/config.json")" -eq 65536 ]
        run_at_caps "$T/b" at-caps
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "env=1 mounts=65529 devices=65536" ] # (runc keeps the last of a repeated name)
        [ "${lines[1]}" = card3 ]
        [ "${lines[2]}" = renderD131 ]
        grep -q "container at-caps: GPUs 1: added 3 device nodes" "$T/runtime.log"
        caps_bundle "$T/h" 0 0 0 0 1024
        [ "$(jq '[.hooks[] | length] | add' "$T/h/config.json")" -eq 1024 ]
        run_at_caps "$T/h" at-hook-cap
        [ "$status" -eq 0 ]
        [ "${lines[1]}" = card3 ]
        grep -q "container at-hook-cap: GPUs 1: added 3 device nodes" "$T/runtime.log"
}

