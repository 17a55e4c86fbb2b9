#include "statemachine/json_sink.h"

namespace earshot::statemachine {

void JsonLinesSink::Emit(const Event& event) {
  const std::string line = ToJson(event) + "\n";
  std::fwrite(line.data(), 1, line.size(), out_);  // whole lines only: never a partial object
  std::fflush(out_);
  std::clearerr(out_);  // a line a full pipe refused is lost; the next one is tried afresh
}

}  // namespace earshot::statemachine
