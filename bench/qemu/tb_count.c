// A qemu-user TCG plugin that counts the guest instructions each translation block executes, for
// bench/instructions.sh (aarch64 instruction counts; callgrind's on x86). At exit it writes one
// line per translated block: "vaddr instructions executions" (hexadecimal address), to the file
// named by its argument out=FILE. Build: cc -shared -fPIC -O2 tb_count.c -o tb_count.so; run:
//   qemu-aarch64 -plugin ./tb_count.so,out=tb.txt PROGRAM...
// Each block gets an inline counter (QEMU adds 1 to it in the generated code, no call per block),
// so counting costs little; the counts are of one vCPU (earshot run has one thread doing work).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The declarations of QEMU's plugin API (include/qemu/qemu-plugin.h, API version 1, QEMU 7.2)
// that this plugin uses: Debian's qemu-user has -plugin but ships no header.
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  // read through no field here
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

// One per translation (a block translated again after a flush gets another; the script adds them).
struct Block {
  uint64_t vaddr;
  uint64_t instructions;
  uint64_t executions;  // incremented by the generated code
  struct Block* next;
};
static struct Block* blocks;
static char* out_path;

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  struct Block* block = calloc(1, sizeof *block);
  if (block == NULL) abort();
  block->vaddr = qemu_plugin_tb_vaddr(tb);
  block->instructions = qemu_plugin_tb_n_insns(tb);
  block->next = blocks;
  blocks = block;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &block->executions, 1);
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id, (void)userdata;
  FILE* out = fopen(out_path, "w");
  if (out == NULL) {
    perror(out_path);
    return;
  }
  for (const struct Block* b = blocks; b != NULL; b = b->next) {
    if (b->executions != 0) {
      fprintf(out, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
              (unsigned long long)b->instructions, (unsigned long long)b->executions);
    }
  }
  fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "out=", 4) == 0) out_path = strdup(argv[i] + 4);
  }
  if (out_path == NULL) {
    fputs("tb_count: give out=FILE\n", stderr);
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
