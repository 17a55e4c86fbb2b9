#!/usr/bin/python3
"""Every event earshot prints against docs/events.schema.json: the committed goldens
(tests/golden/*.jsonl), then `earshot run`'s output on the goldens' recordings and on runs that
give the other kinds of event (a transcript, commands, profiles, a governor error, two keywords). Fails on
an event the schema does not describe (a field renamed, added or missing, a wrong type), on t
going backwards within a file's stream, and when some kind of event in the schema was never seen.

usage: tests/events_schema_test.py EARSHOT [GOLDEN_DIR]
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import jsonschema

SRC = pathlib.Path(__file__).resolve().parent.parent
SCHEMA = json.loads((SRC / "docs/events.schema.json").read_text())


def check_lines(name, text, validator, seen):
    """Validates each line of one run's output; returns the number of errors printed."""
    errors, last_t = 0, 0.0
    for n, line in enumerate(text.splitlines(), 1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            print(f"FAIL {name}:{n}: not JSON ({e}): {line}")
            errors += 1
            continue
        problems = sorted(validator.iter_errors(event), key=lambda e: e.path)
        if problems:
            # oneOf reports every branch: name the one of the event's own kind.
            kind = event.get("event")
            own = {"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{kind}"}
            detail = [e.message for e in jsonschema.Draft202012Validator(own).iter_errors(event)] \
                if kind in SCHEMA["$defs"] else [problems[0].message]
            print(f"FAIL {name}:{n}: {line}\n  " + "\n  ".join(detail))
            errors += 1
            continue
        seen.add(event["event"])
        if event["event"] == "audio":
            last_t = 0.0  # each file of `earshot run` is a stream of its own, from 0
        if event["t"] < last_t:
            print(f"FAIL {name}:{n}: t {event['t']} before {last_t}")
            errors += 1
        last_t = event["t"]
    return errors


def run(earshot, args, cwd):
    p = subprocess.run([earshot, "run", *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL earshot run {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    earshot = os.path.realpath(sys.argv[1])
    golden = pathlib.Path(sys.argv[2] if len(sys.argv) == 3 else SRC / "tests/golden")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    seen, passed, failed = set(), 0, 0
    for path in sorted(golden.glob("*.jsonl")):
        ok = check_lines(path.name, path.read_text(), validator, seen) == 0
        passed, failed = passed + ok, failed + (not ok)

    tmp = tempfile.mkdtemp()
    try:
        d = pathlib.Path(tmp)
        # The goldens' recordings, made as tests/cli_test.sh makes them.
        shutil.copy(SRC / "tools/samples/computer_request.flac", d / "sample.flac")
        sh = ("sox sample.flac -p pad 0 2 | sox - sample.flac two.flac && "
              "sox -R -n -r 16000 -b 16 noise.wav synth 3 pinknoise vol 0.05 : synth 1 sine 1000 vol 0.3")
        subprocess.run(sh, shell=True, cwd=d, check=True)
        (d / "day.txt").write_text("# t battery_percent charging temp_c\n0 50 0 40\n2 15 0 -\n")
        zone = d / "sys/class/thermal/thermal_zone0"
        zone.mkdir(parents=True)
        (zone / "temp").write_text("hot\n")
        small = str(SRC / "models/kws/computer_small.eshm")
        # A command set that says the sample's request, and one that does not: a command, and a
        # rejected one.
        (d / "chores.commands").write_text(
            "slot thing = ironing things:ironing | dishes\nintent away\n"
            "  she's going to put the {thing} away\n")
        (d / "lights.commands").write_text("intent light\n  (turn | switch) (on | off){state}\n")
        cases = {
            "run sample.flac": ["--stages", "vad,kws", "sample.flac"],
            "run two.flac": ["--stages", "vad,kws", "two.flac"],
            "run noise.wav": ["--stages", "vad,kws", "noise.wav"],
            "run all stages": ["sample.flac"],
            "run --sensors": ["--sensors", "day.txt", "--set", "governor.min_dwell_ms=1000",
                              "--set", "governor.poll_ms=100", "sample.flac"],
            "run --sysfs-root (garbage zone)": ["--stages", "vad,kws", "--sysfs-root", "sys",
                                                "sample.flac"],
            "run command sets": ["--set", "stt.commands=chores.commands", "sample.flac"],
            "run command sets (rejected)": ["--set", "stt.commands=lights.commands", "sample.flac"],
            "run two keywords": ["--stages", "vad,kws", "--set", f"kws.models=computer,{small}",
                                 "--set", "kws.names=,small", "sample.flac", "two.flac"],
        }
        for name, args in cases.items():
            ok = check_lines(name, run(earshot, args, d), validator, seen) == 0
            passed, failed = passed + ok, failed + (not ok)
    finally:
        shutil.rmtree(tmp)

    # "muted" is a state only the daemon reaches; every kind of event must have been checked.
    missing = set(SCHEMA["properties"]["event"]["enum"]) - seen
    if missing:
        print(f"FAIL no event of kind {', '.join(sorted(missing))} was checked")
        failed += 1
    print(f"kinds checked: {' '.join(sorted(seen))}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
