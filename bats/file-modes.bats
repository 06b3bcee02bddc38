#!/usr/bin/env bats
# Files that keep their secrets: what `runtime configure` writes is never
# readable by more users than the file it comes from.  containerd's drop-in
# carries a copy of config.toml's CRI section (registry credentials
# included) and gets config.toml's mode (0644 at most); a backup
# (daemon.json.bak, config.toml.bak) gets its source's owner and mode,
# whatever an earlier backup had; a temporary file is created with no
# permission and gets the final owner and mode before its first byte.

bats_require_minimum_version 1.5.0

load helpers/common

setup() {
        CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" || return 1
        T=$BATS_TEST_TMPDIR
        # config.toml with a registry password, readable by root only
        printf '%s\n' 'version = 2' '[plugins."io.containerd.grpc.v1.cri".registry.configs."reg.example".auth]' \
                '  username = "ci"' '  password = "s3cret"' >"$T/config.toml"
        chmod 0600 "$T/config.toml"
}

containerd_cfg() {
        run --separate-stderr "$CTK" runtime configure --runtime containerd --config-path "$T/conf.d/99-amd.toml" \
                --containerd-config "$T/config.toml" "$@"
}
mode_owner() { stat -c '%a %u:%g' "$@"; }

@test "containerd: a 0600 config.toml gives a 0600 drop-in and a 0600 backup, whatever the backup had" {
        # an earlier backup, someone else's, readable by all
        printf 'old\n' >"$T/config.toml.bak"
        chmod 0644 "$T/config.toml.bak"
        chown 65534:65534 "$T/config.toml.bak"
        containerd_cfg
        [ "$status" -eq 0 ]
        grep -q 's3cret' "$T/conf.d/99-amd.toml" # the copy of the CRI section
        [ "$(mode_owner "$T/conf.d/99-amd.toml")" = "600 0:0" ]
        [ "$(mode_owner "$T/config.toml.bak")" = "600 0:0" ]
        [ "$(mode_owner "$T/config.toml")" = "600 0:0" ]
        # nobody reads the secret through them
        ! setpriv --reuid=65534 --regid=65534 --clear-groups cat "$T/conf.d/99-amd.toml" 2>/dev/null
        ! setpriv --reuid=65534 --regid=65534 --clear-groups cat "$T/config.toml.bak" 2>/dev/null
}

@test "containerd: the drop-in's mode follows config.toml's, never wider than 0644; an unchanged drop-in that is too wide is rewritten" {
        chmod 0640 "$T/config.toml"
        containerd_cfg
        [ "$status" -eq 0 ]
        [ "$(stat -c %a "$T/conf.d/99-amd.toml")" = 640 ]
        chmod 0666 "$T/config.toml"
        containerd_cfg
        [ "$status" -eq 0 ]
        [ "$(stat -c %a "$T/conf.d/99-amd.toml")" = 644 ]
        # a drop-in an earlier version wrote 0644 from a 0600 config.toml: same text, narrowed
        chmod 0600 "$T/config.toml"
        chmod 0644 "$T/conf.d/99-amd.toml"
        containerd_cfg
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Wrote $T/conf.d/99-amd.toml" ]
        [ "$(stat -c %a "$T/conf.d/99-amd.toml")" = 600 ]
        containerd_cfg
        [ "${lines[0]}" = "The drop-in is already up to date: $T/conf.d/99-amd.toml" ]
        # without a config.toml there is nothing to copy: 0644
        rm "$T/config.toml" "$T/config.toml.bak" "$T/conf.d/99-amd.toml"
        containerd_cfg
        [ "$status" -eq 0 ]
        [ "$(stat -c %a "$T/conf.d/99-amd.toml")" = 644 ]
}

@test "docker: daemon.json.bak gets daemon.json's owner and mode, not an earlier backup's" {
        printf '{\n    "registry-mirrors": ["https://user:pw@mirror.example"]\n}\n' >"$T/daemon.json"
        chmod 0600 "$T/daemon.json"
        chown 1234:1234 "$T/daemon.json"
        printf '{}\n' >"$T/daemon.json.bak"
        chmod 0644 "$T/daemon.json.bak"
        chown 65534:65534 "$T/daemon.json.bak"
        run "$CTK" runtime configure --config-path "$T/daemon.json"
        [ "$status" -eq 0 ]
        [ "$(mode_owner "$T/daemon.json.bak")" = "600 1234:1234" ]
        grep -q 'user:pw' "$T/daemon.json.bak"
        # the edited file keeps its own
        [ "$(mode_owner "$T/daemon.json")" = "600 1234:1234" ]
}

# temporaries TRACE: every temporary file (.NAME.XXXXXX) the traced command
# created (openat with O_EXCL) had no permission, and got its final mode
# (fchmod) before its first byte (write): "ok" when so, else the offending
# lines (plain POSIX awk: mawk has no {n})
temporaries() {
        awk '
                match($0, /openat\([^"]*"[^"]*\.[^"\/]+\.[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]", [^)]*O_EXCL[^)]*\) = [0-9]+/) {
                        fd = $0; sub(/.*= /, "", fd)
                        mode = $0; sub(/\) = [0-9]+.*/, "", mode); sub(/.*, /, "", mode)
                        n++
                        if (mode != "0" && mode != "000") { print "created with mode " mode ": " $0; bad = 1 }
                        open[fd] = 1; chmodded[fd] = 0
                }
                match($0, /fchmod\([0-9]+,/) {
                        s = $0; sub(/.*fchmod\(/, "", s); sub(/,.*/, "", s); if (s in open) chmodded[s] = 1
                }
                match($0, /write\([0-9]+,/) {
                        s = $0; sub(/.*write\(/, "", s); sub(/,.*/, "", s)
                        if ((s in open) && !chmodded[s]) { print "written before its mode: " $0; bad = 1 }
                }
                match($0, /close\([0-9]+\)/) { s = $0; sub(/.*close\(/, "", s); sub(/\).*/, "", s); delete open[s] }
                END { if (n == 0) print "no temporary file seen"; else if (!bad) print "ok" }' "$1"
}

@test "temporary files: created with no permission, their owner and mode set before their first byte" {
        command -v strace >/dev/null || skip "strace is not installed"
        printf '{}\n' >"$T/daemon.json"
        chmod 0400 "$T/daemon.json" # narrower than any default
        strace -f -o "$T/trace" -e trace=openat,fchmod,fchown,write,close \
                "$CTK" runtime configure --config-path "$T/daemon.json" >/dev/null
        [ "$(temporaries "$T/trace")" = ok ]
        [ "$(stat -c %a "$T/daemon.json" "$T/daemon.json.bak")" = "$(printf '400\n400')" ]
        strace -f -o "$T/trace" -e trace=openat,fchmod,fchown,write,close \
                "$CTK" runtime configure --runtime containerd --config-path "$T/conf.d/99-amd.toml" \
                --containerd-config "$T/config.toml" >/dev/null
        [ "$(temporaries "$T/trace")" = ok ]
        # the check notices a temporary created readable
        printf '%s\n' '5 openat(AT_FDCWD, "/x/.a.json.AbC123", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 4' \
                '5 write(4, "{}", 2) = 2' >"$T/bad-trace"
        [ "$(temporaries "$T/bad-trace")" = "$(printf '%s\n' \
                'created with mode 0600: 5 openat(AT_FDCWD, "/x/.a.json.AbC123", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 4' \
                'written before its mode: 5 write(4, "{}", 2) = 2')" ]
}
