#!/usr/bin/env bats
# `amd-ctk runtime configure` on a set of daemon.json files: the real binary,
# files in a temporary directory, expected results, byte-identical files on error.

load helpers/common

setup() {
        AMD_CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$AMD_CTK" || return 1
        DIR="$BATS_TEST_TMPDIR/docker"
        mkdir -p "$DIR"
        CFG="$DIR/daemon.json"
}

configure() {
        run "$AMD_CTK" runtime configure --config-path "$CFG" "$@"
}

# expect_file FILE: FILE's content is exactly stdin.
expect_file() {
        diff -u - "$1"
}

# The files of $DIR, one per line (catches leftover temporary files).
dir_listing() {
        (cd "$DIR" && ls -A)
}

fresh_config='{
    "runtimes": {
        "amd": {
            "path": "amd-container-runtime"
        }
    },
    "features": {
        "cdi": true
    }
}'

@test "absent file: created with the runtime and CDI, mode 0644, no backup" {
        configure
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Updated the config file: $CFG" ]
        [ "${lines[1]}" = "Please restart docker daemon" ]
        [ "${#lines[@]}" -eq 2 ]
        expect_file "$CFG" <<<"$fresh_config"
        [ "$(stat -c %a "$CFG")" = 644 ]
        [ "$(dir_listing)" = daemon.json ]
}

@test "absent file in a missing directory: the directory is created" {
        CFG="$DIR/etc/docker/daemon.json"
        configure
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<<"$fresh_config"
}

@test "empty object: runtime and CDI added, previous file kept as .bak" {
        printf '{}\n' >"$CFG"
        configure
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Loading configuration from: $CFG" ]
        [ "${lines[1]}" = "Updated the config file: $CFG" ]
        [ "${lines[2]}" = "Please restart docker daemon" ]
        expect_file "$CFG" <<<"$fresh_config"
        printf '{}\n' | cmp - "$CFG.bak"
        [ "$(dir_listing | tr '\n' ' ')" = "daemon.json daemon.json.bak " ]
}

@test "empty file (0 bytes) is an empty object" {
        : >"$CFG"
        configure
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<<"$fresh_config"
        [ ! -s "$CFG.bak" ]
}

@test "other runtimes, features and keys: kept, in their order, with their indentation" {
        cat >"$CFG" <<'EOF'
{
  "storage-driver": "overlay2",
  "features": {
    "containerd-snapshotter": true
  },
  "runtimes": {
    "nvidia": {
      "path": "nvidia-container-runtime",
      "runtimeArgs": []
    }
  },
  "log-opts": {
    "max-size": "10m"
  },
  "max-concurrent-downloads": 12
}
EOF
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure --set-as-default
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<'EOF'
{
  "storage-driver": "overlay2",
  "features": {
    "containerd-snapshotter": true,
    "cdi": true
  },
  "runtimes": {
    "nvidia": {
      "path": "nvidia-container-runtime",
      "runtimeArgs": []
    },
    "amd": {
      "path": "amd-container-runtime"
    }
  },
  "log-opts": {
    "max-size": "10m"
  },
  "max-concurrent-downloads": 12,
  "default-runtime": "amd"
}
EOF
        cmp "$BATS_TEST_TMPDIR/orig" "$CFG.bak"
}

@test "a second identical run changes nothing, says so and does not rewrite the file" {
        configure --set-as-default
        [ "$status" -eq 0 ]
        cp -p "$CFG" "$BATS_TEST_TMPDIR/first"
        before=$(stat -c '%i %.9Y' "$CFG") # a rewrite is a new file (renamed over it), and a later mtime
        configure --set-as-default
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Loading configuration from: $CFG" ]
        [ "${lines[1]}" = "The config file is already up to date: $CFG" ]
        [ "${#lines[@]}" -eq 2 ]
        [ "$(stat -c '%i %.9Y' "$CFG")" = "$before" ]
        cmp "$BATS_TEST_TMPDIR/first" "$CFG"
        [ ! -e "$CFG.bak" ] # the first run created the file: nothing to back up
}

@test "--runtime-path and repeated --runtime-arg are written as path and runtimeArgs" {
        configure --runtime-path /usr/local/bin/amd-container-runtime \
                --runtime-arg --amd-config=/etc/amd-container-toolkit/test.json --runtime-arg=--debug
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<'EOF'
{
    "runtimes": {
        "amd": {
            "path": "/usr/local/bin/amd-container-runtime",
            "runtimeArgs": [
                "--amd-config=/etc/amd-container-toolkit/test.json",
                "--debug"
            ]
        }
    },
    "features": {
        "cdi": true
    }
}
EOF
        # Reconfiguring without arguments drops them (the flags describe the result).
        configure
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<<"$fresh_config"
}

@test "the Go tool's entry (args, features replaced) is updated, other features survive" {
        cat >"$CFG" <<'EOF'
{
    "default-runtime": "amd",
    "features": {
        "cdi": true
    },
    "runtimes": {
        "amd": {
            "args": [],
            "path": "amd-container-runtime"
        }
    }
}
EOF
        configure --set-as-default
        [ "$status" -eq 0 ]
        expect_file "$CFG" <<'EOF'
{
    "default-runtime": "amd",
    "features": {
        "cdi": true
    },
    "runtimes": {
        "amd": {
            "path": "amd-container-runtime"
        }
    }
}
EOF
}

@test "set and unset as default (and the Go aliases)" {
        configure --amd-set-as-default
        [ "$status" -eq 0 ]
        [ "$(jq -r '."default-runtime"' "$CFG")" = amd ]
        configure --unset-amd-as-default
        [ "$status" -eq 0 ]
        [ "${lines[1]}" = "Removed amd as the default runtime" ]
        [ "${lines[2]}" = "Updated the config file: $CFG" ]
        [ "$(jq -r 'has("default-runtime")' "$CFG")" = false ]
        [ "$(jq -r '.runtimes.amd.path' "$CFG")" = amd-container-runtime ]
        configure --set-as-default
        [ "$status" -eq 0 ]
        [ "$(jq -r '."default-runtime"' "$CFG")" = amd ]
        configure --unset-as-default
        [ "$status" -eq 0 ]
        [ "$(jq -r 'has("default-runtime")' "$CFG")" = false ]
}

@test "--unset-as-default leaves another default runtime alone" {
        printf '{\n    "default-runtime": "nvidia"\n}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure --unset-as-default
        [ "$status" -eq 0 ]
        [ "${lines[1]}" = "Nothing to change: amd is not the default runtime in $CFG (default-runtime is \"nvidia\")" ]
        cmp "$BATS_TEST_TMPDIR/orig" "$CFG"
        [ ! -e "$CFG.bak" ]
}

@test "--remove removes only what is ours, keeps features.cdi and never touches /etc/cdi" {
        cdi_before=$(ls -la --time-style=full-iso /etc/cdi 2>&1 || true)
        cat >"$CFG" <<'EOF'
{
    "runtimes": {
        "nvidia": {
            "path": "nvidia-container-runtime"
        }
    },
    "debug": true
}
EOF
        configure --set-as-default
        [ "$status" -eq 0 ]
        configure --remove
        [ "$status" -eq 0 ]
        [ "${lines[1]}" = "Removed amd as the default runtime" ]
        [ "${lines[2]}" = "Removed the amd runtime" ]
        [ "${lines[3]}" = "Kept features.cdi (other CDI devices may need it)" ]
        [ "${lines[4]}" = "Updated the config file: $CFG" ]
        expect_file "$CFG" <<'EOF'
{
    "runtimes": {
        "nvidia": {
            "path": "nvidia-container-runtime"
        }
    },
    "debug": true,
    "features": {
        "cdi": true
    }
}
EOF
        [ "$(ls -la --time-style=full-iso /etc/cdi 2>&1 || true)" = "$cdi_before" ]
        # Nothing of ours left: nothing to do.
        cp "$CFG" "$BATS_TEST_TMPDIR/after"
        configure --remove
        [ "$status" -eq 0 ]
        [ "${lines[1]}" = "Nothing to remove: the amd runtime is not configured in $CFG" ]
        cmp "$BATS_TEST_TMPDIR/after" "$CFG"
}

@test "--remove and --unset-as-default without a file create nothing, not even its directory" {
        configure --remove
        [ "$status" -eq 0 ]
        [ "$output" = "Nothing to remove: the amd runtime is not configured in $CFG" ]
        [ -z "$(dir_listing)" ]
        CFG="$DIR/etc/docker/daemon.json"
        configure --remove
        [ "$status" -eq 0 ]
        [ "$output" = "Nothing to remove: the amd runtime is not configured in $CFG" ]
        configure --unset-as-default
        [ "$status" -eq 0 ]
        [ "$output" = "Nothing to change: amd is not the default runtime in $CFG" ]
        [ -z "$(dir_listing)" ]
}

@test "--dry-run prints the result and writes nothing" {
        printf '{"debug": true}' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure --dry-run --set-as-default
        [ "$status" -eq 0 ]
        [ "$output" = '{
    "debug": true,
    "runtimes": {
        "amd": {
            "path": "amd-container-runtime"
        }
    },
    "features": {
        "cdi": true
    },
    "default-runtime": "amd"
}' ]
        cmp "$BATS_TEST_TMPDIR/orig" "$CFG"
        [ "$(dir_listing)" = daemon.json ]
        # Without a file, nothing is created either.
        rm "$CFG"
        configure --dry-run
        [ "$status" -eq 0 ]
        [ "$output" = "$fresh_config" ]
        [ -z "$(dir_listing)" ]
}

@test "a file's mode is kept, also for the backup; a symbolic link stays a link" {
        printf '{}\n' >"$DIR/real.json"
        chmod 600 "$DIR/real.json"
        ln -s real.json "$CFG"
        configure
        [ "$status" -eq 0 ]
        [ -L "$CFG" ]
        [ "$(readlink "$CFG")" = real.json ]
        expect_file "$DIR/real.json" <<<"$fresh_config"
        [ "$(stat -c %a "$DIR/real.json")" = 600 ]
        [ "$(stat -c %a "$DIR/real.json.bak")" = 600 ]
        [ "$(dir_listing | tr '\n' ' ')" = "daemon.json real.json real.json.bak " ]
}

@test "daemon.json a link to a file elsewhere: that file edited, its .bak beside it; someone else's link, or a target others may change: refused" {
        mkdir -p "$BATS_TEST_TMPDIR/etc/docker"
        real=$BATS_TEST_TMPDIR/etc/docker/daemon.json
        printf '{}\n' >"$real"
        ln -s "$real" "$CFG"
        configure
        [ "$status" -eq 0 ]
        expect_file "$real" <<<"$fresh_config"
        [ "$(cat "$real.bak")" = "{}" ]
        [ "$(dir_listing)" = daemon.json ] # nothing beside the link
        # the link someone else's: it could lead anywhere
        printf '{}\n' >"$real"
        rm "$real.bak"
        chown -h 65534:65534 "$CFG"
        cp "$real" "$BATS_TEST_TMPDIR/orig"
        configure
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $CFG is not trusted: the symbolic link is owned by uid 65534, not root: not written" ]
        cmp "$real" "$BATS_TEST_TMPDIR/orig"
        [ ! -e "$real.bak" ]
        # root's link, to a directory every user may write to
        chown -h 0:0 "$CFG"
        chmod 0777 "$BATS_TEST_TMPDIR/etc/docker"
        configure
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $CFG is not trusted: its target's directory $BATS_TEST_TMPDIR/etc/docker is writable by every user (mode 0777): not written" ]
        cmp "$real" "$BATS_TEST_TMPDIR/orig"
        [ ! -e "$real.bak" ]
        chmod 0755 "$BATS_TEST_TMPDIR/etc/docker"
}

# Error cases: exit 1, one line on stderr naming the file, the file byte-identical, no backup, no leftovers.
expect_untouched() {
        local want_msg=$1
        [ "$status" -eq 1 ]
        [ "${#lines[@]}" -ge 1 ]
        [[ "$output" == *"amd-ctk: $want_msg"* ]] || {
                echo "got: $output"
                echo "want: amd-ctk: $want_msg"
                return 1
        }
        cmp "$BATS_TEST_TMPDIR/orig" "$CFG"
        [ "$(dir_listing)" = daemon.json ]
}

@test "invalid JSON: file:line:column error, file byte-identical" {
        printf '{\n    "runtimes": {\n        "nvidia": {"path": "x"},\n    }\n}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        for flags in "" --set-as-default --unset-as-default --remove --dry-run; do
                configure $flags
                expect_untouched "$CFG:4:5: string or '}' expected near '}'"
        done
}

@test "trailing garbage and duplicate keys are errors too" {
        printf '{"debug": true}\n{"debug": false}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:2:1: end of file expected near '{'"
        printf '{"debug": true,\n "debug": false}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:2:8: duplicate object key near '\"debug\"'"
}

@test "null, an array, a string: one clear error, file byte-identical" {
        printf 'null\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:1:1: the file must contain a JSON object, not null"
        printf '[]\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure --remove
        expect_untouched "$CFG:1:1: the file must contain a JSON object, not an array"
        printf '"{}"' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:1:1: the file must contain a JSON object, not a string"
}

@test "wrong-typed runtimes, features, default-runtime: one clear error, file byte-identical" {
        printf '{\n    "runtimes": [],\n    "debug": true\n}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:2:5: \"runtimes\" must be an object, not an array; fix or remove it and try again"
        configure --remove
        expect_untouched "$CFG:2:5: \"runtimes\" must be an object, not an array; fix or remove it and try again"
        printf '{"features": "cdi"}' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure
        expect_untouched "$CFG:1:2: \"features\" must be an object, not a string; fix or remove it and try again"
        printf '{"default-runtime": null}' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        configure --unset-as-default
        expect_untouched "$CFG:1:2: \"default-runtime\" must be a string, not null; fix or remove it and try again"
}

@test "a failed save leaves the file byte-identical and no temporary files" {
        printf '{"debug": true}\n' >"$CFG"
        cp "$CFG" "$BATS_TEST_TMPDIR/orig"
        mkdir "$CFG.bak" # the backup cannot be written
        configure
        [ "$status" -eq 1 ]
        [[ "$output" == *"amd-ctk: cannot keep the previous configuration: $CFG.bak is not a regular file: not written"* ]] || { echo "$output"; false; }
        cmp "$BATS_TEST_TMPDIR/orig" "$CFG"
        [ "$(dir_listing | tr '\n' ' ')" = "daemon.json daemon.json.bak " ]
}

@test "a directory in place of the file: one clear error, left as it is" {
        mkdir "$CFG"
        configure
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $CFG is a directory, not a regular file: not read" ]
        [ -d "$CFG" ]
        [ -z "$(ls -A "$CFG")" ]
        [ "$(dir_listing)" = daemon.json ]
}

@test "flag conflicts and unsupported engines: the Go tool's messages, exit 1, nothing written" {
        configure --set-as-default --unset-as-default
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: both set and unset as default cannot be used at the same time" ]
        configure --remove --set-as-default
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: remove flag cannot be used along with set-as-default flag" ]
        configure --remove --unset-as-default
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: remove flag cannot be used along with set-as-default flag" ]
        configure --runtime lxc
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: invalid value 'lxc' for --runtime (docker, containerd, podman or crio)" ]
        configure --remove --runtime-arg --debug
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk runtime configure: --runtime-path and --runtime-arg only apply when adding the runtime"* ]]
        [ -z "$(dir_listing)" ]
}

@test "usage errors exit 2, a refused value 1; --help exits 0" {
        configure --bogus
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk runtime configure: unknown option '--bogus' (see 'amd-ctk runtime configure --help')" ]
        configure extra
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk runtime configure: unexpected argument 'extra' (see 'amd-ctk runtime configure --help')" ]
        run "$AMD_CTK" runtime configure --config-path
        [ "$status" -eq 2 ]
        [ "$output" = "amd-ctk runtime configure: option '--config-path' needs a value (see 'amd-ctk runtime configure --help')" ]
        configure --remove=maybe
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: invalid value 'maybe' for --remove (true or false)" ]
        run "$AMD_CTK" runtime configure --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"--runtime-arg ARG"* ]]
        run "$AMD_CTK" runtime
        [ "$status" -eq 0 ] # the group's help
        [[ "$output" == *"configure  Configure a runtime to the container engine"* ]]
        run "$AMD_CTK" runtime frobnicate
        [ "$status" -eq 2 ]
        [ -z "$(dir_listing)" ]
}

@test "Go-style single-dash and =value flags work" {
        run "$AMD_CTK" runtime configure -config-path="$CFG" -set-as-default=true -runtime=docker
        [ "$status" -eq 0 ]
        [ "$(jq -r '."default-runtime"' "$CFG")" = amd ]
        run "$AMD_CTK" runtime configure -config-path "$CFG" -remove
        [ "$status" -eq 0 ]
        [ "$(jq -c . "$CFG")" = '{"features":{"cdi":true}}' ]
}

@test "edits are serialised: a run waits for another editor holding the file's lock, which is gone afterwards" {
        printf '{}\n' >"$CFG"
        # Another editor (root, as we are: this shell) holds the lock beside the file; once the run
        # has opened it and waits, the editor rewrites the file and lets go.
        (umask 077 && : >"$DIR/.daemon.json.lock")
        local lock
        exec {lock}<>"$DIR/.daemon.json.lock"
        flock "$lock"
        "$AMD_CTK" runtime configure --config-path "$CFG" --set-as-default >"$BATS_TEST_TMPDIR/out" 2>&1 {lock}>&- &
        local run=$!
        ctk_wait_for 60 ctk_has_open "$run" "$DIR/.daemon.json.lock"
        printf '{"debug": true}\n' >"$CFG"
        exec {lock}>&-
        local status=0
        wait "$run" || status=$?
        [ "$status" -eq 0 ]
        [ "$(dir_listing)" = "$(printf 'daemon.json\ndaemon.json.bak')" ]
        # Our edit was applied to the other editor's result, not to the file we would have read earlier.
        [ "$(jq -c . "$CFG")" = '{"debug":true,"runtimes":{"amd":{"path":"amd-container-runtime"}},"features":{"cdi":true},"default-runtime":"amd"}' ]
}

@test "--no-cdi sets features.cdi to false, --cdi back to true; both at once, or with --remove, is refused" {
        echo '{"features": {"cdi": true, "buildkit": true}}' >"$CFG"
        configure --no-cdi
        [ "$status" -eq 0 ]
        [[ "$output" == *"Set features.cdi to false"* ]]
        [ "$(jq -c .features "$CFG")" = '{"cdi":false,"buildkit":true}' ]
        configure --cdi
        [ "$status" -eq 0 ]
        [ "$(jq -c .features "$CFG")" = '{"cdi":true,"buildkit":true}' ]
        cp "$CFG" "$DIR/before"
        configure --cdi --no-cdi
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk runtime configure: --cdi and --no-cdi cannot be used at the same time" ]
        configure --remove --no-cdi
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk runtime configure: --cdi and --no-cdi only apply when adding the runtime"* ]]
        cmp "$CFG" "$DIR/before"
        run "$AMD_CTK" runtime configure --help
        [[ "$(tr -s ' \n' ' ' <<<"$output")" == *"--cdi set features.cdi to true (the default): Docker 25 to 28.1 need it"* ]]
}

