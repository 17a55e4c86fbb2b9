#include "models/pocketsphinx/sphinx_cepstra.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "base/q15.h"
#include "features/dct.h"
#include "features/mel_filterbank.h"
#include "models/pocketsphinx/feat_params.h"

namespace earshot::pocketsphinx {
namespace {

// dB (Q8) -> natural log of power: ln(10) / 10 per dB.
constexpr double kLnPerDbQ8 = std::numbers::ln10 / 10.0 / 256.0;

// A setting as an int: rounded, and clamped first so that any finite value converts (one far
// out of range stays out of range, for FrontEndConfig::Validate to name).
int ToInt(double v) { return static_cast<int>(std::lround(std::clamp(v, -2e9, 2e9))); }

// ln of pocketsphinx's band energies where earshot's read 0 dB: a full-scale sine under its Hamming
// window of `window_samples`, summed by a unit-area triangle (height 2 / width in Hz) per band.
std::vector<double> BandOffsets(int bands, int low_hz, int high_hz, int window_samples) {
  double window_sum = 0;
  for (int n = 0; n < window_samples; ++n) {
    window_sum += 0.54 - 0.46 * std::cos(2.0 * std::numbers::pi * n / (window_samples - 1));
  }
  const double full_scale = 2.0 * std::log(32768.0 * window_sum / 2.0);
  const std::vector<double> edges = features::MelEdgesHz(bands, low_hz, high_hz);
  std::vector<double> offsets;
  for (int b = 0; b < bands; ++b) {
    offsets.push_back(full_scale + std::log(2.0 / (edges[b + 2] - edges[b])));
  }
  return offsets;
}

}  // namespace

Result<CepstraSpec> CepstraSpec::FromFeatParams(const std::string& path) {
  Result<FeatParams> params = FeatParams::Read(path);
  if (!params.ok()) return params.error();
  const std::string& transform = params->settings.at("-transform");
  if (transform != "dct") {
    return Error{path + ": -transform " + transform +
                 ": earshot's front end computes the orthonormal DCT (-transform dct) only"};
  }
  std::map<std::string, double> v;
  for (const char* key : {"-lowerf", "-upperf", "-nfilt", "-lifter", "-ncep", "-alpha", "-wlen",
                          "-nfft", "-samprate"}) {
    Result<double> n = params->Number(key);
    if (!n.ok()) return Error{path + ": " + n.error().message};
    v[key] = n.value();
  }
  CepstraSpec spec;
  features::FrontEndConfig& c = spec.front_end;
  c.sample_rate_hz = ToInt(v["-samprate"]);
  c.window_ms = ToInt(v["-wlen"] * 1000.0);
  c.fft_size = ToInt(v["-nfft"]);
  c.mel_bands = ToInt(v["-nfilt"]);
  c.mel_low_hz = ToInt(v["-lowerf"]);
  c.mel_high_hz = ToInt(v["-upperf"]);
  c.mfcc_count = ToInt(v["-ncep"]);
  c.lifter = ToInt(v["-lifter"]);
  c.preemphasis_q15 = ToInt(v["-alpha"] * kQ15One);
  c.noise_suppression = true;  // pocketsphinx's -remove_noise, on by default
  c.log_floor_db = -127;       // pocketsphinx's logs go as low as the samples' last bit
  if (Status s = c.Validate(); !s.ok()) return Error{path + ": " + s.error().message};

  const std::vector<double> bands =
      BandOffsets(c.mel_bands, c.mel_low_hz, c.mel_high_hz,
                  ToInt(v["-wlen"] * c.sample_rate_hz));
  const std::vector<double> dct = features::DctMatrix(c.mel_bands, c.mfcc_count, c.lifter);
  for (int i = 0; i < c.mfcc_count; ++i) {
    double sum = 0;
    for (int b = 0; b < c.mel_bands; ++b)
      sum += dct[static_cast<size_t>(i) * c.mel_bands + b] * bands[b];
    spec.offset.push_back(static_cast<float>(sum));
  }
  return spec;
}

Result<SphinxCepstra> SphinxCepstra::Create(const CepstraSpec& spec) {
  auto front_end = features::FrontEnd::Create(spec.front_end);
  if (!front_end.ok()) return front_end.error();
  return SphinxCepstra(spec, *front_end.value());
}

Result<SphinxCepstra> SphinxCepstra::FromFeatParams(const std::string& path) {
  Result<CepstraSpec> spec = CepstraSpec::FromFeatParams(path);
  if (!spec.ok()) return spec.error();
  return Create(*spec);
}

SphinxCepstra::SphinxCepstra(const CepstraSpec& spec, const features::FrontEnd& front_end)
    : spec_(spec), front_end_(front_end) {
  pending_.reserve(static_cast<size_t>(spec_.front_end.hop_samples()));
}

void SphinxCepstra::Reset() {
  front_end_.Reset();
  pending_.clear();
}

void SphinxCepstra::Process(std::span<const int16_t> samples, std::vector<float>& cepstra) {
  const size_t hop = static_cast<size_t>(spec_.front_end.hop_samples());
  while (!samples.empty()) {
    const size_t take = std::min(hop - pending_.size(), samples.size());
    pending_.insert(pending_.end(), samples.begin(), samples.begin() + take);
    samples = samples.subspan(take);
    if (pending_.size() < hop) break;
    front_end_.Process(pending_);
    pending_.clear();
    const std::span<const int32_t> mfcc_q8 = front_end_.mfcc_q8();
    for (size_t i = 0; i < mfcc_q8.size(); ++i) {
      cepstra.push_back(static_cast<float>(mfcc_q8[i] * kLnPerDbQ8) + spec_.offset[i]);
    }
  }
}

}  // namespace earshot::pocketsphinx
