// Fuzz target: a TOML config file read into the options table, then every stage's settings taken
// from it: whatever the options table accepts must bind, or give an error.
#include <cstddef>
#include <cstdint>

#include "config/config.h"
#include "governor/governor.h"
#include "models/kws/keywords.h"
#include "models/kws/kws.h"
#include "models/stt/stt.h"
#include "models/vad/vad.h"
#include "options/stage_options.h"
#include "statemachine/endpointer.h"
#include "tests/fuzz/mem_file.h"

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
  return 0;
}
