// A pocketsphinx decoder made from its command-line arguments, safely: the library's log goes to
// one process-wide callback (installed on first use) that drops its chatter and keeps the calling
// thread's errors, and a fatal error inside ps_init (a model file it cannot read), after which the
// library would end the process, comes back as an error instead.
#pragma once

#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/result.h"

typedef struct ps_decoder_s ps_decoder_t;

namespace earshot::pocketsphinx {

// The decoder of `args` ("-hmm", dir, ...), owned by the caller (ps_free); an error with what
// pocketsphinx logged when it cannot make one. `what` names the models in the error.
Result<ps_decoder_t*> MakePocketsphinxDecoder(const std::vector<std::string>& args,
                                              const std::string& what);

// A grammar search named `name` on `decoder` from the JSGF text `jsgf` (its public rule), as
// ps_set_jsgf_string makes one, but with the parsed grammar freed: Debian's pocketsphinx
// (0.8+5prealpha) keeps it, about 35 KB per 100 words on every call, which a daemon compiling
// its clients' command sets again and again cannot afford. Its three steps (parse, the finite-
// state grammar, the search: most of a large set's compile) end early once `cancel` is raised
// (kCancelledMessage). An error when pocketsphinx refused it (its own: TakePocketsphinxErrors).
Status AddJsgfSearch(ps_decoder_t* decoder, const char* name, const std::string& jsgf,
                     const CancelFlag* cancel = nullptr);

// The errors pocketsphinx logged on this thread since the last call of either function (the
// library goes on after some of them: callers treat any as a failure of what they just asked).
std::string TakePocketsphinxErrors();

}  // namespace earshot::pocketsphinx
