#!/usr/bin/python3
"""Writes the manual pages, gzipped, from the programs' own texts, so that they cannot drift:
earshot(1) (`earshot --help`, then each command's `--help`), earshotd(8) (`earshotd --help`),
earshot-wyoming(1) and earshot.toml(5) (`earshot run --print-config`: the one options table).
The pages from --help are help2man's; earshot.toml(5) is rendered here from the TOML the way
tools/docs/gen_configuration.py renders docs/configuration.md (its parser).

usage: packaging/gen_manpages.py OUT_DIR EARSHOT EARSHOTD EARSHOT_WYOMING VERSION
"""
import gzip
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tools/docs"))
from gen_configuration import entries  # noqa: E402

COMMANDS = re.compile(r"^  ([a-z]+) {2,}", re.M)  # "  run          run the cascade ..."
SEE_ALSO = {
    "earshot": "earshotd(8), earshot.toml(5), earshot-wyoming(1)",
    "earshotd": "earshot(1), earshot.toml(5), systemd.service(5)",
    "earshot-wyoming": "earshot(1), earshotd(8), earshot.toml(5)",
}


def roff_text(text):
    """Plain text as roff: backslashes escaped, no line read as a request, hyphens as minus signs."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def help2man(program, section, name, version, include=None):
    options = ["--include", include] if include else []
    return subprocess.run(["help2man", "--no-info", "--section", section, "--name", name,
                           "--version-string", version, *options, program],
                          check=True, capture_output=True, text=True).stdout


def command_sections(earshot, version, tmp):
    """Each command's --help as a subsection of COMMANDS: help2man's page of a wrapper that runs
    `earshot COMMAND`, from its description on."""
    top = subprocess.run([earshot, "--help"], check=True, capture_output=True, text=True).stdout
    out = ["[COMMANDS]"]
    for command in COMMANDS.findall(top):
        wrapper = pathlib.Path(tmp) / f"earshot-{command}"
        wrapper.write_text(f'#!/bin/sh\nexec "{earshot}" {command} "$@"\n')
        wrapper.chmod(0o755)
        page = help2man(str(wrapper), "1", command, version)
        body = page.split(".SH DESCRIPTION\n", 1)[1]
        out += [f'.SS "earshot {command}"', body.rstrip("\n")]
    return "\n".join(out) + "\n"


def config_page(earshot, version):
    """earshot.toml(5): every option of `earshot run --print-config`, by section."""
    toml_text = subprocess.run([earshot, "run", "--print-config"], check=True,
                               capture_output=True, text=True).stdout
    out = [f'.TH EARSHOT.TOML 5 "" "earshot {version}" "File Formats"',
           ".SH NAME", "earshot.toml \\- configuration of earshot and earshotd",
           ".SH DESCRIPTION", roff_text(
               "earshot and earshotd read one TOML file (--config FILE; the service's unit gives "
               "/etc/earshot/earshot.toml), then its drop-ins (FILE.d/*.toml, in name order), then "
               "any number of --set SECTION.KEY=VALUE, then check the whole. The installed "
               "/etc/earshot/earshot.toml has every option commented out, so that each version's "
               "defaults apply; local settings belong in a drop-in, e.g. "
               "/etc/earshot/earshot.toml.d/50-local.toml, which upgrades leave alone. Options not "
               "given keep the defaults below; empty model paths mean the bundled models. An "
               "unknown key, a value out of range or lists of other lengths is an error naming the "
               "file and the key."),
           ".SH OPTIONS"]
    for entry in entries(toml_text):
        if len(entry) == 1:
            out.append(f'.SS "{entry[0]}"')
        else:
            key, value, values, meaning = entry
            out += [".TP", f"\\fB{roff_text(key)}\\fR = {roff_text(value)}",
                    roff_text(meaning + (f" ({values})" if values else ""))]
    out += [".SH SEE ALSO", "earshot(1), earshotd(8)"]
    return "\n".join(out) + "\n"


def write_gz(path, text):
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(text.encode())


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    out, earshot, earshotd, wyoming, version = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        see_also = {}
        for program in SEE_ALSO:
            see_also[program] = pathlib.Path(tmp) / f"{program}.h2m"
            see_also[program].write_text(f"[SEE ALSO]\n{SEE_ALSO[program]}\n")
        commands = pathlib.Path(tmp) / "commands.h2m"
        commands.write_text(command_sections(earshot, version, tmp)
                            + see_also["earshot"].read_text())
        pages = {
            "earshot.1": help2man(earshot, "1", "on-device speech pipeline (VAD, wake word, "
                                  "speech-to-text) over recordings", version, str(commands)),
            "earshotd.8": help2man(earshotd, "8", "the earshot speech pipeline as a system service",
                                   version, str(see_also["earshotd"])),
            "earshot-wyoming.1": help2man(wyoming, "1", "the earshot pipeline as a Wyoming "
                                          "protocol server", version, str(see_also["earshot-wyoming"])),
            "earshot.toml.5": config_page(earshot, version),
        }
    for name, text in pages.items():
        write_gz(os.path.join(out, name + ".gz"), text)


if __name__ == "__main__":
    main()
