/* libearshot: earshot's cascade (VAD -> wake word -> speech-to-text) inside an application that
 * does not want the daemon. A stable C API: create a pipeline from a config, push 16 kHz mono
 * samples, take its events (the JSON objects of docs/events.md, in stream order). Errors are
 * return codes with a message; nothing here exits the process or throws.
 *
 * Threads: a pipeline is used from one thread at a time; separate pipelines are independent.
 * Models: the bundled ones are found under the prefix libearshot is installed in
 * (PREFIX/share/earshot/models); a config can name others. ABI: the SONAME's number changes
 * only when a function here changes incompatibly; functions are only added. */
#ifndef EARSHOT_EARSHOT_H_
#define EARSHOT_EARSHOT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EARSHOT_EXPORT __attribute__((visibility("default")))

enum earshot_status {
  EARSHOT_OK = 0,
  EARSHOT_ERROR_ARGUMENT = 1, /* a NULL pointer or a call out of order (push after finish) */
  EARSHOT_ERROR_CONFIG = 2,   /* the config file or a setting is wrong (the message names it) */
  EARSHOT_ERROR_MODEL = 3,    /* a model could not be loaded (the message names the file) */
  EARSHOT_ERROR_INTERNAL = 4  /* out of memory, or a bug: the message says what */
};

typedef struct earshot_pipeline earshot_pipeline;

/* "0.1.0": the version of the library. */
EARSHOT_EXPORT const char* earshot_version(void);

/* Creates a pipeline: the defaults, then the TOML file `config_file` if not NULL (earshot.toml(5)),
 * then `settings` if not NULL, a NULL-terminated array of "section.key=value" (as --set).
 * On success *pipeline is set and EARSHOT_OK returned; otherwise *pipeline is NULL and the
 * reason, one line, is written to `message` (up to message_size bytes, NUL-terminated). */
EARSHOT_EXPORT int earshot_pipeline_create(const char* config_file, const char* const* settings,
                                           earshot_pipeline** pipeline, char* message,
                                           size_t message_size);

/* Pushes `count` samples of 16 kHz mono signed 16-bit audio, any number at a time. The events
 * they cause wait for earshot_pipeline_next_event. */
EARSHOT_EXPORT int earshot_pipeline_push(earshot_pipeline* pipeline, const int16_t* samples,
                                         size_t count);

/* Ends the stream: decides the last frames, ends a request in progress (its final transcript)
 * and speech. Nothing can be pushed after it. */
EARSHOT_EXPORT int earshot_pipeline_finish(earshot_pipeline* pipeline);

/* The next event as one JSON object, or NULL when none waits. The text is the pipeline's until
 * the next call on it. */
EARSHOT_EXPORT const char* earshot_pipeline_next_event(earshot_pipeline* pipeline);

/* The message of the last call on `pipeline` that failed ("" if none). */
EARSHOT_EXPORT const char* earshot_pipeline_error(const earshot_pipeline* pipeline);

/* Frees the pipeline; NULL is allowed. */
EARSHOT_EXPORT void earshot_pipeline_destroy(earshot_pipeline* pipeline);

#ifdef __cplusplus
}
#endif

#endif /* EARSHOT_EARSHOT_H_ */
