#!/usr/bin/python3
"""Instructions per second of audio of `earshot run`, as the slope between a short and a long
input (start-up, the models' loading, cancels), with the functions that take them.

x86-64: valgrind --tool=callgrind (exclusive Ir per function, callgrind_annotate).
aarch64: qemu-aarch64 with bench/qemu/tb_count.so (executions of each translation block), each
block's address mapped to its function: the program's own through its symbol table, a shared
library's through the load address qemu's strace log gives and the library's dynamic symbols.

Usage: bench/instructions.py x86|aarch64 EARSHOT CASE SHORT.wav LONG.wav EXTRA_SECONDS [PLUGIN]
Prints "CASE ARCH instructions_per_s" and then the top functions' share of the slope.
EARSHOT_COMMAND: the earshot command and its options before the file (default "run"; e.g.
"features --kind embedding" for bench/embedding_cost.sh).
"""
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

TOP = 12
COMMAND = os.environ.get("EARSHOT_COMMAND", "run").split()


def callgrind_functions(earshot, wav, tmp):
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", earshot, *COMMAND,
                    wav], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100",
                           out], check=True, capture_output=True, text=True).stdout
    counts = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*?)(?:\s+\[.*\])?$", line)
        if m and ":" in m.group(2):
            counts[m.group(2).split(":", 1)[1]] += int(m.group(1).replace(",", ""))
    return counts


class Symbols:
    """Sorted (address, name) of one aarch64 ELF file as `nm` lists them, loaded at `base`."""

    def __init__(self, path, base, dynamic):
        self.base = base
        args = ["aarch64-linux-gnu-nm", "-C", "--defined-only", *(["-D"] if dynamic else []), path]
        rows = []
        for line in subprocess.run(args, capture_output=True, text=True).stdout.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "tTwWiI":
                rows.append((base + int(parts[0], 16), parts[2]))
        rows.sort()
        self.addresses = [a for a, _ in rows]
        self.names = [n for _, n in rows]
        self.label = os.path.basename(path) if dynamic else ""

    def name(self, address):
        i = bisect.bisect_right(self.addresses, address) - 1
        name = self.names[i] if i >= 0 else "?"
        return f"{name} ({self.label})" if self.label else name


def loaded_objects(log, earshot):
    """(base, Symbols) for the program (start_code of qemu's page log) and every library mapped
    executable at file offset 0 (its strace lines)."""
    objects, fds = [], {}
    text = open(log, errors="replace").read()
    start = re.search(r"start_code\s+0x([0-9a-f]+)", text)
    objects.append(Symbols(earshot, int(start.group(1), 16), dynamic=False))
    for m in re.finditer(r'openat\(AT_FDCWD,"([^"]+)",[^)]*\) = (\d+)', text):
        fds[m.group(2)] = m.group(1)
        for e in re.finditer(r"mmap\(0x([0-9a-f]+),\d+,PROT_EXEC[^,]*,[^,]*,(\d+),0\)",
                             text[m.end():m.end() + 4000]):
            if e.group(2) == m.group(2):
                objects.append(Symbols(m.group(1), int(e.group(1), 16), dynamic=True))
                break
    return objects


def qemu_functions(earshot, wav, tmp, plugin):
    blocks, log = os.path.join(tmp, "tb.txt"), os.path.join(tmp, "qemu.log")
    subprocess.run(["qemu-aarch64", "-plugin", f"{plugin},out={blocks}", "-d", "page,strace",
                    "-D", log, earshot, *COMMAND, wav], check=True, stdout=subprocess.DEVNULL)
    objects = sorted(loaded_objects(log, earshot), key=lambda o: o.base)
    bases = [o.base for o in objects]
    counts = collections.Counter()
    for line in open(blocks):
        vaddr, insns, runs = line.split()
        address = int(vaddr, 16)
        i = bisect.bisect_right(bases, address) - 1
        counts[objects[i].name(address) if i >= 0 else "?"] += int(insns) * int(runs)
    return counts


def main(argv):
    arch, earshot, case, short, long_, extra_s = argv[1:7]
    measure = callgrind_functions if arch == "x86" else qemu_functions
    extra = (argv[7],) if arch != "x86" else ()
    with tempfile.TemporaryDirectory() as tmp:
        a = measure(earshot, short, tmp, *extra)
        b = measure(earshot, long_, tmp, *extra)
    seconds = float(extra_s)
    slope = {f: (b[f] - a[f]) / seconds for f in set(a) | set(b)}
    total = sum(slope.values())
    print(f"{case}\t{arch}\t{total:.0f}")
    for name, per_s in sorted(slope.items(), key=lambda kv: -kv[1])[:TOP]:
        print(f"  {100 * per_s / total:5.1f}%  {per_s:12.0f}  {name[:100]}")


if __name__ == "__main__":
    main(sys.argv)
