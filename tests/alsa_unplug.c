/* Unplugging a capture device, for tests on machines without sound hardware.
 *
 * ALSA's file and null plugins never fail once open, so nothing in ALSA itself can play a USB
 * microphone being pulled out. Preloaded into earshotd (LD_PRELOAD), this library makes the real
 * snd_pcm_readi fail with -ENODEV, and snd_pcm_open with -ENODEV, while the file named by
 * EARSHOT_TEST_UNPLUGGED exists: the errors a vanished USB device gives. When the file named by
 * EARSHOT_TEST_XRUN exists, one read fails with -EPIPE (an overrun) and the file is removed; while
 * the file named by EARSHOT_TEST_XRUN_STORM exists, every read does (an overrun storm).
 * EARSHOT_TEST_DEVICE_FORMAT (S32 or FLOAT), _CHANNELS and _RATE make the device offer only that
 * format and ask for that channel count and rate, as many USB microphones do (the null plugin
 * under the file plugin takes any). Everything else goes to the real libasound; the daemon's
 * capture code runs unchanged. */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static int unplugged(void) {
  const char* path = getenv("EARSHOT_TEST_UNPLUGGED");
  return path != NULL && access(path, F_OK) == 0;
}

int snd_pcm_open(snd_pcm_t** pcm, const char* name, snd_pcm_stream_t stream, int mode) {
  typedef int (*open_fn)(snd_pcm_t**, const char*, snd_pcm_stream_t, int);
  static open_fn real_open = NULL;
  if (real_open == NULL) real_open = (open_fn)dlsym(RTLD_NEXT, "snd_pcm_open");
  if (unplugged()) return -ENODEV;
  return real_open(pcm, name, stream, mode);
}

snd_pcm_sframes_t snd_pcm_readi(snd_pcm_t* pcm, void* buffer, snd_pcm_uframes_t size) {
  typedef snd_pcm_sframes_t (*readi_fn)(snd_pcm_t*, void*, snd_pcm_uframes_t);
  static readi_fn real_readi = NULL;
  if (real_readi == NULL) real_readi = (readi_fn)dlsym(RTLD_NEXT, "snd_pcm_readi");
  if (unplugged()) return -ENODEV;
  const char* xrun = getenv("EARSHOT_TEST_XRUN");
  if (xrun != NULL && unlink(xrun) == 0) return -EPIPE;
  const char* storm = getenv("EARSHOT_TEST_XRUN_STORM");
  if (storm != NULL && access(storm, F_OK) == 0) return -EPIPE;  /* every read while it exists */
  return real_readi(pcm, buffer, size);
}

static long device_setting(const char* name) {
  const char* value = getenv(name);
  return value != NULL ? strtol(value, NULL, 10) : 0;
}

int snd_pcm_hw_params_test_format(snd_pcm_t* pcm, snd_pcm_hw_params_t* params,
                                  snd_pcm_format_t format) {
  typedef int (*test_fn)(snd_pcm_t*, snd_pcm_hw_params_t*, snd_pcm_format_t);
  static test_fn real_test = NULL;
  if (real_test == NULL) real_test = (test_fn)dlsym(RTLD_NEXT, "snd_pcm_hw_params_test_format");
  const char* only = getenv("EARSHOT_TEST_DEVICE_FORMAT");
  if (only != NULL && format != snd_pcm_format_value(only)) return -EINVAL;
  return real_test(pcm, params, format);
}

int snd_pcm_hw_params_set_channels_near(snd_pcm_t* pcm, snd_pcm_hw_params_t* params,
                                        unsigned int* val) {
  typedef int (*near_fn)(snd_pcm_t*, snd_pcm_hw_params_t*, unsigned int*);
  static near_fn real_near = NULL;
  if (real_near == NULL) real_near = (near_fn)dlsym(RTLD_NEXT, "snd_pcm_hw_params_set_channels_near");
  const long channels = device_setting("EARSHOT_TEST_DEVICE_CHANNELS");
  if (channels > 0) *val = (unsigned int)channels;
  return real_near(pcm, params, val);
}

int snd_pcm_hw_params_set_rate_near(snd_pcm_t* pcm, snd_pcm_hw_params_t* params,
                                    unsigned int* val, int* dir) {
  typedef int (*near_fn)(snd_pcm_t*, snd_pcm_hw_params_t*, unsigned int*, int*);
  static near_fn real_near = NULL;
  if (real_near == NULL) real_near = (near_fn)dlsym(RTLD_NEXT, "snd_pcm_hw_params_set_rate_near");
  const long rate = device_setting("EARSHOT_TEST_DEVICE_RATE");
  if (rate > 0) *val = (unsigned int)rate;
  return real_near(pcm, params, val, dir);
}
