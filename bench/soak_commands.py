#!/usr/bin/python3
"""Soak of the command sets' D-Bus surface: clients registering, unregistering and disconnecting
on a private bus with the system bus's limit of 512 match rules a connection, while audio flows (a
recording of silence, in real time); GetStats timed every 0.2 s; the resident set at the start
(once ready), its peak, and at the end (once every set is gone and the last compile done).

Each client connects, registers 1 to 20 sets of a few intents (LimitExceeded refusals counted),
unregisters some, closes its connection, waits up to a second, and again, until the time is up.

Checks (exit 1 otherwise): the daemon alive and on the bus at the end, no error but LimitExceeded,
every GetStats answered within 100 ms, no frame dropped (frames = input_frames), no set left, and
the resident set at the end within --rss-slack-mb of the start.

  bench/soak_commands.py [--seconds 600] [--clients 50] [--earshotd build/daemon/earshotd]
                         [--rss-slack-mb 20]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

from gi.repository import Gio, GLib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from daemon_lib import NAME, OBJECT, Lines, connect  # noqa: E402
from daemon_lib import app_call as call  # noqa: E402

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir={tmp}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy>
<limit name="max_match_rules_per_connection">512</limit></busconfig>
"""
LIMITED = "io.earshot.Error.LimitExceeded"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def command_sets(address):
    conn = connect(address)
    try:
        reply = conn.call_sync(NAME, OBJECT, "org.freedesktop.DBus.Properties", "Get",
                               GLib.Variant("(ss)", ("io.earshot.Pipeline1", "CommandSets")),
                               None, Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]
    except GLib.Error:
        return None
    finally:
        conn.close_sync(None)


class Soak:
    def __init__(self, address, seconds):
        self.address = address
        self.stop = time.monotonic() + seconds
        self.counts = {"registered": 0, "refused": 0, "unregistered": 0, "disconnects": 0}
        self.errors = {}
        self.latencies = []
        self.stats = {}
        self.lock = threading.Lock()

    def count(self, key, error=None):
        with self.lock:
            if error is None:
                self.counts[key] += 1
            else:
                self.errors[error] = self.errors.get(error, 0) + 1

    def register(self, conn, name):
        text = (f"set {name}\nslot device = lamp | fan | kitchen light\nintent light\n"
                f"  (turn | switch) (on | off){{state}} [the] {{device}}\n")
        handle, error = call(conn, "RegisterCommands", "(ss)", (name, text), timeout=60)
        error = error and error[0]
        if error == LIMITED:
            self.count("refused")
        else:
            self.count("registered", error)
        return handle[0] if handle else None

    def client(self, k):
        rng = random.Random(k)
        n = 0
        while time.monotonic() < self.stop:
            conn = connect(self.address)
            handles = []
            for _ in range(rng.randint(1, 20)):
                if time.monotonic() >= self.stop:
                    break
                n += 1
                handle = self.register(conn, f"c{k}n{n}")
                if handle:
                    handles.append(handle)
                if handles and rng.random() < 0.3:
                    _, error = call(conn, "UnregisterCommands", "(o)", (handles.pop(0),))
                    self.count("unregistered", error and error[0])
            conn.close_sync(None)
            self.count("disconnects")
            time.sleep(rng.random())

    def probe(self):
        conn = connect(self.address)
        while time.monotonic() < self.stop:
            began = time.monotonic()
            stats, error = call(conn, "GetStats", timeout=10)
            self.latencies.append(time.monotonic() - began if error is None else float("inf"))
            if stats:
                self.stats = stats[0]
            time.sleep(0.2)


def run(args, tmp):
    config = os.path.join(tmp, "bus.conf")
    with open(config, "w") as f:
        f.write(BUS_CONFIG.format(tmp=tmp))
    bus = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork",
                            "--print-address=1"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    address = bus.stdout.readline().strip()
    silence = os.path.join(tmp, "silence.wav")
    subprocess.run(["sox", "-n", "-r", "16000", "-b", "16", "-c", "1", silence, "trim", "0",
                    str(args.seconds + 120)], check=True)
    daemon = subprocess.Popen([args.earshotd, "--bus", "session", "--input", "wav:" + silence],
                              env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address),
                              stderr=subprocess.PIPE, text=True)
    try:
        log = Lines(daemon.stderr)
        if log.expect(lambda line: "ready:" in line) is None:
            print("earshotd did not start")
            return 1
        time.sleep(2)
        start = peak = rss_mb(daemon.pid)
        soak = Soak(address, args.seconds)
        threads = [threading.Thread(target=soak.client, args=(k,)) for k in range(args.clients)]
        threads.append(threading.Thread(target=soak.probe))
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_mb(daemon.pid))
            time.sleep(1)
        sets = None
        for _ in range(30):  # the last compiles, the sets gone
            time.sleep(2)
            sets = command_sets(address)
            if sets == []:
                break
        time.sleep(5)
        end = rss_mb(daemon.pid)
        return report(args, soak, daemon.poll() is None and sets is not None, sets,
                      (start, peak, end))
    finally:
        daemon.terminate()
        daemon.wait(30)
        bus.terminate()


def report(args, soak, on_bus, sets, rss):
    lat = sorted(soak.latencies)
    late = sum(1 for x in lat if x > 0.1)
    s = soak.stats
    print(f"soak {args.seconds:.0f} s, {args.clients} clients: {soak.counts}, "
          f"other errors {soak.errors}")
    print(f"GetStats: {len(lat)} calls, median {1000 * lat[len(lat) // 2]:.1f} ms, "
          f"p99 {1000 * lat[int(len(lat) * 0.99)]:.1f} ms, max {1000 * lat[-1]:.1f} ms, "
          f"over 100 ms: {late}")
    print(f"frames {s.get('frames')} of input_frames {s.get('input_frames')}, queue high water "
          f"{s.get('queue_high_water_frames')} of {s.get('queue_capacity_frames')}")
    print(f"RSS start {rss[0]:.0f} MB, peak {rss[1]:.0f} MB, end {rss[2]:.0f} MB "
          f"({rss[2] - rss[0]:+.0f}); on the bus at the end: {on_bus}; sets left: {sets}")
    # The last GetStats may precede the last frame read by one: frames may trail by a few.
    dropped = (s.get("input_frames") or 0) - (s.get("frames") or 0) > 2
    ok = (on_bus and not soak.errors and late == 0 and not dropped and sets == [] and
          rss[2] - rss[0] <= args.rss_slack_mb)
    print("soak: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--earshotd", default=os.path.join(ROOT, "build", "daemon", "earshotd"))
    parser.add_argument("--rss-slack-mb", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        return run(args, tmp)


if __name__ == "__main__":
    sys.exit(main())
