// An acoustic model's feat.params: the "-name value" settings of the front end it was trained
// with, over pocketsphinx's defaults for those it leaves out. Read for every front end:
// pocketsphinx reads the file too, but an -nfilt or -ncep below 1 crashed it (a failed calloc, a
// segmentation fault), and a negative -lifter or a -cmninit of words it took without a word.
#pragma once

#include <map>
#include <string>

#include "base/result.h"

namespace earshot::pocketsphinx {

struct FeatParams {
  std::map<std::string, std::string> settings;  // "-nfilt" -> "25", ..., defaults included

  // Reads `path`; errors name the file and the setting.
  static Result<FeatParams> Read(const std::string& path);
  // A setting that must be a finite number; the error ("-nfilt 'twenty' is not a number") is for
  // the caller to prefix with the file.
  Result<double> Number(const std::string& name) const;
};

}  // namespace earshot::pocketsphinx
