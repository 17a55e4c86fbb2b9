#include "models/pocketsphinx/feat_params.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include "base/read_file.h"

namespace earshot::pocketsphinx {
namespace {

// pocketsphinx's defaults for what feat.params leaves out (pocketsphinx_batch's argument list).
const std::map<std::string, std::string> kDefaults = {
    {"-lowerf", "133.33334"}, {"-upperf", "6855.4976"}, {"-nfilt", "40"},
    {"-transform", "legacy"}, {"-lifter", "0"},         {"-ncep", "13"},
    {"-alpha", "0.97"},       {"-wlen", "0.025625"},    {"-nfft", "512"},
    {"-samprate", "16000"}};

std::optional<double> ParseNumber(const std::string& text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// The settings pocketsphinx sizes its filterbank and cepstra by, and the initial cepstral mean.
Status CheckShape(const FeatParams& p) {
  Result<double> nfilt = p.Number("-nfilt"), ncep = p.Number("-ncep"), nfft = p.Number("-nfft"),
                 lifter = p.Number("-lifter");
  for (const Result<double>* n : {&nfilt, &ncep, &nfft, &lifter}) {
    if (!n->ok()) return n->error();
  }
  const std::string& bands = p.settings.at("-nfilt");
  if (*nfilt < 1 || *nfilt > *nfft / 2 || *nfilt != std::floor(*nfilt)) {
    return Error{"-nfilt " + bands +
                 ": expected a whole number of bands, 1 to half the FFT size (" +
                 p.settings.at("-nfft") + ")"};
  }
  if (*ncep < 1 || *ncep > *nfilt || *ncep != std::floor(*ncep)) {
    return Error{"-ncep " + p.settings.at("-ncep") +
                 ": expected a whole number of cepstra, 1 to -nfilt (" + bands + ")"};
  }
  if (*lifter < 0) return Error{"-lifter " + p.settings.at("-lifter") + ": expected 0 or more"};
  const auto cmninit = p.settings.find("-cmninit");
  if (cmninit == p.settings.end()) return OkStatus();
  std::istringstream values(cmninit->second);
  int count = 0;
  for (std::string value; std::getline(values, value, ',');) {
    if (!ParseNumber(value) || ++count > *ncep) {
      return Error{"-cmninit " + cmninit->second + ": expected at most -ncep (" +
                   p.settings.at("-ncep") + ") numbers, separated by commas"};
    }
  }
  return OkStatus();
}

}  // namespace

Result<FeatParams> FeatParams::Read(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path, 64 << 10, "a feat.params");
  if (!text.ok()) return text.error();
  FeatParams p;
  p.settings = kDefaults;
  std::istringstream in(*text);
  for (std::string name, value; in >> name;) {
    if (!(in >> value)) return Error{path + ": " + name + " has no value"};
    if (name.size() < 2 || name[0] != '-') {
      return Error{path + ": '" + name + "' is not a setting (-name value)"};
    }
    p.settings[name] = value;
  }
  if (Status shape = CheckShape(p); !shape.ok()) {
    return Error{path + ": " + shape.error().message};
  }
  return p;
}

Result<double> FeatParams::Number(const std::string& name) const {
  const auto it = settings.find(name);
  const std::string text = it == settings.end() ? "" : it->second;
  if (std::optional<double> v = ParseNumber(text)) return *v;
  return Error{name + " '" + text + "' is not a number"};
}

}  // namespace earshot::pocketsphinx
