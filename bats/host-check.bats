#!/usr/bin/env bats
# The host-state check around make check (sim/hoststate.sh) and make
# check's own report (sim/check.sh).  Each test runs in a private mount,
# network and pid namespace (in_private_host) where /run and
# /etc/systemd/system are fresh tmpfs: the files, mounts, network
# namespaces, interfaces, processes and services it changes there are real
# ones, seen by the real check, and none of them reaches the machine.

load helpers/common

setup() {
        T=$BATS_TEST_TMPDIR
        HS=$CTK_REPO/sim/hoststate.sh
        CG=$CTK_REPO/bats/helpers/cgroup.sh
        export T HS CG HOSTSTATE_TREES=/run CTK_HOSTCHECK=hostcheck-test-$$
}

# the cgroups a test made (cgroup.sh make LIST), even when it failed half-way
teardown() {
        local list
        for list in "$T"/*.cgroups; do
                [ ! -e "$list" ] || sh "$CG" remove "$list"
        done
}

# in_private_host SCRIPT: bash SCRIPT in the namespaces, as their first process
in_private_host() {
        unshare --mount --net --pid --fork --mount-proc --propagation private bash -c '
                set -e
                # other test files mount below /tmp and the build tree while
                # this one runs; removing a mount point there detaches its
                # copy here too: those copies are detached first
                findmnt -rn -o TARGET | awk -v r="$2/" "index(\$0, \"/tmp/\") == 1 || index(\$0, r) == 1" |
                        sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
                mount -t tmpfs tmpfs /run
                ! [ -d /etc/systemd/system ] || mount -t tmpfs tmpfs /etc/systemd/system
                ip link set lo up
                eval "$1"' in_private_host "$1" "$CTK_REPO"
}

@test "hoststate: two snapshots of an unchanged host compare equal" {
        run in_private_host '
                echo x >/run/file
                sh "$HS" snapshot "$T/a"
                sh "$HS" snapshot "$T/b"
                sh "$HS" compare "$T/a" "$T/b"'
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        # (and the snapshot saw what is there)
        grep -q "^/run/file"$'\t'"f " "$T/a/files"
        grep -q "^lo	loopback$" "$T/a/links"
        [ "$(wc -l <"$T/a/procs")" -ge 1 ]
}

@test "hoststate: a file, mount, network namespace, interface, process and service left behind are each named" {
        run in_private_host '
                echo x >/run/kept
                echo x >/run/gone
                mkdir /run/m
                # a process that was running before: what it starts later is grouped under it
                mkfifo "$T/go"
                env -u CTK_HOSTCHECK sh -c "read x <\"$T/go\"; sleep 1000; true" &
                sh "$HS" snapshot "$T/before"
                echo more >>/run/kept
                rm /run/gone
                touch /run/new
                mount -t tmpfs tmpfs /run/m
                ip netns add ctk-leak
                ip link add ctkleak0 type veth peer name ctkleak1
                if command -v systemctl >/dev/null; then
                        mkdir -p /etc/systemd/system/multi-user.target.wants
                        ln -s /lib/systemd/system/docker.service /etc/systemd/system/multi-user.target.wants/docker.service
                fi
                # a daemon of this run (its environment says so), and one of someone else
                setsid sleep 1001 </dev/null >/dev/null 2>&1 &
                env -u CTK_HOSTCHECK setsid sleep 1002 </dev/null >/dev/null 2>&1 &
                echo go >"$T/go"
                while ! pgrep -x -f "sleep 1000" >/dev/null || ! pgrep -f "sleep 1002" >/dev/null; do sleep 0.1; done
                sh "$HS" snapshot "$T/after"
                sh "$HS" compare "$T/before" "$T/after"'
        echo "$output"
        [ "$status" -eq 1 ]
        [[ "$output" == *"file created: /run/new"* ]]
        [[ "$output" == *"file removed: /run/gone"* ]]
        [[ "$output" =~ "file modified: /run/kept (size 2 -> 7, modified "[0-9:]+")" ]]
        [[ "$output" == *"mount added: /run/m (tmpfs tmpfs root=/ private)"* ]]
        [[ "$output" == *"mount added: /run/netns/ctk-leak (nsfs nsfs root=net:["* ]]
        [[ "$output" == *"directory created: /run/netns (1 entries below)"* ]]
        grep -qx "network namespace added: ctk-leak" <<<"$output"
        [[ "$output" == *"interface added: ctkleak0 (ether)"* ]]
        [[ "$output" == *"interface added: ctkleak1 (ether)"* ]]
        local started='\(parent 1, started [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\)'
        [[ "$output" =~ process\ [0-9]+\ $started\ \[this\ run\]:\ sleep\ 1001 ]]
        [[ "$output" =~ process\ [0-9]+\ $started:\ sleep\ 1002 ]]
        local grouped="process [0-9]+ \\(sh -c read x <[^)]*; sleep 1000; true\\), not the check's and running before it: 1 new below it, e\\.g\\. [0-9]+ sleep 1000"
        [[ "$output" =~ $grouped ]]
        if command -v systemctl >/dev/null; then
                [[ "$output" == *"service docker.service: enabled=disabled active=- -> enabled=enabled active=-"* ]]
        fi
        # nothing else: the snapshots themselves are not differences
        [ "$(echo "$output" | grep -vc -e '^file' -e '^directory' -e '^mount' -e '^network' -e '^interface' \
                -e '^process' -e '^service')" -eq 0 ]
        ! grep -q '^cgroup' <<<"$output" # (others' cgroups come and go: not the run's)
        ! grep -q 'hoststate.sh' <<<"$output"
}

@test "hoststate: a cgroup of the run left behind is named once, with its hierarchies; someone else's is not" {
        run in_private_host '
                sh "$HS" snapshot "$T/before"
                sh "$CG" make "$T/ours.cgroups" left
                mkdir "$(head -n 1 "$T/ours.cgroups")/init/deeper"
                CTK_HOSTCHECK=another-run sh "$CG" make "$T/theirs.cgroups" theirs
                sh "$CG" make "$T/gone.cgroups" gone
                sh "$CG" remove "$T/gone.cgroups"
                sh "$HS" snapshot "$T/after"
                sh "$HS" compare "$T/before" "$T/after"'
        echo "$output"
        [ "$status" -eq 1 ]
        local n hierarchies
        n=$(wc -l <"$T/ours.cgroups")
        [ "$n" -ge 1 ]
        # one line, every hierarchy, each one's init/ and the one made below it
        [ "$(grep -c '^cgroup' <<<"$output")" -eq 1 ]
        [[ "$output" =~ "cgroup left: ctk-$CTK_HOSTCHECK-left."[0-9a-f]+" (in "[^\;]+"; $((n + 1)) below it)" ]]
        hierarchies=$(grep '^cgroup left' <<<"$output" | sed 's/.*(in \([^;]*\);.*/\1/' | tr ',' '\n' | wc -l)
        [ "$hierarchies" -eq "$n" ]
        ! grep -q 'theirs\|gone' <<<"$output"
}

@test "helpers/cgroup.sh: what an engine makes in its cgroup namespace lands below the test's cgroup and goes with it" {
        sh "$CG" make "$T/e.cgroups" engines
        mkdir "$T/cg"
        sh "$CG" launch "$T/e.cgroups" unshare -m -C --propagation private sh -ec '
                sh "$1" mount "$2/e.cgroups" "$2/cg" host $$
                # as docker, podman and containerd do: absolute paths, from the root they see
                if [ -e "$2/cg/cgroup.procs" ]; then
                        mkdir -p "$2/cg/docker/abc"
                else
                        for h in "$2"/cg/*/; do mkdir -p "$h/docker/abc"; done
                fi
                grep -q "^0::/init$" /proc/self/cgroup' sh "$CG" "$T"
        local d
        while read -r d; do
                [ -d "$d/docker/abc" ]
        done <"$T/e.cgroups"
        sh "$CG" remove "$T/e.cgroups"
        [ ! -e "$T/e.cgroups" ]
        [ ! -d "$d" ]
}

@test "hoststate: a snapshot that is not one is an error, not a pass" {
        mkdir -p "$T/empty"
        run sh "$HS" compare "$T/empty" "$T/empty"
        [ "$status" -eq 2 ]
        [ "$output" = "hoststate: $T/empty or $T/empty is not a complete snapshot (no files)" ]
        run sh "$HS" frobnicate
        [ "$status" -eq 2 ]
}

# make check's steps through a stand-in make: each target prints what the
# real one prints (FAKE_FAIL names targets that fail).
fake_make() {
        cat >"$T/make" <<'FAKE'
#!/bin/sh
for target; do :; done
case " ${FAKE_FAIL:-} " in *" $target "*) fail=1 ;; *) fail=0 ;; esac
case $target in
tests) echo "(built)" ;;
format-check) echo "format-check: ok" ;;
layers) echo "layers: ok" ;;
lint) echo "lint: cppcheck: ok"; echo "lint: clang-tidy: 3 files clean"; echo "lint: ok" ;;
checksec) echo "build/bin/amd-ctk: PIE RELRO NX SSP FORTIFY" ;;
fuzz-smoke) echo "fuzz: fuzz_a: 10 executions in 20s, cov: 5, corpus 1 inputs: ok"
        if [ $fail = 1 ]; then echo "fuzz: fuzz_b: FAILED (log: x)"; else echo "fuzz: fuzz_b: 9 executions in 20s, cov: 4, corpus 1 inputs: ok"; fi ;;
unit) echo "unit test_a   3 passed, 0 failed"; echo "unit: 3 passed, 0 failed" ;;
unit-asan) echo "unit: 2 passed, $fail failed" ;;
engines) ;;
bats) printf '1..4\nok 1 a\nok 2 b # skip no GPU\nnot ok 3 c\nok 4 d\n'; exit 1 ;;
esac
exit $fail
FAKE
        chmod +x "$T/make"
}

@test "make check's report: a line per step, the host check, one total with the time; failures counted and kept going" {
        fake_make
        FAKE_FAIL="fuzz-smoke unit-asan layers" run in_private_host 'MAKE="$T/make" BUILD="$T/build" sh "$CTK_REPO/sim/check.sh"'
        [ "$status" -eq 1 ]
        echo "$output"
        [ "$(echo "$output" | grep -c '^check: ')" -eq 12 ]
        [[ "$output" == *"check: lint (cppcheck, clang-tidy: minutes when files changed)"* ]]
        [[ "$output" == *"host: unchanged ("* ]]
        [ "${lines[-2]}" = "1 skipped" ]
        # unit 3 + 2 passed, 1 failed; bats 2 passed, 1 failed; fuzz 1 and 1; lint 3 and 1 (layers); host 1
        [[ "${lines[-1]}" =~ ^"12 passed, 4 failed (unit 6, end-to-end 3, fuzz 2, lint 4, host 1) in 0m "[0-9]+s$ ]]
        # what each step printed is kept
        grep -qx 'not ok 3 c' "$T/build/check/bats.log"
}

@test "make check's report: a leak fails the run, naming it" {
        fake_make
        # the bats step leaves a file and a process behind
        sed -i 's|^bats) |bats) touch /run/leaked; setsid sleep 1003 </dev/null >/dev/null 2>\&1 \& |' "$T/make"
        run in_private_host 'MAKE="$T/make" BUILD="$T/build" sh "$CTK_REPO/sim/check.sh"'
        [ "$status" -eq 1 ]
        echo "$output"
        [[ "$output" == *"host: changed by the run (or by someone else on this machine meanwhile):"* ]]
        [[ "$output" == *"  file created: /run/leaked"* ]]
        local started='\(parent 1, started [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\)'
        [[ "$output" =~ \ \ process\ [0-9]+\ $started\ \[this\ run\]:\ sleep\ 1003 ]]
        [[ "${lines[-1]}" =~ ^"13 passed, 2 failed (unit 5, end-to-end 3, fuzz 2, lint 4, host 1) in " ]]
}

@test "make check's report: a failed build stops it, with a total that counts it" {
        fake_make
        FAKE_FAIL=tests run in_private_host 'MAKE="$T/make" BUILD="$T/build" sh "$CTK_REPO/sim/check.sh"'
        [ "$status" -eq 1 ]
        [[ "$output" == *"check: the build failed: nothing is tested"* ]]
        [[ "${lines[-1]}" =~ ^"0 passed, 1 failed (unit 0, end-to-end 0, fuzz 0, lint 1, host 0) in " ]]
}
