#!/usr/bin/env bash
# The installed trees (issue 51): `cmake --install BUILD --prefix P` into a staging directory
# (DESTDIR) for P = /usr and /opt/earshot, then from the staged files alone: the sample's wake and
# transcript through earshot and earshotd, the units naming the prefix's programs and config, the
# config and sysusers where the prefix wants them; under strace, no file of the source checkout or
# of the build tree opened by an installed program.
# Usage: packaging/install_test.sh BUILD_DIR
build=$(realpath "$1")
source "$(dirname "$0")/../tests/cli_lib.sh"
source "$(dirname "$0")/package_lib.sh"

# check_prefix PREFIX UNIT_DIR SYSUSERS_DIR CONFIG: install under PREFIX, check the staged tree.
check_prefix() {
  local prefix=$1 unit_dir=$2 sysusers_dir=$3 config=$4 stage="$tmp/stage${1//\//_}"
  check "$prefix: install" status_is 0 env DESTDIR="$stage" cmake --install "$build" --prefix "$prefix"
  local bin="$stage$prefix/bin" sbin="$stage$prefix/sbin"
  check "$prefix: earshot run, the bundled sample" status_is 0 \
    strace -f -qq -e trace=%file -o trace.txt ${EARSHOT_EMULATOR:-} "$bin/earshot" run
  check "$prefix: earshot run wakes and transcribes" wakes_and_transcribes
  check "$prefix: earshot run reads no file of the checkout" checkout_unread
  check "$prefix: models from the prefix" grep -qF "$stage$prefix/share/earshot/models/vad/vad.eshm" trace.txt
  check "$prefix: earshotd on the sample" status_is 0 strace -f -qq -e trace=%file -o trace.txt \
    ${EARSHOT_EMULATOR:-} "$sbin/earshotd" --config "$stage$config" --bus none --events - \
    --input "wav:$stage$prefix/share/earshot/computer_request.flac"
  check "$prefix: earshotd wakes and transcribes" wakes_and_transcribes
  check "$prefix: earshotd reads no file of the checkout" checkout_unread
  check "$prefix: earshot-wyoming runs" status_is 0 ${EARSHOT_EMULATOR:-} "$bin/earshot-wyoming" --help
  check "$prefix: the bundled keywords by name" status_is 0 strace -f -qq -e trace=%file \
    -o trace.txt ${EARSHOT_EMULATOR:-} "$bin/earshot" run --stages vad,kws \
    --set "kws.models=computer,snowboy,view glass" "$src/tools/samples/three_keywords.flac"
  check "$prefix: ... each heard once" test "$(grep -c '"keyword": "computer"' out.txt)-$(grep -c \
    '"keyword": "snowboy"' out.txt)-$(grep -c '"keyword": "view glass"' out.txt)" = 1-1-1
  check "$prefix: ... from the prefix's models" grep -qF \
    "$stage$prefix/share/earshot/models/kws/view_glass.eshm" trace.txt
  check "$prefix: unit runs the prefix's earshotd with its config" \
    grep -qxF "ExecStart=$prefix/sbin/earshotd --config $config --bus system" "$stage$unit_dir/earshotd.service"
  check "$prefix: wyoming unit runs the prefix's earshot-wyoming" \
    grep -qF "ExecStart=$prefix/bin/earshot-wyoming --config $config " "$stage$unit_dir/earshot-wyoming.service"
  check "$prefix: the installed config sets nothing" eval \
    "${EARSHOT_EMULATOR:-} '$bin/earshot' run --config '$stage$config' --print-config | cmp -s - '$src/config/earshot.toml'"
  check "$prefix: ... and documents every option" test "$(grep -c '^#[a-z_]* = ' "$stage$config")" -eq \
    "$(grep -c '^[a-z_]* = ' "$src/config/earshot.toml")"
  printf '[vad]\nthreshold = 0.25\n' >"$stage$config.d/50-local.toml"
  check "$prefix: a drop-in in its directory applies" eval \
    "${EARSHOT_EMULATOR:-} '$bin/earshot' run --config '$stage$config' --print-config | grep -x 'threshold = 0.25' >/dev/null"
  rm "$stage$config.d/50-local.toml"
  check "$prefix: sysusers entry" cmp -s "$src/config/earshot.sysusers" "$stage$sysusers_dir/earshot.conf"
  check "$prefix: licence and model cards" test -f "$stage$prefix/share/doc/earshot/LICENSE" \
    -a -f "$stage$prefix/share/earshot/models/kws/computer.md" \
    -a -f "$stage$prefix/share/earshot/models/kws/snowboy.md"
}

check_prefix /usr "$(pkg-config --variable=systemdsystemunitdir systemd)" \
  "$(pkg-config --variable=sysusersdir systemd)" /etc/earshot/earshot.toml
check_prefix /opt/earshot /opt/earshot/lib/systemd/system /opt/earshot/lib/sysusers.d \
  /etc/opt/earshot/earshot/earshot.toml
# A tree moved with its prefix still finds its own files.
mv "$tmp/stage_opt_earshot/opt/earshot" "$tmp/moved"
check "moved prefix: earshot run" status_is 0 \
  strace -f -qq -e trace=%file -o trace.txt ${EARSHOT_EMULATOR:-} "$tmp/moved/bin/earshot" run
check "moved prefix: wakes and transcribes" wakes_and_transcribes
check "moved prefix: reads no file of the checkout" checkout_unread
finish
