// Fuzz target: a TOML config file read into the options table, then every stage's settings taken
// from it, and the front end it describes built and run: whatever the options table accepts must
// give a working front end, or an error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/config.h"
#include "features/front_end.h"
#include "features/front_end_config.h"
#include "governor/governor.h"
#include "models/kws/keywords.h"
#include "models/kws/kws.h"
#include "models/stt/stt.h"
#include "models/vad/vad.h"
#include "options/stage_options.h"
#include "statemachine/endpointer.h"
#include "tests/fuzz/mem_file.h"

namespace {

void RunFrontEnd(const earshot::config::Config& config) {
  auto front_end_config = earshot::options::BindFrontEnd(config);
  if (!front_end_config.ok()) return;
  auto front_end = earshot::features::FrontEnd::Create(front_end_config.value());
  if (!front_end.ok()) return;
  std::vector<int16_t> hop(static_cast<size_t>(front_end_config.value().hop_samples()));
  for (int t = 0; t < 20; ++t) {
    for (size_t i = 0; i < hop.size(); ++i)
      hop[i] = static_cast<int16_t>((i * 2654435761u + t) >> 16);
    front_end.value()->Process(hop);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const earshot::fuzz::MemFile file(data, size);
  auto config = earshot::config::Config::FromFile(file.path());
  if (!config.ok()) return 0;
  (void)earshot::options::BindVad(config.value());
  (void)earshot::options::BindKws(config.value());
  (void)earshot::options::BindKeywords(config.value());
  (void)earshot::options::BindStt(config.value());
  (void)earshot::statemachine::EndpointConfig::FromConfig(config.value());
  (void)earshot::governor::GovernorConfig::FromConfig(config.value());
  (void)config.value().ToToml();
  RunFrontEnd(config.value());
  return 0;
}
