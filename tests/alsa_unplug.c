/* Unplugging a capture device, for tests on machines without sound hardware.
 *
 * ALSA's file and null plugins never fail once open, so nothing in ALSA itself can play a USB
 * microphone being pulled out. Preloaded into earshotd (LD_PRELOAD), this library makes the real
 * snd_pcm_readi fail with -ENODEV, and snd_pcm_open with -ENODEV, while the file named by
 * EARSHOT_TEST_UNPLUGGED exists: the errors a vanished USB device gives. When the file named by
 * EARSHOT_TEST_XRUN exists, one read fails with -EPIPE (an overrun) and the file is removed.
 * Everything else goes to the real libasound; the daemon's capture code runs unchanged. */
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
  return real_readi(pcm, buffer, size);
}
