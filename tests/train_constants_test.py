#!/usr/bin/python3
"""The constants the Python trainers share with the device's C++ are the same numbers: the verified
confidence's run weight (tools/train/kws_constants.py RUN_WEIGHT, ConfidenceTerms' run_weight in
models/pocketsphinx/keyphrase_verifier.h, the terms of a model without kws_verify_run).

Usage: train_constants_test.py SOURCE_DIR
"""
import os
import re
import sys


def cpp_default(path, struct, field):
    """The default of `field` in `struct`'s definition in the header at `path`."""
    with open(path) as f:
        text = f.read()
    body = re.search(r"struct " + struct + r" \{(.*?)\n\};", text, re.S)
    if not body:
        sys.exit(f"{path}: no struct {struct}")
    value = re.search(r"\b" + field + r" = ([-0-9.e]+);", body.group(1))
    if not value:
        sys.exit(f"{path}: {struct} has no default for {field}")
    return float(value.group(1))


def main(source):
    sys.path.insert(0, os.path.join(source, "tools", "train"))
    import kws_constants
    header = os.path.join(source, "models", "pocketsphinx", "keyphrase_verifier.h")
    cpp = cpp_default(header, "ConfidenceTerms", "run_weight")
    if cpp != kws_constants.RUN_WEIGHT:
        print(f"FAIL: run weight: {header} says {cpp}, kws_constants.py {kws_constants.RUN_WEIGHT}")
        return 1
    print(f"ok: run weight {cpp} in both")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
