#!/usr/bin/env bats
# Seccomp for GPU containers without seccomp=unconfined: the NUMA
# memory-policy calls (get_mempolicy, mbind, set_mempolicy,
# set_mempolicy_home_node) are opened, everything else of the profile stays.
#
# `amd-ctk seccomp profile` is checked on its own and with a private dockerd;
# the numa-probe program in the test image reports what each call returns.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/dockerd
load helpers/images

setup_file() {
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        dockerd_start
        images_docker_import
}

teardown_file() {
        dockerd_stop
}

ctk() {
        "$CTK_BIN/amd-ctk" "$@"
}

# probe DOCKER-RUN-OPTIONS...: runs numa-probe in a container, output in $output
probe() {
        run docker run --rm --network none "$@" busybox numa-probe
        echo "$output"
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
        [[ "$output" == "Usage: amd-ctk seccomp profile [--base FILE]"* ]]
        [[ "$output" == *"--security-opt seccomp="* ]]
        run ctk seccomp profile --base
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk: seccomp profile: option --base needs a file name" ]
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
