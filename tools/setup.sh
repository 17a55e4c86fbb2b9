#!/usr/bin/env bash
# Installs every Debian package earshot needs (a no-op when all are there), then configures and
# builds into build/. Works as root on a fresh Debian 12 machine, or through sudo.
# Usage: tools/setup.sh [--training] [--no-build]
#   --training  also install PyTorch for tools/train with OpenBLAS under it (Debian's torch calls
#               the system BLAS, by default the reference one: eight times slower here),
#               matplotlib for the evaluation's DET plots and the speech synthesisers of the
#               keyword spotter's synthetic data
#               (python3-torch, libopenblas0-serial, python3-matplotlib, espeak-ng, flite)
#   --no-build  install packages only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git       # toolchain
  libsndfile1-dev libsoxr-dev                # audio files, resampling
  libsamplerate0-dev                         # the resampler we measure libsoxr against (bench)
  libtomlplusplus-dev                        # config
  nlohmann-json3-dev                         # JSON strings of the events (UTF-8, escapes)
  libpocketsphinx-dev pocketsphinx-en-us     # speech-to-text (library and Debian's en-us model)
  pocketsphinx                               # pocketsphinx_continuous, the STT peer we compare with
  libfftw3-dev                               # float reference front end (tests, training)
  libgtest-dev libgmock-dev libbenchmark-dev # tests and benchmarks
  libeigen3-dev                              # float reference of the keyword spotter (tests)
  sox flac time python3 python3-numpy        # CLI tests, sample assembly, eval scorers
  python3-jsonschema                         # the events' schema test (docs/events.schema.json)
  libsystemd-dev libasound2-dev              # earshotd: sd-event, sd-bus, sd_notify; ALSA capture
  dbus-daemon systemd                        # daemon tests: dbus-run-session, busctl, systemd-analyze
  strace                                     # install test: no file of the checkout opened
  help2man lintian file                      # manual pages from --help; the .deb (cpack, its check)
)
build=1
for arg in "$@"; do
  case "$arg" in
    --training) packages+=(python3-torch libopenblas0-serial python3-matplotlib espeak-ng flite) ;;
    --no-build) build=0 ;;
    *) echo "setup.sh: unknown argument $arg (expected --training, --no-build)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ $build -eq 1 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEARSHOT_WERROR=ON >/dev/null
  cmake --build build -j"$(nproc)"
fi
