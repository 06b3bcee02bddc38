#!/bin/sh
# make rpm: builds the two RPM packages (RHEL 9, Fedora) from this tree with
# rpmbuild (Debian's rpm package) and packaging/rpm/:
#   amd-container-toolkit      what the .deb of the same name has (sim/deb.sh),
#                              at Fedora's paths, and the refresh unit's preset
#   amd-container-toolkit-sim  amd-ctk-fakefs
# into build/rpm/ (RPM_DIR) as NAME-VERSION-RELEASE.ARCH.rpm, version
# RPM_VERSION (default: sim/pkg.sh version, the .deb's), release RPM_RELEASE
# (default 1); RPM_CONFIG=FILE ships FILE as the default config.json (tests:
# an earlier build whose default differed).  The files are the tree `sh
# sim/pkg.sh stage` stages, as for the .deb (the simulator's in -sim, the rest
# in the main package), the programs stripped and the man pages compressed
# as in the .deb, plus the default config.json (%config(noreplace): every
# file below /etc is), the unit and the udev rule of packaging/debian/ and
# the preset; the file lists are made from that tree.  Prints the packages'
# paths.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=${RPM_DIR:-$BUILD/rpm}
case $out in /*) ;; *) out=$PWD/$out ;; esac
version=${RPM_VERSION:-$(sh sim/pkg.sh version)}
release=${RPM_RELEASE:-1}
work=$out/work
rm -rf "$work"
# (one version at a time, as make deb)
rm -f "$out"/amd-container-toolkit-*.rpm
stage=$work/BUILD/stage
mkdir -p "$work/BUILD"
sh sim/pkg.sh stage "$stage"

# programs without debugging symbols (the build tree keeps them), man pages
# compressed
find "$stage/usr" -type f \( -path "$stage/usr/bin/*" -o -path "$stage/usr/libexec/*" \) \
        -exec sh packaging/debian/strip-programs {} +
find "$stage/usr/share/man" -name '*.1' -exec gzip -9n {} +
install -d "$stage/etc/amd-container-toolkit" "$stage/usr/lib/systemd/system" \
        "$stage/usr/lib/systemd/system-preset" "$stage/usr/lib/udev/rules.d"
if [ -n "${RPM_CONFIG:-}" ]; then
        cp "$RPM_CONFIG" "$stage/etc/amd-container-toolkit/config.json"
else
        "$stage/usr/bin/amd-ctk" --config /nonexistent/config.json config default \
                >"$stage/etc/amd-container-toolkit/config.json"
fi
install -m 0644 packaging/debian/amd-cdi-refresh.service "$stage/usr/lib/systemd/system/"
install -m 0644 packaging/debian/60-amd-cdi-refresh.rules "$stage/usr/lib/udev/rules.d/"
install -m 0644 packaging/rpm/amd-container-toolkit.preset \
        "$stage/usr/lib/systemd/system-preset/50-amd-container-toolkit.preset"
chmod -R u+rwX,go+rX,go-w "$stage"

# the file lists: the simulator's files in -sim, every other one in the main
# package, with the directories named after the toolkit
(
        cd "$stage"
        find . -mindepth 1 ! -type d | sed 's|^\.||' | LC_ALL=C sort | while read -r f; do
                case $f in
                */amd-ctk-fakefs*) echo "$f" >&3 ;;
                /etc/*) echo "%config(noreplace) $f" ;;
                *) echo "$f" ;;
                esac
        done 3>"$work/BUILD/sim.files"
        find . -mindepth 1 -type d -name 'amd-container-toolkit*' | sed 's|^\.|%dir |' | LC_ALL=C sort
) >"$work/BUILD/main.files"

# what a library the static programs carry is, as Debian's -dev package of it says
upstream() { dpkg-query -W -f '${Version}' "$1" | sed 's/^[0-9]*://; s/-[^-]*$//'; }
date=$(LC_ALL=C date -u -d "@$(sh sim/pkg.sh epoch)" '+%a %b %d %Y')
sed -e "s/@VERSION@/$version/g" -e "s/@RELEASE@/$release/g" -e "s/@DATE@/$date/" \
        -e "s/@JANSSON@/$(upstream libjansson-dev)/" -e "s/@LIBYAML@/$(upstream libyaml-dev)/" \
        -e "s/@LIBSECCOMP@/$(upstream libseccomp-dev)/" -e "s/@GLIBC@/$(upstream libc6-dev)/" \
        -e "s/@MUSL@/$(upstream musl-dev)/" \
        packaging/rpm/amd-container-toolkit.spec.in >"$work/amd-container-toolkit.spec"
cp LICENSE README.md "$work/BUILD/"
cp packaging/debian/copyright "$work/BUILD/copyright"

# (every path rpmbuild uses below the work directory: its database, which
# Debian's rpm would otherwise keep in ~/.rpmdb, and its scripts, else in
# /var/tmp; no brp-compress: the pages are compressed above, and Debian's
# is a bash script run by dash)
mkdir -p "$work/tmp"
rpmbuild -bb --quiet --define "_topdir $work" --define "_builddir $work/BUILD" --define "__brp_compress %{nil}" \
        --define "_dbpath $work/rpmdb" --define "_tmppath $work/tmp" --define "_rpmdir $out" \
        --define '_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm' \
        "$work/amd-container-toolkit.spec" >"$work/rpmbuild.log" 2>&1 || {
        cat "$work/rpmbuild.log" >&2
        echo "rpm: rpmbuild failed (its output above)" >&2
        exit 1
}
ls "$out"/amd-container-toolkit-*.rpm
