#include "models/pocketsphinx/pocketsphinx_init.h"

#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/jsgf.h>

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace earshot::pocketsphinx {
namespace {

thread_local std::string t_errors;

void KeepError(const char* text) {
  constexpr size_t kEnough = 1000;  // a dictionary can have an error on every line
  if (t_errors.size() > kEnough) return;
  t_errors += (t_errors.empty() ? "" : "; ") + std::string(text);
  if (t_errors.size() > kEnough) t_errors += "; ...";
}

// While InitCatchingFatal runs, a fatal error jumps back into it with the message.
thread_local std::jmp_buf* t_on_fatal = nullptr;
thread_local char t_fatal_text[1024];

void OnPocketsphinxLog(void* /*user_data*/, err_lvl_t level, const char* format, ...) {
  if (level < ERR_ERROR) return;
  char text[sizeof t_fatal_text];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  size_t length = std::strlen(text);
  while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' ')) text[--length] = 0;
  if (level == ERR_FATAL && t_on_fatal != nullptr) {
    std::memcpy(t_fatal_text, text, length + 1);
    std::longjmp(*t_on_fatal, 1);
  }
  if (level == ERR_FATAL) std::fprintf(stderr, "earshot: stt: pocketsphinx: %s\n", text);
  KeepError(text);
}

// ps_init, nullptr after a fatal error. The jump skips pocketsphinx's own frames, so the half-built
// decoder is leaked: a broken model is rare, and the process lives on. No object with a
// destructor lives in this frame across the jump.
ps_decoder_t* InitCatchingFatal(cmd_ln_t* cmd) {
  std::jmp_buf on_fatal;
  ps_decoder_t* volatile decoder = nullptr;
  if (setjmp(on_fatal) == 0) {
    t_on_fatal = &on_fatal;
    decoder = ps_init(cmd);
  }
  t_on_fatal = nullptr;
  if (decoder == nullptr && t_fatal_text[0] != 0) {
    KeepError(t_fatal_text);
    t_fatal_text[0] = 0;
  }
  return decoder;
}

}  // namespace

Result<ps_decoder_t*> MakePocketsphinxDecoder(const std::vector<std::string>& args,
                                              const std::string& what) {
  static std::once_flag log_callback;
  std::call_once(log_callback, [] { err_set_callback(OnPocketsphinxLog, nullptr); });
  t_errors.clear();
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& a : copy) argv.push_back(a.data());
  cmd_ln_t* cmd =
      cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), argv.data(), FALSE);
  ps_decoder_t* decoder = cmd != nullptr ? InitCatchingFatal(cmd) : nullptr;
  if (cmd != nullptr) cmd_ln_free_r(cmd);
  if (decoder == nullptr) {
    return Error{"pocketsphinx could not load " + what +
                 (t_errors.empty() ? "" : ": " + TakePocketsphinxErrors())};
  }
  return decoder;
}

Status AddJsgfSearch(ps_decoder_t* decoder, const char* name, const std::string& jsgf,
                     const CancelFlag* cancel) {
  if (Cancelled(cancel)) return Error{kCancelledMessage};
  jsgf_t* grammar = jsgf_parse_string(jsgf.c_str(), nullptr);
  if (grammar == nullptr) return Error{"pocketsphinx could not parse the grammar"};
  jsgf_rule_t* rule = jsgf_get_public_rule(grammar);
  fsg_model_t* fsg = nullptr;
  if (rule != nullptr && !Cancelled(cancel)) {
    const float32 lw = cmd_ln_float32_r(ps_get_config(decoder), "-lw");
    fsg = jsgf_build_fsg(grammar, rule, ps_get_logmath(decoder), lw);
  }
  jsgf_grammar_free(grammar);
  Status added = OkStatus();
  if (Cancelled(cancel)) {
    added = Error{kCancelledMessage};
  } else if (fsg == nullptr || ps_set_fsg(decoder, name, fsg) < 0) {
    added = Error{"pocketsphinx refused the grammar"};
  }
  if (fsg != nullptr) fsg_model_free(fsg);  // the search holds its own reference
  return added;
}

std::string TakePocketsphinxErrors() {
  std::string errors = std::move(t_errors);
  t_errors.clear();
  return errors;
}

}  // namespace earshot::pocketsphinx
