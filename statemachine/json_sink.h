// JsonLinesSink: one JSON object per line, flushed per event so a reader sees each as it happens.
#pragma once

#include <cstdio>

#include "statemachine/event.h"

namespace earshot::statemachine {

class JsonLinesSink final : public EventSink {
 public:
  explicit JsonLinesSink(std::FILE* out) : out_(out) {}
  void Emit(const Event& event) override;

 private:
  std::FILE* out_;  // not owned
};

}  // namespace earshot::statemachine
