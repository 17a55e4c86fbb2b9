// `earshot cancel-echo`: a recording less the echo of what was played into it, as every stage of
// `earshot run --reference` hears it; for wiring a reference and measuring the canceller.
#include <cmath>
#include <cstdio>
#include <vector>

#include "audio/frame_source.h"
#include "audio/sound_file.h"
#include "options/stage_options.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot cancel-echo [--config F] [--set SECTION.KEY=VALUE]... --reference PLAYED\n"
    "                           FILE OUT\n"
    "\n"
    "Writes OUT (16 kHz mono 16-bit WAV): FILE, a recording made while the device played\n"
    "PLAYED, less PLAYED's echo, exactly as `earshot run --reference PLAYED FILE` hears it (any\n"
    "rate and channel count; PLAYED sample-aligned with FILE as a player sends it). Prints one\n"
    "JSON line: the frames in all and with the canceller active, the delay in use, its changes,\n"
    "and the energy removed while active (dB).\n"
    "\n"
    "  --reference PLAYED  what was played (required)\n"
    "\n"
    "Exit status: 0 ok, 1 a file could not be used (named on stderr), 2 usage.\n";

double Energy(const audio::Frame& frame) {
  double sum = 0.0;
  for (int16_t s : frame) sum += static_cast<double>(s) * s;
  return sum;
}

// FILE through `playback`'s canceller into `out`; the energy of its active frames before and
// after.
Status Cancel(audio::FrameSource& file, Playback& playback, std::vector<int16_t>& out,
              double* before, double* after) {
  audio::Frame frame;
  for (;;) {
    Result<bool> more = file.Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) return OkStatus();
    const double e = Energy(frame);
    if (Status s = playback.Cancel(frame); !s.ok()) return s;
    if (playback.canceller->stats().active) {
      *before += e;
      *after += Energy(frame);
    }
    out.insert(out.end(), frame.begin(), frame.end());
  }
}

int CancelEcho(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (args.positional.size() != 2 || args.Option("--reference", "").empty()) {
    PrintError("cancel-echo: expected --reference PLAYED, FILE and OUT");
    return cli::kExitUsage;
  }
  auto file = audio::FileSource::Open(args.positional[0], options::BindFileSource(*cfg));
  if (!file.ok()) {
    PrintError(file.error().message);
    return cli::kExitRuntime;
  }
  Result<Playback> playback = Playback::Open(args.Option("--reference", ""), *cfg);
  if (!playback.ok()) {
    PrintError(playback.error().message);
    return cli::kExitRuntime;
  }
  std::vector<int16_t> out;
  double before = 0.0, after = 0.0;
  Status done = Cancel(**file, *playback, out, &before, &after);
  if (done.ok()) done = audio::WriteWav16k(args.positional[1], out);
  if (!done.ok()) {
    PrintError(done.error().message);
    return cli::kExitRuntime;
  }
  const echo::EchoStats& st = playback->canceller->stats();
  const double removed_db = after > 0.0 ? 10.0 * std::log10(before / after) : 0.0;
  std::printf(
      "{\"frames\": %lld, \"active_frames\": %lld, \"delay_ms\": %d, "
      "\"delay_changes\": %lld, \"removed_db\": %.2f}\n",
      static_cast<long long>(st.frames), static_cast<long long>(st.active_frames), st.delay_ms,
      static_cast<long long>(st.delay_changes), removed_db);
  return cli::kExitOk;
}

}  // namespace

const cli::Command kCancelEchoCommand{"cancel-echo",
                                      "a recording less the echo of what was played into it",
                                      kUsage,
                                      {"--reference"},
                                      {},
                                      CancelEcho};

}  // namespace earshot::tools
