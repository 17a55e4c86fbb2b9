// The speech-to-text model the config names: the backend (pocketsphinx for now), the command
// classifier joined to it when its words are the decoder's (models/commands/command_fusion.h),
// and the command sets' layer over both (models/stt/command_decoder.h).
#pragma once

#include <memory>

#include "base/cancel.h"
#include "base/result.h"
#include "models/stt/stt.h"

namespace earshot::stt_factory {

// The model of `config`; errors name the missing or broken file. Once `cancel` is raised the load
// stops at its next step (a decoder, a command set's words, its grammar) with kCancelledMessage.
Result<std::shared_ptr<const stt::SttModel>> LoadModel(const stt::SttConfig& config,
                                                       const CancelFlag* cancel = nullptr);

}  // namespace earshot::stt_factory
