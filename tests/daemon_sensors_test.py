#!/usr/bin/env python3
"""Sensors that do not answer (issue 48, 3): a FIFO and a regular file whose read never returns
(tests/stuck_read.c, preloaded: a hung EC or I2C sensor) under --sysfs-root hold neither
`earshot run`, nor earshotd's start-up, D-Bus, `--bus none` work or SIGTERM. Each stuck attribute
is reported once and read as unknown; the others are still read, poll after poll.

  daemon_sensors_test.py EARSHOTD EARSHOT STUCK_READ_LIBRARY    (under dbus-run-session)

Before the sensor reads left the loop's thread, earshot run and earshotd --bus none ran into
their timeouts, and the daemon never sent READY=1 nor acted on SIGTERM.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import time

import daemon_lib
from daemon_lib import (NAME, OBJECT, PATH_IFACE, SAMPLE, TIMEOUT, Lines, NotifySocket, busctl,
                        call, check, sox, stop)

STOP_S = 1.0  # SIGTERM to STOPPING=1


def sysfs_tree(tmp):
    """A battery at 15% discharging (saver), zone0 a FIFO, zone1 stuck (90 C if it were read:
    critical), zone2 45 C. Returns the root and the stuck file's path."""
    root = os.path.join(tmp, "sys")
    bat = os.path.join(root, "class", "power_supply", "BAT0")
    os.makedirs(bat)
    for name, text in (("capacity", "15\n"), ("status", "Discharging\n")):
        with open(os.path.join(bat, name), "w") as f:
            f.write(text)
    zones = [os.path.join(root, "class", "thermal", f"thermal_zone{i}") for i in range(3)]
    for zone in zones:
        os.makedirs(zone)
    os.mkfifo(os.path.join(zones[0], "temp"))
    for zone, text in ((zones[1], "90000\n"), (zones[2], "45000\n")):
        with open(os.path.join(zone, "temp"), "w") as f:
            f.write(text)
    return root, os.path.realpath(os.path.join(zones[1], "temp"))


def run(command, env):
    """The command's exit status and output; None for the status when it ran past TIMEOUT."""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", e.stderr or ""


def events_of(stdout):
    events = []
    for line in (stdout.decode() if isinstance(stdout, bytes) else stdout).splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    return events


def check_offline(what, status, events):
    check(f"{what}: exit 0 (not stuck)", status == 0, str(status))
    check(f"{what}: saver from the battery", any(
        e.get("event") == "profile" and e.get("profile") == "saver" for e in events))
    errors = [e.get("message", "") for e in events if e.get("event") == "error"]
    check(f"{what}: the FIFO reported", any("thermal_zone0/temp" in m and "not a regular file" in m
                                            for m in errors), str(errors))
    stuck = [m for m in errors if "thermal_zone1/temp" in m]
    check(f"{what}: the stuck attribute reported once", len(stuck) == 1 and
          "did not answer" in stuck[0], str(errors))
    check(f"{what}: the request served", any(
        e.get("event") == "transcript" and e.get("final") for e in events))


def test_daemon(earshotd, tmp, env, root):
    """On the session bus, polled every 100 ms: ready, answering, polling on, SIGTERM at once."""
    silence = os.path.join(tmp, "silence.wav")
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "600")
    config = os.path.join(tmp, "often.toml")
    with open(config, "w") as f:
        f.write("[governor]\npoll_ms = 100\nmin_dwell_ms = 0\n")
    notify = NotifySocket(tmp)
    path, datagrams = notify.path, notify.datagrams
    daemon = subprocess.Popen([earshotd, "--config", config, "--bus", "session", "--sysfs-root",
                               root, "--input", "wav:" + silence],
                              env=dict(env, NOTIFY_SOCKET=path), stderr=subprocess.PIPE, text=True)
    log = Lines(daemon.stderr)
    try:
        ready = None
        deadline = time.monotonic() + TIMEOUT
        while ready is None and time.monotonic() < deadline:
            try:
                text = datagrams.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if "READY=1" in text.split("\n"):
                ready = text
        # Before: no READY=1, and a bus call waited for a loop that never turned.
        if check("daemon: READY=1", ready is not None):
            stats = call("GetStats")
            check("daemon: GetStats answers", stats.returncode == 0 and '"frames"' in stats.stdout,
                  stats.stdout + stats.stderr)
            got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "BatteryPercent")
            check("daemon: BatteryPercent 15", got.stdout.strip() == "i 15",
                  got.stdout + got.stderr)
            got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "TemperatureMilliCelsius")
            check("daemon: the zone read, not the stuck one", got.stdout.strip() == "i 45000",
                  got.stdout + got.stderr)
            # The polls go on past the stuck attribute: a charge the battery gains is seen.
            with open(os.path.join(root, "class", "power_supply", "BAT0", "capacity"), "w") as f:
                f.write("50\n")
            seen = None
            deadline = time.monotonic() + TIMEOUT
            while seen != "i 50" and time.monotonic() < deadline:
                got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "BatteryPercent")
                seen = got.stdout.strip()
            check("daemon: later polls read the battery", seen == "i 50", str(seen))
            stats = call("GetStats")
            check("daemon: GetStats still answers", stats.returncode == 0, stats.stderr)
        sent = time.monotonic()
        daemon.send_signal(signal.SIGTERM)
        stopping = None
        while stopping is None and time.monotonic() < sent + TIMEOUT:
            try:
                text = datagrams.get(timeout=max(0.0, sent + TIMEOUT - time.monotonic()))
            except queue.Empty:
                break
            if "STOPPING=1" in text.split("\n"):
                stopping = time.monotonic() - sent
        try:
            status = daemon.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            status = None
        print(f"daemon: SIGTERM to STOPPING=1 {stopping or -1:.3f} s, "
              f"to exit {time.monotonic() - sent:.2f} s")
        check(f"daemon: SIGTERM acted on within {STOP_S} s (STOPPING=1)",
              stopping is not None and stopping < STOP_S, str(stopping))
        check("daemon: exit 0 on SIGTERM", status == 0, str(status))
    finally:
        stop(daemon)
        notify.close()
    log.expect(lambda l: False, timeout=5)  # the rest of the log, to its end
    stuck = [l for l in log.seen if "thermal_zone1/temp" in l]
    check("daemon: the stuck attribute logged once",
          len(stuck) == 1 and "did not answer" in stuck[0], str(stuck))


def main():
    earshotd, earshot, library = (os.path.abspath(a) for a in sys.argv[1:4])
    with tempfile.TemporaryDirectory() as tmp:
        root, stuck = sysfs_tree(tmp)
        env = dict(os.environ, LD_PRELOAD=library, EARSHOT_TEST_STUCK_FILE=stuck,
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        status, out, err = run([earshot, "run", "--sysfs-root", root, SAMPLE], env)
        check_offline("earshot run", status, events_of(out))
        status, out, err = run([earshotd, "--bus", "none", "--events", "-", "--sysfs-root", root,
                                "--input", "wav:" + SAMPLE], env)
        check_offline("earshotd --bus none", status, events_of(out))
        test_daemon(earshotd, tmp, env, root)
    print(f"daemon_sensors_test: {daemon_lib.passed} passed, {daemon_lib.failed} failed")
    sys.exit(1 if daemon_lib.failed else 0)


if __name__ == "__main__":
    main()
