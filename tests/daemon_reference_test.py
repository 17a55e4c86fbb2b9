#!/usr/bin/env python3
"""earshotd --reference (issue 80): the device's own playback, in real time, while the microphone
(here a recording played through wav:) hears it 120 ms later, 3.8 dB louder than the person, who
speaks after 5 s of it (the wake word is missed without the reference: cli_test runs the same kind
of scene offline). pipe:PATH: a player writes it into a FIFO; alsa:DEVICE: ALSA's file plugin
delivers it as a loopback capture would. The wake word is heard over it and says so
(`playback: true`); GetStats names the reference and counts the cancelled frames. The playback
stops mid-song (the player closes; the device goes silent): GetStats says the playback is over
(a gap counted once for the player), the log says so, and the daemon ends at the recording's end
with exit 0. A reference that is not a FIFO, an ALSA device that does not exist, or a bad spec is
a start-up error naming it.

  daemon_reference_test.py EARSHOTD UNPLUG    (under dbus-run-session; UNPLUG: alsa_unplug.so)
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


def scene(tmp, length_s=9.5):
    """played.raw (what the player sends: the sample reversed and repeated, 48 kHz stereo) and
    mic.wav (the person from 5 s on, and the playback's echo 120 ms late)."""
    played, echo, person, mic = (os.path.join(tmp, n) for n in
                                 ("played.wav", "echo.wav", "person.wav", "mic.wav"))
    sox("-D", SAMPLE, "-r", "16000", played, "reverse", "repeat", "2")
    sox("-D", played, echo, "pad", "0.12", "0")
    sox("-D", SAMPLE, person, "pad", "5", "0")
    sox("-D", "-m", "-v", "0.45", person, "-v", "0.7", echo, mic, "trim", "0", str(length_s))
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


def start_daemon(earshotd, tmp, mic, reference, env=None):
    """earshotd on the recording `mic` with --reference `reference`, its events on stdout; waits
    for the recording to start. Returns the daemon, its events, its log and its notify socket."""
    notify = NotifySocket(tmp)
    env = dict(env or os.environ, NOTIFY_SOCKET=notify.path)
    daemon = subprocess.Popen([earshotd, "--bus", "session", "--input", "wav:" + mic, "--events",
                               "-", "--reference", reference], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    events, log = Lines(daemon.stdout, json.loads), Lines(daemon.stderr)
    check("the recording started", log.expect(lambda l: "playing" in l) or
          any("playing" in l for l in log.seen), str(log.seen))
    return daemon, events, log, notify


def expect_wake_over_playback(daemon, events, log, notify, described):
    """READY=1, the reference logged as `described`, the wake word heard during playback, and
    GetStats saying so."""
    ready = None
    deadline = time.monotonic() + TIMEOUT
    while ready is None and time.monotonic() < deadline:
        text = notify.datagrams.get(timeout=TIMEOUT)
        ready = text if "READY=1" in text.split("\n") else None
    check("READY=1", ready is not None)
    # Logged before the recording starts: among the lines read up to "playing".
    check("the reference logged", any(f"reference: {described}" in l for l in log.seen),
          str(log.seen))
    wake = events.expect(lambda e: e.get("event") == "wake")
    check("the wake word heard over the playback", wake is not None and 5.5 < wake["t"] < 6.8,
          str(wake))
    check("the wake says it came during playback", wake is not None and
          wake.get("playback") is True, str(wake))
    answer = call("GetStats")
    during = answer.stdout
    check("GetStats names the reference", described in during, during + answer.stderr)
    check("GetStats: frames cancelled", stat(during, "echo_frames") > 100, during)
    check("GetStats: playing", '"playback" b true' in during, during)


def expect_stop(daemon, log, started, gaps):
    """The playback stopped at STOP_AT_S while the recording goes on to 9.5 s: GetStats says so
    and counts `gaps` gaps, the log says so, and the daemon ends at the recording's end."""
    time.sleep(max(0.0, STOP_AT_S + 0.8 - (time.monotonic() - started)))
    after = call("GetStats").stdout
    check(f"the stop counted as {gaps} gaps", stat(after, "reference_gaps") == gaps, after)
    check("and the microphone passes", '"playback" b false' in after, after)
    check("the stop logged", log.expect(lambda l: "playback: stopped" in l) or
          any("playback: stopped" in l for l in log.seen), str(log.seen[-5:]))
    check("the daemon ends at the recording's end, exit 0", daemon.wait(timeout=TIMEOUT) == 0)


def test_pipe(earshotd, tmp):
    raw, mic = scene(tmp)
    # The player starts when the daemon starts the recording (its log says so), as if the two
    # were one device: the recording's echo then comes 120 ms after its reference, less the log's
    # latency (the canceller finds any delay of 0-300 ms, the pairing's 50 ms included).
    fifo = os.path.join(tmp, "playback")
    os.mkfifo(fifo)
    go = threading.Event()
    threading.Thread(target=player, args=(fifo, raw, STOP_AT_S, go), daemon=True).start()
    daemon, events, log, notify = start_daemon(earshotd, tmp, mic,
                                               f"pipe:{fifo}:{RATE}:{CHANNELS}")
    try:
        go.set()
        started = time.monotonic()
        expect_wake_over_playback(daemon, events, log, notify,
                                  f"pipe:{fifo} (48000 Hz, 2 channels")
        # The player stops: a gap, counted once.
        expect_stop(daemon, log, started, gaps=1)
    finally:
        stop(daemon)
        notify.close()


def test_alsa(earshotd, tmp, unplug_library):
    """alsa:DEVICE: ALSA's file plugin reads the playback as a capture PCM would deliver it, in
    real time from the daemon's start, which is before the recording's: the echo is that much
    later than 120 ms behind its reference, within the canceller's 300 ms. After the wake the
    device is unplugged (alsa_unplug, preloaded: the reference's PCM is the only one): the
    microphone passes, the gap is counted once, the device is reopened once it is back, and the
    daemon ends at the recording's end."""
    played, mic = scene(tmp, length_s=12)
    raw = os.path.join(tmp, "played16k.raw")
    sox("-D", "-t", "raw", "-r", str(RATE), "-c", str(CHANNELS), "-b", "16", "-e", "signed", "-L",
        played, "-r", "16000", "-c", "1", "-t", "raw", raw)
    conf = os.path.join(tmp, "asound.conf")
    with open(conf, "w") as f:
        f.write('pcm.earshot_playback {\n  type file\n  slave.pcm { type null }\n'
                f'  file "/dev/null"\n  infile "{raw}"\n  format "raw"\n}}\n')
    unplugged = os.path.join(tmp, "unplugged")
    env = dict(os.environ, ALSA_CONFIG_PATH=conf, LD_PRELOAD=unplug_library,
               EARSHOT_TEST_UNPLUGGED=unplugged,
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
    daemon, events, log, notify = start_daemon(earshotd, tmp, mic, "alsa:earshot_playback", env)
    try:
        expect_wake_over_playback(daemon, events, log, notify, "alsa:earshot_playback (")
        open(unplugged, "w").close()
        check("the lost reference logged",
              log.expect(lambda l: "reference ALSA device earshot_playback" in l and
                         "reopening" in l), str(log.seen[-5:]))
        check("and the playback stopped", log.expect(lambda l: "playback: stopped" in l),
              str(log.seen[-5:]))
        lost = call("GetStats").stdout
        check("the loss counted once", stat(lost, "reference_gaps") == 1, lost)
        check("the microphone passes", '"playback" b false' in lost, lost)
        os.unlink(unplugged)
        check("the reference reopened", log.expect(lambda l: "reference reopened" in l),
              str(log.seen[-5:]))
        check("and cancelled again", log.expect(lambda l: "playback: cancelling" in l),
              str(log.seen[-5:]))
        check("the daemon ends at the recording's end, exit 0", daemon.wait(timeout=TIMEOUT) == 0)
    finally:
        stop(daemon)
        notify.close()


def test_bad_references(earshotd, tmp):
    regular = os.path.join(tmp, "regular")
    with open(regular, "w") as f:
        f.write("x")
    for spec, named in ((f"pipe:{regular}", "not a FIFO"), ("pipe:", "expected pipe:PATH"),
                        (f"pipe:{tmp}/p:1", "rate 1 Hz"), ("wav:x", "expected pipe:PATH"),
                        ("alsa:no_such_pcm", "alsa:no_such_pcm")):
        done = subprocess.run([earshotd, "--bus", "none", "--input", "wav:" + SAMPLE,
                               "--reference", spec], capture_output=True, text=True,
                              timeout=TIMEOUT)
        check(f"--reference {spec}: refused", done.returncode in (1, 2), str(done.returncode))
        check(f"--reference {spec}: named", named in done.stderr, done.stderr)


def main():
    earshotd, unplug = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        for name, test in (("pipe", test_pipe), ("alsa", lambda e, t: test_alsa(e, t, unplug)),
                           ("bad", test_bad_references)):
            os.mkdir(os.path.join(tmp, name))
            test(earshotd, os.path.join(tmp, name))
    print(f"daemon_reference_test: {daemon_lib.passed} passed, {daemon_lib.failed} failed")
    return 1 if daemon_lib.failed else 0


if __name__ == "__main__":
    sys.exit(main())
