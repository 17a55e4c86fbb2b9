// The binary files of a pocketsphinx acoustic model that the library maps and indexes without
// bounds checks, checked before it reads them. A cut binary `mdef` crashed earshot inside
// libpocketsphinx (a segmentation fault), and a cut `sendump` decoded garbage without a word:
// a model copied in part (a full disk, an interrupted update) must be an error at start-up instead.
// The layouts are the ones the files describe in their own headers (pocketsphinx's bin_mdef and
// sendump formats); a text `mdef` and the s3 files (means, variances, transition matrices), which
// pocketsphinx reads with checks of its own, are left to it.
#pragma once

#include <string>

#include "base/result.h"

namespace earshot::pocketsphinx {

// `dir` is the model directory (stt.acoustic_model). Errors name the file and the cause.
Status CheckAcousticModel(const std::string& dir);

}  // namespace earshot::pocketsphinx
