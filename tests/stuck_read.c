/* A sensor that never answers, for tests: preloaded (LD_PRELOAD) into earshotd or earshot, this
 * library makes a read() of the file named by EARSHOT_TEST_STUCK_FILE (an absolute path without
 * links) block for good, as a sysfs attribute does whose driver waits on a hung embedded
 * controller or I2C bus: a regular file, so O_NONBLOCK changes nothing. Every other read goes to
 * the C library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t read(int fd, void* buf, size_t count) {
  typedef ssize_t (*read_fn)(int, void*, size_t);
  static read_fn real_read = NULL;
  if (real_read == NULL) real_read = (read_fn)dlsym(RTLD_NEXT, "read");
  const char* stuck = getenv("EARSHOT_TEST_STUCK_FILE");
  if (stuck != NULL) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0) {
      path[n] = '\0';
      /* pause() returns on a signal handled by this thread: earshotd blocks its signals in every
       * thread (the loop takes them from a signalfd), so this never returns there. */
      if (strcmp(path, stuck) == 0) for (;;) pause();
    }
  }
  return real_read(fd, buf, count);
}
