#!/usr/bin/python3
"""Checks that every file the documentation names exists in the clone: the targets of Markdown
links and images (relative to the page), and the paths in code spans and code blocks that start
at a top-level entry of the repository (`models/kws/computer.eshm`, `tools/eval/vad_eval.sh`;
a glob must match something) or in ../shared, where that is present. Build outputs (build*/,
out/), absolute system paths, placeholders and bare file names are not checked.

usage: tools/docs/check_links.py [FILE.md...]   (default: README.md, docs/**/*.md)
Prints each missing target as FILE:LINE: PATH, then "N passed, N failed" (one per page).
"""
import glob
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SHARED = ROOT.parent / "shared"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`]+)`")
SPLIT = re.compile(r"[\s=:,;()'\"<>|\[\]{}]+")
OUTPUT = re.compile(r"(--out|--small-out|--log|--vectors|-o|>)\s+\S+")  # files a command writes
BRACES = re.compile(r"(\S*)\{([^{}]*,[^{}]*)\}(\S*)")
TOP = {p.name for p in ROOT.iterdir() if not p.name.startswith("build")} - {"out", ".git"}


def exists(path):
    return any(glob.glob(str(path))) if any(c in str(path) for c in "*?") else path.exists()


def repo_paths(text):
    """The tokens of a code span or block that name a path in the repository or ../shared."""
    text = OUTPUT.sub(" ", text)
    text = BRACES.sub(lambda m: " ".join(m[1] + x + m[3] for x in m[2].split(",")), text)
    for token in SPLIT.split(text):
        token = token.rstrip(".")
        if "/" not in token or "$" in token or "..." in token or re.search(r"\b[A-Z]{3,}\b", token):
            continue
        if token.startswith("../shared/"):
            if SHARED.is_dir():
                yield token, ROOT.parent / token[3:]
        elif token.split("/")[0] in TOP:
            yield token, ROOT / token


def check(page):
    missing, in_block = [], False
    for n, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        found = []
        if in_block:
            found += list(repo_paths(line))
        else:
            for target in LINK.findall(line):
                if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
                    found.append((target, page.parent / target.split("#")[0]))
            for span in CODE_SPAN.findall(line):
                found += list(repo_paths(span))
        missing += [f"{page.relative_to(ROOT)}:{n}: {name}" for name, path in found if not exists(path)]
        check.count += len(found)
    return missing


check.count = 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    pages = [pathlib.Path(p).resolve() for p in sys.argv[1:]] or \
        [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    failed = 0
    for page in pages:
        missing = check(page)
        for m in missing:
            print(f"FAIL {m}: no such file in the clone")
        failed += bool(missing)
    print(f"{check.count} references in {len(pages)} pages")
    print(f"{len(pages) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
