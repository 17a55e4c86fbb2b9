#!/usr/bin/env python3
"""earshotd --reference pipe:PATH (issue 80): the device's own playback written into a FIFO by a
player, in real time, while the microphone (here a recording played through wav:) hears it 120 ms
later, 3.8 dB louder than the person, who speaks after 5 s of it (the wake word is missed without
the reference: cli_test runs the same kind of scene offline). The wake word is heard over it and
says so (`playback: true`); GetStats names the reference and counts the cancelled frames. The player
stops mid-song: GetStats counts that once and says the playback is over, the log says so, and the
daemon ends at the recording's end with exit 0. A reference that is not a FIFO, or a bad spec, is a
start-up error naming it.

  daemon_reference_test.py EARSHOTD    (under dbus-run-session)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import daemon_lib
from daemon_lib import SAMPLE, TIMEOUT, Lines, NotifySocket, call, check, sox, stop

RATE, CHANNELS = 48000, 2  # the player's own format, converted by the daemon
STOP_AT_S = 7.5            # the player stops here, after the wake word


def scene(tmp):
    """played.raw (what the player sends: the sample reversed and repeated, 48 kHz stereo) and
    mic.wav (the person from 5 s on, and the playback's echo 120 ms late)."""
    played, echo, person, mic = (os.path.join(tmp, n) for n in
                                 ("played.wav", "echo.wav", "person.wav", "mic.wav"))
    sox("-D", SAMPLE, "-r", "16000", played, "reverse", "repeat", "2")
    sox("-D", played, echo, "pad", "0.12", "0")
    sox("-D", SAMPLE, person, "pad", "5", "0")
    sox("-D", "-m", "-v", "0.45", person, "-v", "0.7", echo, mic, "trim", "0", "9.5")
    raw = os.path.join(tmp, "played.raw")
    sox("-D", played, "-r", str(RATE), "-c", str(CHANNELS), "-b", "16", "-e", "signed",
        "-L", "-t", "raw", raw)
    return raw, mic


def player(fifo, raw, stop_at_s, go):
    """Writes `raw` into `fifo` in real time, 20 ms at a time, from `go` until `stop_at_s`; then
    closes."""
    with open(raw, "rb") as f:
        data = f.read()
    chunk = RATE * CHANNELS * 2 // 50
    with open(fifo, "wb", buffering=0) as out:
        go.wait(TIMEOUT)
        start = time.monotonic()
        for k, at in enumerate(range(0, len(data), chunk)):
            if k * 0.02 >= stop_at_s:
                return
            time.sleep(max(0.0, start + k * 0.02 - time.monotonic()))
            out.write(data[at:at + chunk])


def stat(text, name):
    """The integer `name` of GetStats' busctl output `text`, or -1."""
    found = re.search(r'"%s" [xtib] (-?\d+)' % name, text)
    return int(found.group(1)) if found else -1


def test_playback(earshotd, tmp):
    raw, mic = scene(tmp)
    # The player starts when the daemon starts the recording (its log says so), as if the two
    # were one device: the recording's echo then comes 120 ms after its reference, less the log's
    # latency (the canceller finds any delay of 0-300 ms, the pairing's 50 ms included).
    fifo = os.path.join(tmp, "playback")
    os.mkfifo(fifo)
    go = threading.Event()
    threading.Thread(target=player, args=(fifo, raw, STOP_AT_S, go), daemon=True).start()
    notify = NotifySocket(tmp)
    env = dict(os.environ, NOTIFY_SOCKET=notify.path)
    daemon = subprocess.Popen([earshotd, "--bus", "session", "--input", "wav:" + mic, "--events",
                               "-", "--reference", f"pipe:{fifo}:{RATE}:{CHANNELS}"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    events, log = Lines(daemon.stdout, json.loads), Lines(daemon.stderr)
    try:
        check("the recording started", log.expect(lambda l: "playing" in l) or
              any("playing" in l for l in log.seen), str(log.seen))
        go.set()
        started = time.monotonic()
        ready = None
        deadline = time.monotonic() + TIMEOUT
        while ready is None and time.monotonic() < deadline:
            text = notify.datagrams.get(timeout=TIMEOUT)
            ready = text if "READY=1" in text.split("\n") else None
        check("READY=1", ready is not None)
        # Logged before the recording starts: among the lines read up to "playing".
        check("the reference logged",
              any(f"reference: pipe:{fifo} (48000 Hz, 2 channels" in l for l in log.seen),
              str(log.seen))
        wake = events.expect(lambda e: e.get("event") == "wake")
        check("the wake word heard over the playback", wake is not None and 5.5 < wake["t"] < 6.8,
              str(wake))
        check("the wake says it came during playback", wake is not None and
              wake.get("playback") is True, str(wake))
        answer = call("GetStats")
        during = answer.stdout
        check("GetStats names the reference", "48000 Hz, 2 channels" in during,
              during + answer.stderr)
        check("GetStats: frames cancelled", stat(during, "echo_frames") > 100, during)
        check("GetStats: playing", '"playback" b true' in during, during)
        # The player stops at 7.5 s; the recording goes on to 9.5 s.
        time.sleep(max(0.0, STOP_AT_S + 0.8 - (time.monotonic() - started)))
        after = call("GetStats").stdout
        check("the player's stop counted once", stat(after, "reference_gaps") == 1, after)
        check("and the microphone passes", '"playback" b false' in after, after)
        check("the stop logged", log.expect(lambda l: "playback: stopped" in l) or
              any("playback: stopped" in l for l in log.seen), str(log.seen[-5:]))
        check("the daemon ends at the recording's end, exit 0", daemon.wait(timeout=TIMEOUT) == 0)
    finally:
        stop(daemon)
        notify.close()


def test_bad_references(earshotd, tmp):
    regular = os.path.join(tmp, "regular")
    with open(regular, "w") as f:
        f.write("x")
    for spec, named in ((f"pipe:{regular}", "not a FIFO"), ("pipe:", "expected pipe:PATH"),
                        (f"pipe:{tmp}/p:1", "rate 1 Hz"), ("alsa:x", "expected pipe:PATH")):
        done = subprocess.run([earshotd, "--bus", "none", "--input", "wav:" + SAMPLE,
                               "--reference", spec], capture_output=True, text=True,
                              timeout=TIMEOUT)
        check(f"--reference {spec}: refused", done.returncode in (1, 2), str(done.returncode))
        check(f"--reference {spec}: named", named in done.stderr, done.stderr)


def main():
    earshotd = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        test_playback(earshotd, tmp)
        test_bad_references(earshotd, tmp)
    print(f"daemon_reference_test: {daemon_lib.passed} passed, {daemon_lib.failed} failed")
    return 1 if daemon_lib.failed else 0


if __name__ == "__main__":
    sys.exit(main())
