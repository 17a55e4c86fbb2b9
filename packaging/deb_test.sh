#!/usr/bin/env bash
# The Debian package (issue 51): `cpack -G DEB` builds earshot_<version>_<arch>.deb; lintian finds
# no error in it; its Depends (dpkg-shlibdeps') are installed here; `dpkg --root` installs it into
# an empty root, its maintainer scripts creating the user and enabling earshotd there; then from
# the installed files alone: the sample's wake and transcript (no file of the checkout opened),
# systemd-analyze verify and security on the installed unit, dbus-daemon started on the installed
# policy with the activation file listed; removal and purge. In the aarch64 suite (issue 50) the
# same for the arm64 package: its Depends among the :arm64 packages, the empty root given that
# architecture (dpkg --add-architecture there, not on this machine), its earshot run under qemu.
# Usage: packaging/deb_test.sh BUILD_DIR VERSION [ARCH]   (ARCH: the package's; dpkg's by default)
build=$(realpath "$1"); version=$2; arch=${3:-$(dpkg --print-architecture)}
source "$(dirname "$0")/../tests/cli_lib.sh"
source "$(dirname "$0")/package_lib.sh"
check "cpack -G DEB" status_is 0 cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg"
deb="$tmp/pkg/earshot_${version}_${arch}.deb"
check "named earshot_VERSION_ARCH.deb" test -f "$deb"
check "lintian: no errors" status_is 0 lintian --fail-on error --display-info "$deb"
cat out.txt err.txt
dpkg-deb -I "$deb" >info.txt
echo "$(grep -E '^ (Installed-Size|Depends):' info.txt)"
check "config is a conffile" test "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = /etc/earshot/earshot.toml
check "Depends computed from the binaries" grep -q '^ Depends:.*libsndfile1' info.txt
check "its architecture" test "$(dpkg-deb -f "$deb" Architecture)" = "$arch"
check "Recommends espeak-ng (words the dictionary lacks)" test "$(dpkg-deb -f "$deb" Recommends)" = espeak-ng
# Every dependency (one alternative of each) installed here, at a version it allows, for the
# package's architecture: that architecture's package, or one of any that serves all (Multi-Arch:
# foreign, Architecture: all; dbus, the model).
depends_installed() {
  local missing=0
  python3 - "$deb" <<'PY' >deps.txt
import subprocess, sys
depends = subprocess.run(["dpkg-deb", "-f", sys.argv[1], "Depends"], capture_output=True, text=True).stdout
for group in depends.split(","):
    print("|".join(alt.strip() for alt in group.split("|")))
PY
  while IFS= read -r group; do
    local ok=1
    IFS='|' read -ra alternatives <<<"$group"
    for alt in "${alternatives[@]}"; do
      local name=${alt%% *} constraint="" installed
      [[ $alt == *"("* ]] && constraint=$(sed 's/.*(\(.*\))/\1/' <<<"$alt")
      installed=$(dpkg-query -W -f='${Status} ${Version} ${Architecture} ${Multi-Arch}\n' \
        "${name%%:*}" 2>/dev/null | awk -v arch="$arch" '$1 $2 $3 == "installokinstalled" &&
        ($5 == arch || $5 == "all" || $6 == "foreign") { print $4; exit }')
      [ -n "$installed" ] || continue
      if [ -z "$constraint" ] ||
        dpkg --compare-versions "$installed" ${constraint%% *} ${constraint##* }; then
        ok=0; break
      fi
    done
    [ $ok -eq 0 ] || { echo "not installed: $group"; missing=1; }
  done <deps.txt
  return $missing
}
check "every dependency installed here" depends_installed

root="$tmp/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" && touch "$root/var/lib/dpkg/status"
# Dependencies are this system's (checked above); maintainer scripts run with DPKG_ROOT set.
[ "$arch" = "$(dpkg --print-architecture)" ] || dpkg --root="$root" --add-architecture "$arch"
install_into_root() { dpkg --root="$root" --log=/dev/null --force-depends --force-script-chrootless -i "$deb"; }
check "dpkg --root installs it" status_is 0 install_into_root
check "postinst: the earshot user (sysusers)" grep -q '^earshot:' "$root/etc/passwd"
check "postinst: earshot in group audio" grep -q '^audio:.*earshot' "$root/etc/group"
check "postinst: earshotd enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/earshotd.service"
check "earshot-wyoming not enabled" test ! -e "$root/etc/systemd/system/multi-user.target.wants/earshot-wyoming.service"

check "installed earshot runs the sample" status_is 0 \
  strace -f -qq -e trace=%file -o trace.txt ${EARSHOT_EMULATOR:-} "$root/usr/bin/earshot" run \
  "$root/usr/share/earshot/computer_request.flac"
check "wakes and transcribes" wakes_and_transcribes
check "reads no file of the checkout" checkout_unread
check "its models are the package's" grep -qF "$root/usr/share/earshot/models/kws/computer.eshm" trace.txt
# systemd-analyze on the installed units, in a copy of the root given what they name from outside
# the package: the system's units (targets, dbus.socket) and /bin/kill (ExecReload).
cp -a "$root" "$tmp/verify_root" && cp -rn /lib/systemd/system/. "$tmp/verify_root/lib/systemd/system/" &&
  mkdir -p "$tmp/verify_root/bin" && cp /bin/kill "$tmp/verify_root/bin/"
check "systemd-analyze verify" status_is 0 systemd-analyze verify --root="$tmp/verify_root" \
  /lib/systemd/system/earshotd.service /lib/systemd/system/earshot-wyoming.service
cat err.txt
check "systemd-analyze security" status_is 0 systemd-analyze security --offline=yes --root="$root" \
  --threshold=6 /lib/systemd/system/earshotd.service
exposure=$(sed -n 's/.*Overall exposure level for earshotd.service: \([0-9.]*\).*/\1/p' out.txt)
echo "earshotd.service exposure: $exposure"
check "exposure 0.6 or lower" python3 -c "import sys; sys.exit(not float('$exposure') <= 0.6)"
cat >bus.conf <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$root/usr/share/dbus-1/system-services</servicedir>
  <includedir>$root/usr/share/dbus-1/system.d</includedir>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
dbus-daemon --config-file=bus.conf --nofork --nopidfile --nosyslog 2>bus_err.txt & bus_pid=$!
for _ in $(seq 50); do [ -S "$tmp/bus" ] && break; sleep 0.1; done
check "dbus-daemon starts on the installed policy" test -S "$tmp/bus"
check "the activation file is read" eval "dbus-send --bus=unix:path=$tmp/bus --print-reply --dest=org.freedesktop.DBus \
  /org/freedesktop/DBus org.freedesktop.DBus.ListActivatableNames | grep -q io.earshot.Pipeline1"
kill "$bus_pid"; wait "$bus_pid" 2>/dev/null
# The only remarks allowed: the user and group of the policy, which exist in $root, not here, and
# a container's refusal of a larger file limit.
check "dbus-daemon found nothing else to say" eval "! grep -v -e 'Unknown \\(username\\|group\\) \"earshot\"' \\
  -e 'Failed to set fd limit' bus_err.txt"

check "dpkg --root removes it" status_is 0 dpkg --root="$root" --log=/dev/null --force-script-chrootless -r earshot
check "the conffile stays after remove" test -f "$root/etc/earshot/earshot.toml"
check "dpkg --root purges it" status_is 0 dpkg --root="$root" --log=/dev/null --force-script-chrootless -P earshot
check "nothing of the package left" test -z "$(find "$root/usr" "$root/lib" -type f 2>/dev/null)"
finish
