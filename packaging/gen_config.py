#!/usr/bin/python3
"""Writes the installed config (/etc/earshot/earshot.toml): `earshot run --print-config` with every
option commented out, so that it documents each one (meaning, range, unit, default) without
freezing the defaults: a later version's defaults reach a system whose admin never set them.
Local changes go in drop-ins (earshot.toml.d/*.toml), which a package upgrade leaves alone.

usage: packaging/gen_config.py EARSHOT OUT_FILE
"""
import re
import subprocess
import sys

HEADER = """\
# earshot's configuration (earshot.toml(5)): every option, commented out at its default, so that
# the defaults of the installed version apply. Set an option in a drop-in, a file of its own in
# earshot.toml.d/ beside this one (NAME.toml, read after this file in name order; an upgrade
# leaves it alone), under its [section], e.g. earshot.toml.d/50-local.toml:
#   [kws]
#   sensitivities = [0.6]
# or uncomment it here. `earshotd --config FILE --print-config` prints the result.
"""
OPTION = re.compile(r"^([a-z_]+ = )", re.M)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    earshot, out = sys.argv[1:]
    text = subprocess.run([earshot, "run", "--print-config"], check=True, capture_output=True,
                          text=True).stdout
    body = text[text.index("\n["):]  # from the first section on, after --print-config's title
    with open(out, "w") as f:
        f.write(HEADER + OPTION.sub(r"#\1", body))


if __name__ == "__main__":
    main()
