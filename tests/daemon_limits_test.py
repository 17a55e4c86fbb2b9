#!/usr/bin/python3
"""earshotd's limits on command sets (issue 78), on a private bus that allows each connection 40
match rules (the system bus: 512), its audio a recording of silence played in real time:

- a set name of 100 KB, or of 65 bytes, is refused (BadCommandSet), the message short; a 900 KB
  template (300k words) is refused before it compiles, naming its line;
- one connection's 12 registrations sent at once compile together (a few loads, not 12), and its
  13th is refused with LimitExceeded (daemon.command_sets_per_client=12);
- 5 connections x 12 sets (60 sets: one match rule each took the daemon off such a bus) are all
  registered, the daemon stays on the bus and answers GetStats; the 63rd set in all is refused with
  LimitExceeded (daemon.command_sets_max=62);
- when the bus goes away, earshotd exits with status 1 (systemd's Restart= then brings it back),
  instead of running on, off the bus;
- SIGTERM while a large set (within the limits: 5,000 templates, 20,000 words) compiles: earshotd
  exits with status 0 within 2 s, without waiting for the compile (it joined its loader);
- the owner of such a set leaves while it compiles: the compile is cancelled, the set never
  compiled, and another client's set registered next.

Usage: daemon_limits_test.py EARSHOTD
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from gi.repository import Gio, GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import (NAME, OBJECT, PATH_IFACE, TIMEOUT, Lines, check, connect,  # noqa: E402
                        stop)
from daemon_lib import app_call as call  # noqa: E402
import daemon_lib  # noqa: E402

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={tmp}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="max_match_rules_per_connection">40</limit>
</busconfig>
"""
LIMITED = "io.earshot.Error.LimitExceeded"
BAD = "io.earshot.Error.BadCommandSet"


def lights(name):
    return f"set {name}\nintent light\n  (turn | switch) (on | off){{state}} [the] lamp\n"


def register_at_once(conn, names):
    """RegisterCommands for each name, all sent before any reply; the replies by name."""
    replies = {}
    loop = GLib.MainLoop()

    def done(source, result, name):
        try:
            replies[name] = (source.call_finish(result).unpack(), None)
        except GLib.Error as e:
            replies[name] = (None, (Gio.DBusError.get_remote_error(e), e.message))
        if len(replies) == len(names):
            loop.quit()
    for name in names:
        conn.call(NAME, OBJECT, PATH_IFACE, "RegisterCommands",
                  GLib.Variant("(ss)", (name, lights(name))), None, Gio.DBusCallFlags.NONE,
                  int(TIMEOUT * 1000), None, done, name)
    GLib.timeout_add(int(TIMEOUT * 1000), loop.quit)
    loop.run()
    return replies


def logged(log):
    """Every line the daemon has logged so far."""
    time.sleep(0.5)  # the log's last lines on their way
    while not log.queue.empty():
        line = log.queue.get_nowait()
        if line is None:
            log.queue.put(None)
            break
        log.seen.append(line)
    return log.seen


def loads(log):
    """The loads the daemon has logged so far."""
    return sum(1 for line in logged(log) if "models loaded" in line)


def refusals(address):
    """Long names and a template too big are refused before anything compiles."""
    app = connect(address)
    for name, why in (("n" * 100000, "over 64 bytes"), ("n" * 65, "over 64 bytes")):
        _, error = call(app, "RegisterCommands", "(ss)", (name, "intent a\n  yes\n"))
        check(f"a {len(name)}-byte name: BadCommandSet", error and error[0] == BAD and
              why in error[1] and len(error[1]) < 300, str(error)[:300])
    huge = "intent a\n " + " on" * 300000 + "\n"
    began = time.monotonic()
    _, error = call(app, "RegisterCommands", "(ss)", ("huge", huge), timeout=60)
    check("a 900 KB template: BadCommandSet naming its line", error and error[0] == BAD and
          "RegisterCommands huge:2: over 20000 words" in error[1], str(error)[:300])
    print(f"the 900 KB template refused in {time.monotonic() - began:.2f} s", flush=True)
    app.close_sync(None)


def one_connection(address, log):
    """12 registrations at once: compiled together; the 13th over the connection's cap."""
    app = connect(address)
    before = loads(log)
    replies = register_at_once(app, [f"one{i}" for i in range(12)])
    check("12 registrations at once: all registered",
          len(replies) == 12 and all(e is None for _, e in replies.values()), str(replies)[:500])
    compiles = loads(log) - before
    print(f"12 registrations at once: {compiles} loads", flush=True)
    check("12 registrations at once compile together", 1 <= compiles <= 4, str(compiles))
    _, error = call(app, "RegisterCommands", "(ss)", ("one12", lights("one12")))
    check("the 13th of a connection: LimitExceeded", error and error[0] == LIMITED, str(error))
    app.close_sync(None)


def many_connections(address):
    """5 connections x 12 sets on a bus of 40 match rules per connection."""
    apps = [connect(address) for _ in range(5)]
    errors = []

    def register(k):
        for i in range(12):
            _, error = call(apps[k], "RegisterCommands", "(ss)", (f"a{k}x{i}", lights(f"a{k}x{i}")))
            if error:
                errors.append(error)
    threads = [threading.Thread(target=register, args=(k,)) for k in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("5 connections x 12 sets registered", not errors, str(errors[:3]))
    probe = connect(address)
    stats, error = call(probe, "GetStats", timeout=10)
    check("the daemon is on the bus and answers GetStats", error is None, str(error))
    sets, error = call(probe, "RegisterCommands", "(ss)", ("x1", lights("x1")))
    check("the 61st set is registered", error is None, str(error))
    _, error = call(probe, "RegisterCommands", "(ss)", ("x2", lights("x2")))
    check("the 62nd set is registered", error is None, str(error))
    _, error = call(probe, "RegisterCommands", "(ss)", ("x3", lights("x3")))
    check("the 63rd set in all: LimitExceeded", error and error[0] == LIMITED, str(error))
    return apps + [probe]


DICTIONARY = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"


def large_set(name):
    """A set as large as a set may be: 5,000 templates of 4 dictionary words (20,000 words)."""
    words = []
    with open(DICTIONARY) as f:
        for line in f:
            word = line.split(" ", 1)[0]
            if word.isalpha() and word.islower() and len(word) > 3:
                words.append(word)
            if len(words) == 20000:
                break
    lines = [f"set {name}", "intent big"]
    lines += ["  " + " ".join(words[i:i + 4]) for i in range(0, len(words), 4)]
    return "\n".join(lines) + "\n"


def start_daemon(earshotd, address, silence, *sets):
    daemon = subprocess.Popen([earshotd, "--bus", "session", "--input", "wav:" + silence,
                               *[a for s in sets for a in ("--set", s)]],
                              env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address),
                              stderr=subprocess.PIPE, text=True)
    return daemon, Lines(daemon.stderr)


def compile_large(address, log, name):
    """A new connection registers a large set (not waiting for the reply); returned once the set's
    compile has begun."""
    app = connect(address)
    app.call(NAME, OBJECT, PATH_IFACE, "RegisterCommands",
             GLib.Variant("(ss)", (name, large_set(name))), None, Gio.DBusCallFlags.NONE,
             int(TIMEOUT * 1000), None, None, None)
    check(f"the large set {name} compiles",
          log.expect(lambda l: f"command set {name} registered" in l) is not None)
    time.sleep(0.2)  # the loader at work
    return app


def sigterm_during_compile(earshotd, address, silence):
    """SIGTERM once a large set's compile has begun: served at once, status 0."""
    daemon, log = start_daemon(earshotd, address, silence)
    try:
        check("earshotd ready (again)", log.expect(lambda l: "ready:" in l) is not None)
        app = compile_large(address, log, "big")
        began = time.monotonic()
        daemon.send_signal(signal.SIGTERM)
        try:
            status = daemon.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            status = None
        took = time.monotonic() - began
        print(f"SIGTERM during a large compile: status {status} in {took:.2f} s", flush=True)
        check("SIGTERM during a compile: status 0", status == 0, str(status))
        check("SIGTERM during a compile: served within 2 s", took < 2.0, f"{took:.2f} s")
        app.close_sync(None)
    finally:
        stop(daemon)


def owner_leaves_during_compile(earshotd, address, silence):
    """The owner of a large set leaves while it compiles: the compile is cancelled, and another
    client's set is compiled next (the large compile's own time, in the same run, beside it)."""
    daemon, log = start_daemon(earshotd, address, silence)
    try:
        check("earshotd ready (owner leaves)", log.expect(lambda l: "ready:" in l) is not None)
        whole = connect(address)
        began = time.monotonic()
        handle, error = call(whole, "RegisterCommands", "(ss)", ("whole", large_set("whole")))
        compile_s = time.monotonic() - began
        check("a large set compiles", error is None, str(error))
        _, error = call(whole, "UnregisterCommands", "(o)", handle)
        check("and is unregistered", error is None, str(error))
        # The load without it ends before the next set registers (else that set waits for it,
        # and its owner leaving drops a set that never began to compile).
        check("the load without it", log.expect(lambda l: "command set whole unregistered" in l)
              is not None and log.expect(lambda l: "models loaded" in l) is not None)
        compile_large(address, log, "big").close_sync(None)
        check("its owner left: the compile is cancelled",
              log.expect(lambda l: "command set big: its compile cancelled" in l) is not None)
        other = connect(address)
        began = time.monotonic()
        _, error = call(other, "RegisterCommands", "(ss)", ("small", lights("small")))
        small_s = time.monotonic() - began
        check("another client's set is registered", error is None, str(error))
        print(f"a small set registered {small_s:.2f} s after the large set's owner left; the "
              f"large set's compile: {compile_s:.2f} s", flush=True)
        compiled = [l for l in logged(log) if "command set big compiled" in l]
        check("the large set was never compiled", not compiled, str(compiled))
        other.close_sync(None)
        whole.close_sync(None)
    finally:
        stop(daemon)


def main(argv):
    earshotd = argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "bus.conf")
        with open(config, "w") as f:
            f.write(BUS_CONFIG.format(tmp=tmp))
        bus = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork",
                                "--print-address=1"], stdout=subprocess.PIPE, text=True)
        address = bus.stdout.readline().strip()
        silence = os.path.join(tmp, "silence.wav")
        subprocess.run(["sox", "-n", "-r", "16000", "-b", "16", "-c", "1", silence, "trim", "0",
                        "600"], check=True)
        try:  # the bus goes with the test, whatever ends it (its pipe would hold CTest)
            sigterm_during_compile(earshotd, address, silence)
            owner_leaves_during_compile(earshotd, address, silence)
        except BaseException:
            stop(bus)
            raise
        daemon, log = start_daemon(earshotd, address, silence,
                                   "daemon.command_sets_per_client=12",
                                   "daemon.command_sets_max=62")
        try:
            check("earshotd ready", log.expect(lambda l: "ready:" in l) is not None)
            refusals(address)
            one_connection(address, log)
            apps = many_connections(address)
            bus.send_signal(signal.SIGTERM)  # the bus goes away
            bus.wait(TIMEOUT)
            try:
                status = daemon.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                status = None
            check("earshotd exits with status 1 when the bus goes", status == 1, str(status))
            check("and says why", log.expect(lambda l: re.search("bus closed the connection", l),
                                             timeout=5) is not None)
            del apps
        finally:
            stop(daemon)
            stop(bus)
            if daemon_lib.failed:
                print("\n".join(log.seen[-30:]))
    print(f"daemon_limits_test: {daemon_lib.passed} passed, {daemon_lib.failed} failed")
    return 1 if daemon_lib.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
