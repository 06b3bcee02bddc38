#!/usr/bin/env bats
# The RPM packages (make rpm: sim/rpm.sh, packaging/rpm/) for RHEL 9 and
# Fedora: their files against the .deb's, rpmlint, their scriptlets; and
# install, verify, upgrade and erase with rpm --root, as an image build does
# it: into Debian 12 and Debian 13 roots (no RHEL root is reachable here;
# built once by sim/engines.sh --pkg; each test works on a copy-on-write
# overlay of one) with no GPU, no amdgpu driver, no systemd running and no
# container engine, in mount and PID namespaces of the test's own where
# nothing the scriptlets start could hide.  The roots' rpm databases are
# empty (their /bin/sh is dpkg's), so rpm installs there with --nodeps.
# Then the .deb, as its own image build: dpkg -i into the same root.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" || return 1
        # rpm and rpmlint keep a database in ~/.rpmdb (Debian's rpm): this file's own
        export HOME=$BATS_FILE_TMPDIR/home PKGS=$BATS_FILE_TMPDIR/pkgs
        mkdir -p "$HOME" "$PKGS/old"
        RPM_DIR=$PKGS sh "$CTK_REPO/sim/rpm.sh" >/dev/null || return 1
        # an earlier snapshot whose default config.json differed
        "$CTK_BIN/amd-ctk" --config /nonexistent config default | sed 's/"log-level": "info"/"log-level": "warning"/' \
                >"$BATS_FILE_TMPDIR/old-config.json"
        grep -q '"log-level": "warning"' "$BATS_FILE_TMPDIR/old-config.json" || return 1
        RPM_DIR=$PKGS/old RPM_VERSION=0.0~git20000101000000.0 RPM_CONFIG=$BATS_FILE_TMPDIR/old-config.json \
                sh "$CTK_REPO/sim/rpm.sh" >/dev/null || return 1
        DEB_DIR=$PKGS/deb sh "$CTK_REPO/sim/deb.sh" >/dev/null || return 1
        export BOOKWORM TRIXIE
        BOOKWORM=$(realpath "$(sh "$CTK_REPO/sim/engines.sh" --pkg bookworm)") || return 1
        TRIXIE=$(realpath "$(sh "$CTK_REPO/sim/engines.sh" --pkg trixie)") || return 1
}

setup() { T=$BATS_TEST_TMPDIR; }
teardown() { fakefs_teardown; }

main_rpm() { ls "$PKGS"/amd-container-toolkit-[0-9]*.rpm; }
sim_rpm() { ls "$PKGS"/amd-container-toolkit-sim-*.rpm; }
old_rpm() { ls "$PKGS"/old/amd-container-toolkit-[0-9]*.rpm; }
deb() { ls "$PKGS"/deb/amd-container-toolkit_*.deb; }
# rpm on a package file, with this file's database
rpmq() { rpm --dbpath "$HOME/rpmdb" "$@"; }

# What Debian's rpm says before it installs or erases a package (on
# stderr); nothing else may be printed
DEBIAN_RPM_WARNING="rpm: RPM should not be used directly install RPM packages, use Alien instead!
rpm: However assuming you know what you are doing..."

# in_image ROOT SCRIPT [ARG...]: SCRIPT (sh, with ARGs) run on this host in
# new mount and PID namespaces, with M the path of ROOT's copy-on-write
# overlay (its changes in $T/upper, kept between the calls of one test),
# /proc mounted in it, the packages at $M/pkgs and, with HOST_MNT set, a
# simulated host's sys/ as its /sys and its GPUs' nodes in its /dev; then a
# line "left: PID ARGS" for each process of the namespace still running
# (what a scriptlet started), and SCRIPT's exit status.
in_image() {
        local root=$1 script=$2
        shift 2
        mkdir -p "$T/upper" "$T/work" "$T/merged"
        unshare -m -p --fork --mount-proc --propagation private sh -c '
                set -e
                export M=$1
                mount -t overlay overlay -o "lowerdir=$2,upperdir=$3/upper,workdir=$3/work" "$M"
                mount -t proc proc "$M/proc"
                mkdir -p "$M/pkgs"
                mount --bind "$4" "$M/pkgs"
                if [ -n "$5" ]; then
                        # the simulated host: its /sys, and a /dev with its
                        # GPUs beside this host'"'"'s null, zero and urandom
                        mount --bind "$5/sys" "$M/sys"
                        mount -t tmpfs -o mode=0755 tmpfs "$M/dev"
                        mkdir "$M/dev/dri"
                        for n in /dev/null /dev/zero /dev/urandom "$5/dev/kfd" "$5/dev/dri"; do
                                [ -d "$n" ] || : >"$M/dev/${n##*/}"
                                mount --bind "$n" "$M/dev/${n##*/}"
                        done
                fi
                script=$6
                shift 6
                set +e
                sh -c "$script" in_image "$@"
                rc=$?
                for p in /proc/[0-9]*; do
                        [ "${p#/proc/}" = 1 ] || echo "left: ${p#/proc/} $(tr "\0" " " <"$p/cmdline")"
                done
                exit $rc' in_image "$T/merged" "$root" "$T" "$PKGS" "${HOST_MNT:-}" "$script" "$@"
}

# rpm_in ROOT ARG...: rpm ARG... on the root of in_image (its database where
# RHEL 9 keeps it)
rpm_in() {
        local root=$1
        shift
        in_image "$root" 'exec rpm --root "$M" --dbpath /var/lib/rpm "$@"' "$@"
}
# chroot_in ROOT CMD...: CMD inside the root of in_image
chroot_in() {
        local root=$1
        shift
        in_image "$root" 'exec chroot "$M" "$@"' "$@"
}

# files ROOT: the root's files as in_image has it (type, mode, owner, path
# and a symbolic link's target, one a line), without the package managers'
# databases and logs
files() {
        in_image "$1" 'cd "$M" && find . -xdev \( -path ./proc -o -path ./pkgs -o -path ./var/lib/rpm -o \
                -path ./var/lib/dpkg -o -path ./var/log -o -path ./var/cache \) -prune -o -printf "%y %m %u %p %l\n" |
                sed "s| \./| /|; s| \.\$| /|" | LC_ALL=C sort'
}
# written: what the commands on the root of in_image wrote or removed, as
# its overlay's upper layer holds it: every file but directories (type and
# path; a file removed from the root is a whiteout, type c), without rpm's
# database
written() { (cd "$T/upper" && find . ! -type d -printf '%y /%P\n' | grep -v ' /var/lib/rpm/' | LC_ALL=C sort); }
# rpm_files PACKAGE: the files of PACKAGE but directories, as written shows them
rpm_files() {
        rpmq -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" | sed -n 's/^-[^ ]* /f /p; s/^l[^ ]* /l /p'
}

@test "make rpm: the .deb's programs, man pages, unit, udev rule and default config at Fedora's paths; config.json %config(noreplace); rpmlint finds nothing" {
        local main sim
        main=$(main_rpm) sim=$(sim_rpm)
        [[ "$main" == */amd-container-toolkit-$(sh "$CTK_REPO/sim/pkg.sh" version)-1.$(uname -m).rpm ]]
        [ "$(rpmq -qp --qf '%{VERSION}' "$main")" = "$(dpkg-deb -f "$(deb)" Version)" ]
        # (the version in the directories of %doc and %license: V)
        run bash -c "rpm --dbpath '$HOME/rpmdb' -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME} %{FILEFLAGS:fflags} %{FILENAMES}\n]' \
                '$main' | sed 's/-$(sh "$CTK_REPO/sim/pkg.sh" version)/-V/'"
        printf '%s\n' "$output"
        local f
        for f in '-rwxr-xr-x root  /usr/bin/amd-ctk' '-rwxr-xr-x root  /usr/bin/amd-container-runtime' \
                '-rw-r--r-- root cn /etc/amd-container-toolkit/config.json' \
                '-rw-r--r-- root  /usr/lib/systemd/system/amd-cdi-refresh.service' \
                '-rw-r--r-- root  /usr/lib/systemd/system-preset/50-amd-container-toolkit.preset' \
                '-rw-r--r-- root  /usr/lib/udev/rules.d/60-amd-cdi-refresh.rules' \
                '-rw-r--r-- root d /usr/share/man/man1/amd-ctk.1.gz' '-rw-r--r-- root d /usr/share/man/man1/amd-container-runtime.1.gz' \
                '-rw-r--r-- root l /usr/share/licenses/amd-container-toolkit-V/LICENSE' \
                '-rw-r--r-- root l /usr/share/licenses/amd-container-toolkit-V/copyright' \
                '-rw-r--r-- root d /usr/share/doc/amd-container-toolkit-V/README.md' \
                'drwxr-xr-x root  /etc/amd-container-toolkit'; do
                grep -qxF -- "$f" <<<"$output" || {
                        echo "missing: $f"
                        return 1
                }
        done
        ! grep -q fakefs <<<"$output" || false
        ! grep -q /lib/.build-id <<<"$output" || false
        run rpmq -qpl "$sim"
        [ "$(grep -c '^/usr/bin/' <<<"$output")" -eq 1 ]
        grep -qx /usr/bin/amd-ctk-fakefs <<<"$output"
        # the static programs need nothing; the simulator its libraries
        [ -z "$(rpmq -qp --requires "$main" | grep '\.so')" ]
        rpmq -qp --requires "$sim" | grep -q '^libfuse3\.so\.3()(64bit)$'
        rpmq -qp --provides "$main" | grep -q '^bundled(jansson) = '

        # the same bytes as the .deb's files (the programs, the pages' text,
        # the default config, the unit and the rule), and the same programs
        # and pages
        mkdir -p "$T/rpm" "$T/deb"
        (cd "$T/rpm" && rpm2cpio "$main" | cpio -idm --quiet && rpm2cpio "$sim" | cpio -idm --quiet)
        dpkg-deb -x "$(deb)" "$T/deb"
        dpkg-deb -x "$(ls "$PKGS"/deb/amd-container-toolkit-sim_*.deb)" "$T/deb"
        # (programs: below bin/ and libexec/, where libexec/ may be empty or missing)
        programs() { (cd "$1/usr" && find . -type f \( -path './bin/*' -o -path './libexec/*' \) | sort); }
        [ -n "$(programs "$T/rpm")" ]
        [ "$(programs "$T/rpm")" = "$(programs "$T/deb")" ]
        [ "$(cd "$T/rpm/usr" && find share/man -type f | sort)" = "$(cd "$T/deb/usr" && find share/man -type f | sort)" ]
        for f in $(programs "$T/rpm"); do cmp "$T/rpm/usr/$f" "$T/deb/usr/$f"; done
        for f in $(cd "$T/rpm/usr" && find share/man -type f); do
                cmp <(gzip -dc "$T/rpm/usr/$f") <(gzip -dc "$T/deb/usr/$f")
        done
        cmp "$T/rpm/etc/amd-container-toolkit/config.json" "$T/deb/etc/amd-container-toolkit/config.json"
        cmp "$T/rpm/usr/lib/systemd/system/amd-cdi-refresh.service" "$T/deb/lib/systemd/system/amd-cdi-refresh.service"
        cmp "$T/rpm/usr/lib/udev/rules.d/60-amd-cdi-refresh.rules" "$T/deb/lib/udev/rules.d/60-amd-cdi-refresh.rules"

        # rpmlint: the packages and the spec they were built from, with the
        # rpmlintrc beside the spec (each filter says why)
        run rpmlint -r "$CTK_REPO/packaging/rpm/amd-container-toolkit.rpmlintrc" "$PKGS/work/amd-container-toolkit.spec" \
                "$main" "$sim"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [[ "${lines[-1]}" == " 2 packages and 1 specfiles checked; 0 errors, 0 warnings, 0 badness;"* ]]
        # and without it, it finds what the filters are about
        run rpmlint "$main"
        [ "$status" -ne 0 ]
        [[ "$output" == *"E: statically-linked-binary /usr/bin/amd-ctk"* ]]
}

@test "the scriptlets (rpm -qp --scripts): a preset on first install, disable and the purge rule on erase; no driver check, no engine, no service started" {
        run rpmq -qp --scripts "$(main_rpm)"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        # the three scriptlets, and no other (no trigger, no pre-install, no transaction scriptlet)
        [ "$(grep -c 'scriptlet (using /bin/sh):$' <<<"$output")" -eq 3 ]
        grep -qx 'postinstall scriptlet (using /bin/sh):' <<<"$output"
        grep -qx 'preuninstall scriptlet (using /bin/sh):' <<<"$output"
        grep -qx 'postuninstall scriptlet (using /bin/sh):' <<<"$output"
        [ -z "$(rpmq -qp --triggers "$(main_rpm)")" ]
        [ -z "$(rpmq -qp --filetriggers "$(main_rpm)")" ]
        # every systemctl: preset on the first install, disable on erase, and
        # --no-reload (no running systemd is asked anything)
        [ "$(grep -o 'systemctl [a-z-]* [a-z-]* [^ ]*' <<<"$output")" = "$(printf '%s\n' \
                'systemctl --no-reload preset amd-cdi-refresh.service' 'systemctl --no-reload disable amd-cdi-refresh.service')" ]
        sed -n '/^postinstall/,/^preuninstall/p' <<<"$output" | grep -q '"$1" -eq 1 ] && command -v systemctl'
        sed -n '/^preuninstall/,/^postuninstall/p' <<<"$output" | grep -q '"$1" -eq 0 ] && command -v systemctl'
        # the state and the spec only on erase, the spec only while it is ours
        sed -n '/^postuninstall/,$p' <<<"$output" | grep -qx 'if \[ "$1" -eq 0 \]; then'
        grep -q 'sha256sum <"$state/cdi-generated.json")" = "$(sha256sum </etc/cdi/amd.json)"' <<<"$output"
        # nothing looks for the driver, starts, restarts or reloads anything,
        # runs the toolkit or touches an engine's configuration
        local code
        code=$(grep -v '^ *#' <<<"$output" | sed 's|--no-reload||g; s|/dev/null||g')
        ! grep -E 'amdgpu|/sys|/dev/|start|reload|amd-ctk|runtime configure|docker|containerd|podman|crio|/etc/containers' <<<"$code" || false
}

# install_verify_erase ROOT [FILE...]: rpm -i prints nothing of its own,
# leaves no process, writes the package's files and FILE... ("TYPE PATH")
# and nothing else; rpm -V finds them as installed; rpm -e removes every one
# and leaves the root as it was, but for empty directories above them that
# the root did not have (RHEL's filesystem and systemd packages own them)
install_verify_erase() {
        local root=$1
        shift
        files "$root" >"$T/before"
        run rpm_in "$root" -i --nodeps "$(main_rpm)"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING" ]
        written >"$T/written"
        { rpm_files "$(main_rpm)"; [ $# -eq 0 ] || printf '%s\n' "$@"; } | LC_ALL=C sort >"$T/expected"
        diff "$T/expected" "$T/written"
        run rpm_in "$root" -V --nodeps amd-container-toolkit
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        chroot_in "$root" amd-ctk version >/dev/null
        files "$root" >"$T/installed"
        run rpm_in "$root" -e --nodeps amd-container-toolkit
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING" ]
        [ -z "$(written)" ]
        files "$root" >"$T/after"
        [ -z "$(LC_ALL=C comm -23 "$T/before" "$T/after")" ]
        run bash -c "LC_ALL=C comm -13 '$T/before' '$T/after' | grep -v '^d 755 root /[a-z/-]* $'"
        [ -z "$output" ]
}

@test "Debian 12 root, no systemd (a container image build): rpm -i only installs files, rpm -V is clean, rpm -e removes them" {
        install_verify_erase "$BOOKWORM"
}

@test "Debian 13 root, systemd not running (a bootc image build): rpm -i enables the refresh unit by its preset and nothing else, rpm -V is clean, rpm -e removes it all" {
        local wants=/etc/systemd/system/multi-user.target.wants/amd-cdi-refresh.service
        install_verify_erase "$TRIXIE" "l $wants"
        grep -qx "l 777 root $wants /usr/lib/systemd/system/amd-cdi-refresh.service" "$T/installed"
        ! grep -q " $wants " "$T/after" || false
}

@test "Debian 13 root: systemctl agrees, the unit enabled after rpm -i; an administrator's disable survives an upgrade (rpm -U restarts and enables nothing)" {
        run rpm_in "$TRIXIE" -i --nodeps "$(old_rpm)"
        [ "$status" -eq 0 ]
        run chroot_in "$TRIXIE" systemctl is-enabled amd-cdi-refresh.service
        [ "$output" = enabled ]
        chroot_in "$TRIXIE" systemctl disable amd-cdi-refresh.service >/dev/null 2>&1
        run chroot_in "$TRIXIE" systemctl is-enabled amd-cdi-refresh.service
        [ "$output" = disabled ]
        run rpm_in "$TRIXIE" -U --nodeps "$(main_rpm)"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING" ]
        [ "$(rpm_in "$TRIXIE" -q --qf '%{VERSION}' amd-container-toolkit)" = "$(rpmq -qp --qf '%{VERSION}' "$(main_rpm)")" ]
        run chroot_in "$TRIXIE" systemctl is-enabled amd-cdi-refresh.service
        [ "$output" = disabled ]
}

@test "rpm -U to a newer build keeps an edited config.json and leaves the new default as config.json.rpmnew; an unedited one becomes the new default" {
        local c=/etc/amd-container-toolkit/config.json
        # edited: kept, the new default beside it
        rpm_in "$BOOKWORM" -i --nodeps "$(old_rpm)" 2>/dev/null
        chroot_in "$BOOKWORM" sed -i 's/"log-level": "warning"/"log-level": "debug"/' "$c"
        run rpm_in "$BOOKWORM" -U --nodeps "$(main_rpm)"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING
warning: $c created as $c.rpmnew" ]
        chroot_in "$BOOKWORM" grep -q '"log-level": "debug"' "$c"
        cmp <(chroot_in "$BOOKWORM" cat "$c.rpmnew") <("$CTK_BIN/amd-ctk" --config /nonexistent config default)
        run rpm_in "$BOOKWORM" -V --nodeps amd-container-toolkit
        [ "$output" = "S.5....T.  c $c" ] # (the one file changed: the administrator's)
        # unedited: replaced, nothing beside it
        rm -rf "$T/upper" "$T/work"
        rpm_in "$BOOKWORM" -i --nodeps "$(old_rpm)" 2>/dev/null
        run rpm_in "$BOOKWORM" -U --nodeps "$(main_rpm)"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING" ]
        cmp <(chroot_in "$BOOKWORM" cat "$c") <("$CTK_BIN/amd-ctk" --config /nonexistent config default)
        chroot_in "$BOOKWORM" test ! -e "$c.rpmnew"
        run rpm_in "$BOOKWORM" -V --nodeps amd-container-toolkit
        [ -z "$output" ]
}

@test "rpm -e on the simulated seed host: the spec the refresh generated goes with the state; a spec that is not ours stays" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        export HOST_MNT=$FAKEFS_MNT
        rpm_in "$BOOKWORM" -i --nodeps "$(main_rpm)" 2>/dev/null
        # what the refresh unit runs at boot
        run chroot_in "$BOOKWORM" amd-ctk cdi generate --refresh
        [ "$output" = "Generated CDI spec: /etc/cdi/amd.json" ]
        chroot_in "$BOOKWORM" test -f /var/lib/amd-container-toolkit/cdi-generated.json
        run rpm_in "$BOOKWORM" -e --nodeps amd-container-toolkit
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$output" = "$DEBIAN_RPM_WARNING" ]
        [ -z "$(written)" ]
        # a spec someone else wrote over ours stays; the state goes
        rpm_in "$BOOKWORM" -i --nodeps "$(main_rpm)" 2>/dev/null
        chroot_in "$BOOKWORM" amd-ctk cdi generate --refresh >/dev/null
        chroot_in "$BOOKWORM" sh -c 'echo "{\"cdiVersion\": \"0.5.0\", \"kind\": \"amd.com/gpu\", \"devices\": []}" >/etc/cdi/amd.json'
        rpm_in "$BOOKWORM" -e --nodeps amd-container-toolkit
        chroot_in "$BOOKWORM" test -e /etc/cdi/amd.json
        chroot_in "$BOOKWORM" test ! -e /var/lib/amd-container-toolkit
}

@test "the .deb in the same image build: dpkg -i into a Debian 13 root with no GPU, no driver, no systemd running and no engine exits 0, installs files only, starts nothing" {
        run chroot_in "$TRIXIE" dpkg -i "/pkgs/deb/$(basename "$(deb)")"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        ! grep -q '^left: ' <<<"$output" || false
        [[ "$output" == *"amd-container-toolkit: the amdgpu driver is not loaded: /etc/cdi/amd.json is generated when it is"* ]]
        # the package's files (below /usr in this root: /lib is a link to
        # usr/lib), the tracker's state, the unit's enablement (systemd's
        # symlink, deb-systemd-helper's record of it) and dpkg's own records:
        # nothing else
        run bash -c "comm -13 <(dpkg-deb -c '$(deb)' | awk '/^-/ { print \"f \" \$6 }' | sed 's| \./\(lib\)/| /usr/\\1/|; s| \./| /|' |
                LC_ALL=C sort) <(cd '$T/upper' && find . ! -type d -printf '%y /%P\n' | LC_ALL=C sort)"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ -z "$(printf '%s\n' "${lines[@]}" | grep -v -e '^f /var/lib/amd-container-toolkit/' \
                -e '^f /var/lib/systemd/deb-systemd-helper-enabled/' \
                -e '^l /etc/systemd/system/multi-user.target.wants/amd-cdi-refresh.service$' \
                -e '^f /var/lib/dpkg/' -e '^f /var/log/dpkg.log$')" ]
}
