// The hang of earshotd's error exits under `qemu-aarch64 -L /usr/aarch64-linux-gnu`, without
// earshot: one thread created and joined. Run as docs/research/arm64.md says: with the loader of
// the -L prefix (libc6-arm64-cross) and the libc.so.6 of libc6:arm64 (through the host's
// /etc/ld.so.cache), the first pthread_create walks the stack cache list of a _rtld_global whose
// layout it misreads and never returns; loader and libc of one build (no -L) exit at once.
#include <pthread.h>
#include <stdio.h>

static void* Nothing(void* arg) { return arg; }

int main(void) {
  fputs("creating a thread\n", stderr);
  pthread_t thread;
  if (pthread_create(&thread, NULL, Nothing, NULL) != 0) return 2;
  pthread_join(thread, NULL);
  fputs("joined; exit 1 as earshotd's error exits do\n", stderr);
  return 1;
}
