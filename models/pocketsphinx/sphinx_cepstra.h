// SphinxCepstra: earshot's fixed-point front end (features/) set to a pocketsphinx acoustic model's
// feat.params, giving the cepstra that model was trained on, so that the device runs one front end
// for every stage (front_end = "earshot"; pocketsphinx then decodes with ps_process_cep).
//
// feat.params gives the filterbank (-lowerf, -upperf, -nfilt), -transform (dct only: orthonormal
// DCT-II, as features/dct.h), -lifter, -ncep, -alpha (pre-emphasis), -wlen and -nfft; the front
// end's NoiseSuppression stands for pocketsphinx's -remove_noise (on by default) and its log floor
// goes down to -127 dB, as pocketsphinx's logs of int16 power do. What differs from pocketsphinx's
// own front end: a Hann window of whole milliseconds (26 ms against its 25.6 ms Hamming), DC
// removal, frames that end with their hop (1.5 frames later), and no silence removal.
// Levels: the front end gives dB re full scale (Q8); pocketsphinx's cepstra are natural logs of
// the power of int16 samples under its window, summed by unit-area triangles. Both are linear in
// the log mel energies, so the conversion is a scale (ln 10 / 10 per dB) and, per coefficient, the
// DCT of the constant per-band offset (the full-scale level and ln(2 / band width in Hz)): the
// model's -cmninit and live cepstral mean then start where they do with pocketsphinx's front end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "features/front_end.h"

namespace earshot::pocketsphinx {

struct CepstraSpec {
  features::FrontEndConfig front_end;
  std::vector<float> offset;  // per coefficient, added to the scaled MFCCs (natural-log units)

  // From an acoustic model's feat.params; errors name the file and the setting.
  static Result<CepstraSpec> FromFeatParams(const std::string& path);
};

// Copyable: a model makes one at load time (where errors are reported) and each session a copy.
class SphinxCepstra {
 public:
  static Result<SphinxCepstra> Create(const CepstraSpec& spec);
  // CepstraSpec::FromFeatParams, then Create.
  static Result<SphinxCepstra> FromFeatParams(const std::string& path);

  int coefficients() const { return static_cast<int>(spec_.offset.size()); }
  // Starts a new stream: the front end's history and any partial hop are dropped.
  void Reset();
  // Appends coefficients() floats to `cepstra` per complete 10 ms hop of `samples`; the rest of a
  // hop waits for the next call.
  void Process(std::span<const int16_t> samples, std::vector<float>& cepstra);

 private:
  SphinxCepstra(const CepstraSpec& spec, const features::FrontEnd& front_end);

  CepstraSpec spec_;
  features::FrontEnd front_end_;
  std::vector<int16_t> pending_;  // samples of the hop not yet complete
};

}  // namespace earshot::pocketsphinx
