// libearshot's C API (include/earshot/earshot.h) over statemachine::Pipeline: the config is read
// and checked, the models loaded, samples gathered into 10 ms frames, events queued as JSON.
// Every entry point catches what the C++ below it may throw, so nothing crosses into C.
#include "earshot/earshot.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <string>

#include "config/config.h"
#include "statemachine/pipeline.h"

namespace {

using earshot::config::Config;
using earshot::statemachine::Pipeline;

// The pipeline's events, in order, until the application takes them.
class QueueSink final : public earshot::statemachine::EventSink {
 public:
  void Emit(const earshot::statemachine::Event& event) override {
    events.push_back(earshot::statemachine::ToJson(event));
  }
  std::deque<std::string> events;
};

void CopyMessage(const std::string& text, char* message, size_t size) {
  if (message != nullptr && size > 0) std::snprintf(message, size, "%s", text.c_str());
}

// The config of earshot_pipeline_create, or the status and message of what is wrong in it.
earshot::Result<Config> ReadConfig(const char* config_file, const char* const* settings) {
  earshot::Result<Config> config = Config::FromFileOrDefaults(config_file ? config_file : "");
  if (!config) return config.error();
  for (const char* const* s = settings; s != nullptr && *s != nullptr; ++s) {
    if (earshot::Status set = config->SetAssignment(*s); !set) return set.error();
  }
  if (earshot::Status checked = config->Check(); !checked) return checked.error();
  return config;
}

}  // namespace

struct earshot_pipeline {
  QueueSink sink;  // before the pipeline, which holds a pointer to it
  std::unique_ptr<Pipeline> pipeline;
  earshot::audio::Frame frame{};
  size_t frame_fill = 0;  // samples of `frame` pushed so far
  bool finished = false;
  std::string event;  // the text earshot_pipeline_next_event returned last
  std::string error;

  int Fail(int status, std::string message) {
    error = std::move(message);
    return status;
  }
};

extern "C" {

const char* earshot_version(void) { return EARSHOT_VERSION; }

int earshot_pipeline_create(const char* config_file, const char* const* settings,
                            earshot_pipeline** pipeline, char* message, size_t message_size) {
  if (pipeline == nullptr) {
    CopyMessage("earshot_pipeline_create: pipeline is NULL", message, message_size);
    return EARSHOT_ERROR_ARGUMENT;
  }
  *pipeline = nullptr;
  try {
    earshot::Result<Config> config = ReadConfig(config_file, settings);
    if (!config) {
      CopyMessage(config.error().message, message, message_size);
      return EARSHOT_ERROR_CONFIG;
    }
    auto created = std::make_unique<earshot_pipeline>();
    auto stages = Pipeline::Create(*config, earshot::statemachine::StageSet{}, &created->sink);
    if (!stages) {
      CopyMessage(stages.error().message, message, message_size);
      return EARSHOT_ERROR_MODEL;
    }
    created->pipeline = std::move(*stages);
    *pipeline = created.release();
    CopyMessage("", message, message_size);
    return EARSHOT_OK;
  } catch (const std::exception& e) {
    CopyMessage(std::string("earshot_pipeline_create: ") + e.what(), message, message_size);
    return EARSHOT_ERROR_INTERNAL;
  }
}

int earshot_pipeline_push(earshot_pipeline* p, const int16_t* samples, size_t count) {
  if (p == nullptr) return EARSHOT_ERROR_ARGUMENT;
  if (samples == nullptr && count > 0) {
    return p->Fail(EARSHOT_ERROR_ARGUMENT, "earshot_pipeline_push: samples is NULL");
  }
  if (p->finished) return p->Fail(EARSHOT_ERROR_ARGUMENT, "earshot_pipeline_push: after finish");
  try {
    while (count > 0) {
      const size_t n = std::min(count, p->frame.size() - p->frame_fill);
      std::copy_n(samples, n, p->frame.begin() + static_cast<ptrdiff_t>(p->frame_fill));
      p->frame_fill += n;
      samples += n;
      count -= n;
      if (p->frame_fill == p->frame.size()) {
        p->pipeline->Push(p->frame);
        p->frame_fill = 0;
      }
    }
    return EARSHOT_OK;
  } catch (const std::exception& e) {
    return p->Fail(EARSHOT_ERROR_INTERNAL, std::string("earshot_pipeline_push: ") + e.what());
  }
}

int earshot_pipeline_finish(earshot_pipeline* p) {
  if (p == nullptr) return EARSHOT_ERROR_ARGUMENT;
  if (p->finished) return p->Fail(EARSHOT_ERROR_ARGUMENT, "earshot_pipeline_finish: twice");
  try {
    if (p->frame_fill > 0) {  // the last, partial frame, padded with silence as files are
      std::fill(p->frame.begin() + static_cast<ptrdiff_t>(p->frame_fill), p->frame.end(), 0);
      p->pipeline->Push(p->frame);
      p->frame_fill = 0;
    }
    p->pipeline->Finish();
    p->finished = true;
    return EARSHOT_OK;
  } catch (const std::exception& e) {
    return p->Fail(EARSHOT_ERROR_INTERNAL, std::string("earshot_pipeline_finish: ") + e.what());
  }
}

const char* earshot_pipeline_next_event(earshot_pipeline* p) {
  if (p == nullptr || p->sink.events.empty()) return nullptr;
  p->event = std::move(p->sink.events.front());
  p->sink.events.pop_front();
  return p->event.c_str();
}

const char* earshot_pipeline_error(const earshot_pipeline* p) {
  return p == nullptr ? "earshot_pipeline_error: pipeline is NULL" : p->error.c_str();
}

void earshot_pipeline_destroy(earshot_pipeline* p) { delete p; }

}  // extern "C"
