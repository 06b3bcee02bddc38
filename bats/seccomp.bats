#!/usr/bin/env bats
# Seccomp for GPU containers without seccomp=unconfined: the NUMA
# memory-policy calls (get_mempolicy, mbind, set_mempolicy,
# set_mempolicy_home_node) are opened, everything else of the profile stays.
#
# `amd-ctk seccomp profile` is checked on its own and with a private dockerd,
# and amd-container-runtime with that dockerd on the simulated 4-GPU host: it
# adds the rule for containers that get GPUs (config seccomp-numa, default
# true) and for no other. The numa-probe program in the test image reports
# what each call returns.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/runtime_bundle

setup_file() {
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        dockerd_start
        images_docker_import
        # Two runtimes over the same simulated host: seccomp-numa on (default) and off.
        local d=$DOCKERD_DIR
        jq -n --arg r "$(ctk_host seed-4xmi210)" --arg d "$d" \
                '{"root": $r, "log-file": "\($d)/amd-runtime.log", "log-level": "info", "state-dir": "\($d)/amd-state"}' \
                >"$d/amd-config.json"
        jq '. + {"seccomp-numa": false}' "$d/amd-config.json" >"$d/amd-config-no-numa.json"
        dockerd_write_config "$(jq -n --arg on "$d/amd-config.json" --arg off "$d/amd-config-no-numa.json" \
                '{"runtimes": {"amd": {"path": "amd-container-runtime", "runtimeArgs": ["--amd-config=\($on)"]},
                  "amd-no-numa": {"path": "amd-container-runtime", "runtimeArgs": ["--amd-config=\($off)"]}}}')"
        dockerd_reload
}

teardown_file() {
        dockerd_stop
}

ctk() {
        "$CTK_BIN/amd-ctk" "$@"
}

# probe DOCKER-RUN-OPTIONS...: runs numa-probe in a container and says whether
# it got /dev/kfd ("kfd: present"); output in $output, the runtime's log lines
# written meanwhile in $RT_LOG.
probe() {
        local log=$DOCKERD_DIR/amd-runtime.log before=0
        [ -f "$log" ] && before=$(wc -l <"$log")
        run docker run --rm --network none "$@" busybox \
                sh -c 'numa-probe; if [ -e /dev/kfd ]; then echo "kfd: present"; else echo "kfd: absent"; fi'
        echo "$output"
        RT_LOG=$(if [ -f "$log" ]; then tail -n +"$((before + 1))" "$log"; fi)
        [ "$status" -eq 0 ]
}

# line CALL: the result numa-probe printed for CALL
line() {
        printf '%s\n' "$output" | sed -n "s/^$1: //p"
}

assert_numa_denied() {
        [ "$(line get_mempolicy)" = EPERM ]
        [ "$(line set_mempolicy)" = EPERM ]
        [ "$(line mbind)" = EPERM ]
}

assert_numa_allowed() {
        [ "$(line get_mempolicy)" = ok ]
        [ "$(line set_mempolicy)" = ok ]
        [ "$(line mbind)" = ok ]
        # no policy on the probed page: ok or EOPNOTSUPP/ENOENT, never a seccomp refusal
        case "$(line set_mempolicy_home_node)" in
        EPERM | "error ENOSYS" | "") false ;;
        esac
}

assert_rest_denied() {
        [ "$(line unshare)" = EPERM ]
        [ "$(line mount)" = EPERM ]
}

write_profile() { # FILE JSON
        printf '%s\n' "$2" >"$1"
}

@test "seccomp profile: Docker's default profile plus one unconditional rule for the NUMA calls" {
        run ctk seccomp profile
        [ "$status" -eq 0 ]
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/p.json"
        jq -e '.defaultAction == "SCMP_ACT_ERRNO" and .defaultErrnoRet == 1' "$BATS_TEST_TMPDIR/p.json"
        jq -e '.archMap[0] == {"architecture": "SCMP_ARCH_X86_64",
                "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]}' "$BATS_TEST_TMPDIR/p.json"
        jq -e '.syscalls[-1] | .names == ["get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node"]
                and .action == "SCMP_ACT_ALLOW" and .includes == null and .excludes == null and .args == null' \
                "$BATS_TEST_TMPDIR/p.json"
        # Docker's own rule for them (CAP_SYS_NICE only) is kept as it was
        jq -e '[.syscalls[:-1][] | select(.names | index("mbind"))] ==
                [{"names": ["get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node"],
                  "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_NICE"]}}]' "$BATS_TEST_TMPDIR/p.json"
        jq -e '[.syscalls[:-1][] | select(.names | index("unshare"))] | length == 1 and
                .[0].includes.caps == ["CAP_SYS_ADMIN"]' "$BATS_TEST_TMPDIR/p.json"
}

@test "seccomp profile --base: adds the rule at the end and leaves the rest of the profile as it was" {
        base=$BATS_TEST_TMPDIR/base.json
        write_profile "$base" '{"defaultAction": "SCMP_ACT_KILL_PROCESS", "future": [1, 2],
                "architectures": ["SCMP_ARCH_X86_64"],
                "syscalls": [{"names": ["mbind"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 1,
                "value": 0, "op": "SCMP_CMP_EQ"}]}, {"names": ["set_mempolicy"], "action": "SCMP_ACT_LOG"}]}'
        run ctk seccomp profile --base "$base"
        [ "$status" -eq 0 ]
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out.json"
        [ "$(jq -c 'del(.syscalls[-1])' "$BATS_TEST_TMPDIR/out.json")" = "$(jq -c . "$base")" ]
        [ "$(jq -c '.syscalls[-1].names' "$BATS_TEST_TMPDIR/out.json")" = \
                '["get_mempolicy","mbind","set_mempolicy_home_node"]' ]
        # the same from stdin
        run ctk seccomp profile --base - <"$base"
        [ "$status" -eq 0 ]
        [ "$output" = "$(cat "$BATS_TEST_TMPDIR/out.json")" ]
}

@test "seccomp profile --base: nothing to add is printed unchanged, with a note on stderr" {
        for base in '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mount"], "action": "SCMP_ACT_ERRNO"}]}' \
                '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["get_mempolicy", "mbind",
                  "set_mempolicy", "set_mempolicy_home_node"], "action": "SCMP_ACT_ALLOW", "includes": {}}]}'; do
                write_profile "$BATS_TEST_TMPDIR/b.json" "$base"
                ctk seccomp profile --base "$BATS_TEST_TMPDIR/b.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
                [ "$(jq -c . "$BATS_TEST_TMPDIR/out")" = "$(jq -c . "$BATS_TEST_TMPDIR/b.json")" ]
                grep -q 'note: the profile already allows' "$BATS_TEST_TMPDIR/err"
        done
}

@test "seccomp profile --base: a malformed profile fails with one clear line and prints nothing" {
        bad=$BATS_TEST_TMPDIR/bad.json
        write_profile "$bad" '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"],
                "action": "SCMP_ACT_ALLOW"}, {"names": "mbind", "action": "SCMP_ACT_ALLOW"}]}'
        run --separate-stderr ctk seccomp profile --base "$bad"
        [ "$status" -eq 1 ]
        [ -z "$output" ]
        [ "$stderr" = "amd-ctk: $bad: seccomp profile.syscalls[1].names: expected an array of syscall names" ]

        printf '{"defaultAction": "SCMP_ACT_ERRNO",\n "syscalls": [}\n' >"$bad"
        run --separate-stderr ctk seccomp profile --base "$bad"
        [ "$status" -eq 1 ]
        [ -z "$output" ]
        [[ "$stderr" == "amd-ctk: $bad:2:"* ]]

        run ctk seccomp profile --base "$BATS_TEST_TMPDIR/missing.json"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: cannot open $BATS_TEST_TMPDIR/missing.json: No such file or directory" ]
}

@test "seccomp profile: usage errors and --help" {
        run ctk seccomp profile --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"USAGE:"*"amd-ctk seccomp profile [options]"* ]]
        [[ "$output" == *"--base FILE"* ]]
        [[ "$output" == *"--security-opt seccomp="* ]]
        run ctk seccomp profile --base
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk seccomp profile: option '--base' needs a value (see 'amd-ctk seccomp profile --help')" ]
        run ctk seccomp profile extra
        [ "$status" -eq 2 ]
        run ctk seccomp nope
        [ "$status" -eq 2 ]
        run ctk --help
        [[ "$output" == *"seccomp"* ]]
}

@test "docker with plain runc and Docker's default profile: NUMA calls get EPERM" {
        probe
        assert_numa_denied
        assert_rest_denied
}

@test "docker --security-opt seccomp=<amd-ctk seccomp profile>: NUMA calls work, unshare and mount stay denied" {
        ctk seccomp profile >"$BATS_TEST_TMPDIR/numa.json"
        probe --security-opt "seccomp=$BATS_TEST_TMPDIR/numa.json"
        assert_numa_allowed
        assert_rest_denied
}

@test "docker --runtime=amd with a GPU: NUMA calls work, unshare and mount stay denied" {
        probe --runtime=amd -e AMD_VISIBLE_DEVICES=0
        [ "$(line kfd)" = present ]
        assert_numa_allowed
        assert_rest_denied
        [[ "$RT_LOG" == *"seccomp profile: allowed the NUMA memory-policy syscalls"* ]]
}

@test "docker --runtime=amd without GPUs (unset, none, void): NUMA calls still get EPERM" {
        for env in "" "-e AMD_VISIBLE_DEVICES=none" "-e AMD_VISIBLE_DEVICES=void"; do
                # shellcheck disable=SC2086 # $env is one option or nothing
                probe --runtime=amd $env
                [ "$(line kfd)" = absent ]
                assert_numa_denied
                assert_rest_denied
        done
}

@test "docker --runtime=amd with seccomp-numa false: GPUs, but NUMA calls get EPERM" {
        probe --runtime=amd-no-numa -e AMD_VISIBLE_DEVICES=0
        [ "$(line kfd)" = present ]
        assert_numa_denied
        assert_rest_denied
        [[ "$RT_LOG" != *"seccomp"* ]]
}

@test "docker --runtime=amd with a GPU and CAP_SYS_NICE: the name Docker's rule lacks is added" {
        # dockerd 20.10 allows three of the four names to CAP_SYS_NICE; the rule
        # adds set_mempolicy_home_node (newer dockerds list all four: no rule).
        probe --runtime=amd -e AMD_VISIBLE_DEVICES=0 --cap-add SYS_NICE
        [ "$(line kfd)" = present ]
        assert_numa_allowed
        assert_rest_denied
}

@test "docker --runtime=amd with a GPU and a profile that denies mbind on purpose: mbind stays denied" {
        ctk seccomp profile | jq '.syscalls |= .[:-1] + [{"names": ["mbind"], "action": "SCMP_ACT_ERRNO",
                "errnoRet": 95}]' >"$BATS_TEST_TMPDIR/mbind-denied.json"
        probe --runtime=amd -e AMD_VISIBLE_DEVICES=0 --security-opt "seccomp=$BATS_TEST_TMPDIR/mbind-denied.json"
        [ "$(line get_mempolicy)" = ok ]
        [ "$(line set_mempolicy)" = ok ]
        [ "$(line mbind)" = "error EOPNOTSUPP" ]
        assert_rest_denied
}

@test "docker --runtime=amd with a GPU and seccomp=unconfined: no profile, nothing added" {
        probe --runtime=amd -e AMD_VISIBLE_DEVICES=0 --security-opt seccomp=unconfined
        [ "$(line kfd)" = present ]
        [[ "$RT_LOG" != *"seccomp"* ]]
        assert_numa_allowed
        [ "$(line mount)" = "error EFAULT" ]
}

@test "docker with CAP_SYS_ADMIN and a profile that denies unshare and mount: the rule leaves them denied" {
        # Without CAP_SYS_ADMIN the kernel refuses unshare(CLONE_NEWNS) by itself; with it,
        # only the profile can. Docker's profile minus unshare and mount in its CAP_SYS_ADMIN rule,
        # and minus our NUMA rule (the runtime adds it):
        ctk seccomp profile | jq '.syscalls |= (.[:-1] | map(if .includes.caps == ["CAP_SYS_ADMIN"]
                then .names -= ["unshare", "mount"] else . end))' >"$BATS_TEST_TMPDIR/no-unshare.json"
        # the probe can tell: unconfined, with the capability, both calls get past seccomp
        probe --cap-add SYS_ADMIN --security-opt seccomp=unconfined
        [ "$(line unshare)" = ok ]
        [ "$(line mount)" = "error EFAULT" ]

        probe --runtime=amd -e AMD_VISIBLE_DEVICES=0 --cap-add SYS_ADMIN \
                --security-opt "seccomp=$BATS_TEST_TMPDIR/no-unshare.json"
        [ "$(line kfd)" = present ]
        [[ "$RT_LOG" == *"seccomp profile: allowed the NUMA memory-policy syscalls"* ]]
        assert_numa_allowed
        assert_rest_denied
}

# capture_config NAME DOCKER-RUN-OPTIONS...: starts a container of the private
# dockerd, copies the config.json its runtime ran it with (after the runtime's
# edits) to $BATS_TEST_TMPDIR/NAME.json and removes the container.
capture_config() {
        local name=$1 id cfg
        shift
        docker run -d --network none --name "$name" "$@" busybox sleep 300 >/dev/null
        id=$(docker inspect -f '{{.Id}}' "$name")
        cfg=$(find "$DOCKERD_DIR" -path "*/$id/config.json" | head -n1)
        [ -n "$cfg" ] || {
                echo "no config.json for $name ($id) below $DOCKERD_DIR"
                docker rm -f "$name" >/dev/null
                return 1
        }
        cp "$cfg" "$BATS_TEST_TMPDIR/$name.json"
        docker rm -f "$name" >/dev/null
}

@test "the private dockerd renders Docker's profile as the unit tests' fixture has it; the runtime appends exactly the rule" {
        fixture=$CTK_REPO/core/oci/tests/fixtures/docker-default-config.json
        capture_config plain
        capture_config gpu --runtime=amd -e AMD_VISIBLE_DEVICES=0
        capture_config nogpu --runtime=amd
        cd "$BATS_TEST_TMPDIR"
        # the unit tests (test_seccomp_numa) edit what this dockerd renders today
        jq -e --slurpfile f "$fixture" '.linux.seccomp == $f[0].linux.seccomp' plain.json
        jq -e '.linux.seccomp.defaultAction == "SCMP_ACT_ERRNO" and
                ([.linux.seccomp.syscalls[].names[]] | index("mbind") == null)' plain.json
        # with a GPU: one rule appended, the rest of the profile as dockerd rendered it
        jq -e --slurpfile p plain.json '.linux.seccomp.syscalls[-1] == {"names": ["get_mempolicy", "mbind",
                "set_mempolicy", "set_mempolicy_home_node"], "action": "SCMP_ACT_ALLOW"} and
                (.linux.seccomp | .syscalls |= .[:-1]) == $p[0].linux.seccomp' gpu.json
        jq -e '.linux.devices | map(.path) | index("/dev/kfd") != null' gpu.json
        # without: the profile as dockerd rendered it
        jq -e --slurpfile p plain.json '.linux.seccomp == $p[0].linux.seccomp' nogpu.json
}

# A bundle in $T/bundle whose process is numa-probe, under the linux.seccomp
# section dockerd 20.10 rendered for a default container (the unit tests'
# fixture, captured by core/oci/tests/fixtures/capture-docker-config.sh).
docker_profile_bundle() {
        T=$(ctk_tmpdir seccomp-rt)
        B=$T/bundle
        rt_bundle "$B" /bin/numa-probe
        cp "$CTK_TOOLS/numa-probe" "$B/rootfs/bin/"
        rt_spec_edit "$B" '.linux.seccomp = $s[0].linux.seccomp' \
                --slurpfile s "$CTK_REPO/core/oci/tests/fixtures/docker-default-config.json"
}

# shim ARGS...: the runtime with runc's global options, state below $T
shim() {
        "$RT_SHIM" --amd-config="$DOCKERD_DIR/amd-config.json" --root "$T/state" "$@"
}

teardown() {
        if [ -n "${T:-}" ]; then
                local id
                for id in $(runc --root "$T/state" list -q 2>/dev/null); do
                        runc --root "$T/state" delete -f "$id" >/dev/null 2>&1 || true
                done
                rm -rf "$T"
        fi
}

@test "runtime with runc alone: Docker's rendered profile gains exactly the rule when a GPU is requested" {
        docker_profile_bundle
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        run shim run --bundle "$B" "ctk-seccomp-$$"
        echo "$output"
        [ "$status" -eq 0 ]
        assert_numa_allowed
        assert_rest_denied
        jq -e --slurpfile s "$CTK_REPO/core/oci/tests/fixtures/docker-default-config.json" \
                '.linux.seccomp.syscalls[-1] == {"names": ["get_mempolicy", "mbind", "set_mempolicy",
                 "set_mempolicy_home_node"], "action": "SCMP_ACT_ALLOW"} and
                 (.linux.seccomp | .syscalls |= .[:-1]) == $s[0].linux.seccomp' "$B/config.json"
}

@test "runtime with runc alone: no GPU requested, config.json byte-identical and NUMA calls denied" {
        docker_profile_bundle
        cp "$B/config.json" "$T/before.json"
        run shim run --bundle "$B" "ctk-seccomp-$$"
        echo "$output"
        [ "$status" -eq 0 ]
        assert_numa_denied
        cmp "$B/config.json" "$T/before.json"
}

@test "runtime with runc alone: a malformed seccomp section fails create with one line, config.json unchanged" {
        docker_profile_bundle
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        rt_spec_edit "$B" '.linux.seccomp.syscalls[3].names = "personality"'
        cp "$B/config.json" "$T/before.json"
        run --separate-stderr shim create --bundle "$B" "ctk-seccomp-$$"
        echo "$stderr"
        [ "$status" -eq 1 ]
        [[ "$stderr" == *"invalid container spec: $B/config.json: linux.seccomp.syscalls[3].names: expected an array of syscall names"* ]]
        [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
        cmp "$B/config.json" "$T/before.json"
        [ -z "$(runc --root "$T/state" list -q)" ]
}
