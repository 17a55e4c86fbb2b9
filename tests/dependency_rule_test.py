#!/usr/bin/python3
"""Checks the folders' dependency rule of docs/design.md ("Dependencies"): each folder (a top-level
folder; each of models/'s subfolders apart) sits on a layer, and its #includes and its targets'
links (earshot_add_library's DEPS, target_link_libraries) reach only folders of lower layers.

The layers are read from the first code block of that section, one line a layer, lowest first:
"layer N: FOLDER...". tests/, bench/, docs/, out/ and build*/ are not checked (they stand above
the rest).
Fails, naming the file, the line and the edge, on every edge the rule does not allow, on a cycle
(of folders or of libraries), on a folder with code that the rule does not place, and on a named
namespace other than the folder's: earshot::NAME (or one inside it), NAME the folder's last part
(models/kws: earshot::kws), base/'s earshot itself. Before that, it checks itself on a small tree
of its own with a wrong edge, a wrong namespace and a cycle in it.

usage: tests/dependency_rule_test.py [SOURCE_DIR]   (default: this clone)
"""
import pathlib
import re
import sys
import tempfile

UNCHECKED = {"tests", "bench", "docs", "out"}  # and build*/, hidden folders
SOURCE_SUFFIXES = {".h", ".hpp", ".cc", ".cpp", ".c"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)([>"])')
LAYER = re.compile(r"^layer\s+(\d+):\s*(.*)$")
NAMESPACE = re.compile(r"^\s*namespace\s+([\w:]+)\s*\{")
ROOT_NAMESPACE_FOLDERS = {"base"}  # the vocabulary every folder uses: namespace earshot itself
LINK_SCOPES = {"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PRIVATE", "LINK_PUBLIC",
               "LINK_INTERFACE_LIBRARIES"}


def read_rule(root):
    """The rule's layers: folder -> layer number, from docs/design.md's "Dependencies" block."""
    text = (root / "docs" / "design.md").read_text()
    section = re.search(r"^## Dependencies\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    block = section and re.search(r"^```[^\n]*\n(.*?)^```", section.group(1), re.M | re.S)
    if not block:
        raise SystemExit("docs/design.md: no code block under '## Dependencies'")
    layers = {}
    for number, line in enumerate(block.group(1).strip().splitlines(), 1):
        m = LAYER.match(line.strip())
        if not m or int(m.group(1)) != number:
            raise SystemExit(f"docs/design.md: layer {number} expected, not {line!r}")
        for folder in m.group(2).split():
            if folder in layers:
                raise SystemExit(f"docs/design.md: {folder} on two layers")
            layers[folder] = number
    return layers


def folder_of(root, relative):
    """The folder a path relative to the root belongs to: models/SUB for models' subfolders."""
    parts = pathlib.PurePosixPath(relative).parts
    if len(parts) > 2 and parts[0] == "models" and (root / "models" / parts[1]).is_dir():
        return f"models/{parts[1]}"
    return parts[0]


def checked_files(root, name_test):
    """Every file under the checked top-level folders whose name passes `name_test`."""
    for top in sorted(root.iterdir()):
        name = top.name
        if not top.is_dir() or name in UNCHECKED or name.startswith(("build", ".")):
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file() and name_test(path.name):
                yield path


def include_edges(root, folders):
    """(file, line, from, to, what) for each #include of another folder's file."""
    edges = []
    for path in checked_files(root, lambda n: pathlib.PurePath(n).suffix in SOURCE_SUFFIXES):
        rel = path.relative_to(root).as_posix()
        source = folder_of(root, rel)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            bracket, name, close = m.groups()
            top = pathlib.PurePosixPath(name).parts[0]
            # A system header under <...> that happens to share a folder's name is not ours.
            if top not in folders or (bracket == "<" and not (root / name).exists()):
                continue
            target = folder_of(root, name)
            if target != source:
                edges.append((rel, number, source, target, f"#include {bracket}{name}{close}"))
    return edges


def strip_comment(line):
    """A CMake line less its # comment (a # inside a quoted string stays)."""
    quoted = False
    for i, c in enumerate(line):
        if c == '"':
            quoted = not quoted
        elif c == "#" and not quoted:
            return line[:i]
    return line


def cmake_commands(path):
    """(command, [(argument, line)]) for each command call of a CMakeLists.txt."""
    tokens = []  # (token, line)
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for token in re.findall(r'"[^"]*"|[()]|[^\s()"]+', strip_comment(line)):
            tokens.append((token, number))
    commands, i = [], 0
    while i + 1 < len(tokens):
        if tokens[i + 1][0] != "(" or not re.fullmatch(r"\w+", tokens[i][0]):
            i += 1
            continue
        name, depth, j, args = tokens[i][0].lower(), 1, i + 2, []
        while j < len(tokens) and depth:
            depth += {"(": 1, ")": -1}.get(tokens[j][0], 0)
            if depth:
                args.append(tokens[j])
            j += 1
        commands.append((name, args))
        i = j
    return commands


def cmake_targets(root):
    """The targets each folder's CMakeLists.txt defines (target -> folder) and their links:
    (file, line, target, dependency)."""
    defined, links = {}, []
    for path in checked_files(root, lambda n: n == "CMakeLists.txt"):
        rel = path.relative_to(root).as_posix()
        folder = folder_of(root, rel)
        for command, args in cmake_commands(path):
            if not args:
                continue
            target = args[0][0]
            if command in ("earshot_add_library", "add_library", "add_executable"):
                defined[target] = folder
            if command == "earshot_add_library":
                words = [w for w, _ in args]
                deps = args[words.index("DEPS") + 1:] if "DEPS" in words else []
                deps = deps[:next((k for k, (w, _) in enumerate(deps) if w == "SOURCES"), None)]
            elif command == "target_link_libraries":
                deps = [a for a in args[1:] if a[0] not in LINK_SCOPES]
            else:
                continue
            links += [(rel, line, target, dep) for dep, line in deps]
    return defined, links


def link_edges(root):
    """(file, line, from, to, what) for each link between targets of two folders, and the
    library graph (target -> targets) for the cycle check."""
    defined, links = cmake_targets(root)
    edges, graph = [], {}
    for rel, line, target, dep in links:
        if target not in defined or dep not in defined:
            continue  # a test's, or a system library
        graph.setdefault(target, set()).add(dep)
        if defined[target] != defined[dep]:
            edges.append((rel, line, defined[target], defined[dep], f"{target} links {dep}"))
    return edges, graph


def find_cycle(graph):
    """One cycle of `graph` (node -> nodes) as a list of nodes, first repeated last; or None."""
    state, path = {}, []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def code_folders(root):
    """The folders that hold code or define targets."""
    found = {folder_of(root, p.relative_to(root).as_posix())
             for p in checked_files(root, lambda n: pathlib.PurePath(n).suffix in SOURCE_SUFFIXES)}
    return found | set(cmake_targets(root)[0].values())


def namespace_of(folder):
    """The one namespace a folder's code is in: earshot::LAST, LAST its name's last part."""
    if folder in ROOT_NAMESPACE_FOLDERS:
        return "earshot"
    return "earshot::" + folder.split("/")[-1]


def namespace_problems(root):
    """A line for each named namespace a file opens other than its folder's (or one inside it)."""
    problems = []
    for path in checked_files(root, lambda n: pathlib.PurePath(n).suffix in SOURCE_SUFFIXES):
        rel = path.relative_to(root).as_posix()
        expected = namespace_of(folder_of(root, rel))
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = NAMESPACE.match(line)
            if m and m.group(1) != expected and not m.group(1).startswith(expected + "::"):
                problems.append(f"{rel}:{number}: namespace {m.group(1)}; "
                                f"{folder_of(root, rel)}/'s code is in {expected}")
    return problems


def check(root):
    """Every problem of the tree at `root`, one line each; and the number of edges checked."""
    layers = read_rule(root)
    problems = [f"{f}: holds code but is on no layer of docs/design.md's Dependencies"
                for f in sorted(code_folders(root) - set(layers))]
    problems += [f"docs/design.md: layer {n}'s {f} is no folder"
                 for f, n in sorted(layers.items()) if not (root / f).is_dir()]
    edges, libraries = link_edges(root)
    edges += include_edges(root, {f.split("/")[0] for f in layers})
    for rel, line, source, target, what in edges:
        if source in layers and target in layers and layers[source] <= layers[target]:
            problems.append(f"{rel}:{line}: {source} (layer {layers[source]}) -> {target} "
                            f"(layer {layers[target]}): {what}; only lower layers may be used")
    problems += namespace_problems(root)
    folders = {}
    for _, _, source, target, _ in edges:
        folders.setdefault(source, set()).add(target)
    for graph, kind in ((folders, "folders"), (libraries, "libraries")):
        if cycle := find_cycle(graph):
            problems.append(f"a cycle of {kind}: {' -> '.join(cycle)}")
    return problems, len(edges)


SELF_TEST_TREE = {
    "docs/design.md": "## Dependencies\n\n```\nlayer 1: base\nlayer 2: models/a models/b\n```\n",
    "base/x.h": '#include "models/a/a.h"  // wrong: up\n#include <string>\n',
    "models/a/a.h": '#include "base/x.h"\nnamespace earshot::a::inner {}\nnamespace earshot::b {}\n',
    "models/a/CMakeLists.txt": "earshot_add_library(lib_a SOURCES a.cc DEPS lib_b)\n",
    "models/b/CMakeLists.txt": "earshot_add_library(lib_b SOURCES b.cc\n  DEPS lib_a) # beside\n",
    "stray/y.cc": "",
}


def self_test():
    """The check finds a wrong include, links beside, a wrong namespace, a cycle and an unplaced
    folder."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for name, text in SELF_TEST_TREE.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        problems, _ = check(root)
    expected = ['base/x.h:1: base (layer 1) -> models/a (layer 2): #include "models/a/a.h"',
                "models/a/CMakeLists.txt:1: models/a (layer 2) -> models/b (layer 2): lib_a links",
                "models/b/CMakeLists.txt:2: models/b (layer 2) -> models/a (layer 2): lib_b links",
                "models/a/a.h:3: namespace earshot::b; models/a/'s code is in earshot::a",
                "a cycle of folders: base -> models/a -> base",
                "a cycle of libraries: lib_a -> lib_b -> lib_a",
                "stray: holds code but is on no layer"]
    missing = [e for e in expected if not any(p.startswith(e) for p in problems)]
    if missing or len(problems) != len(expected):
        raise SystemExit("self-test failed: expected\n  " + "\n  ".join(expected) +
                         "\ngot\n  " + "\n  ".join(problems))


def main():
    self_test()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else __file__).resolve()
    if len(sys.argv) <= 1:
        root = root.parent.parent
    problems, count = check(root)
    for problem in problems:
        print(problem)
    print(f"{count} edges between folders checked against the rule of docs/design.md; "
          f"{len(problems)} not allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
