#!/usr/bin/env python3
"""Integration tests of earshotd, each against the real daemon, bus, socket and ALSA library.

  daemon_test.py bus EARSHOTD          under dbus-run-session: signals, properties, methods, errors
  daemon_test.py notify EARSHOTD       sd_notify: READY=1, STATUS=, WATCHDOG=1, STOPPING=1, exit 0
  daemon_test.py alsa EARSHOTD UNPLUG  ALSA file plugin on a known recording; an overrun; unplug
                                       and replug

Nothing waits by sleeping: every wait is for a line, a message or a datagram, with a deadline
(EARSHOT_TEST_TIMEOUT seconds, 120 by default) after which the check fails.
"""
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(SRC, "tools", "samples", "computer_request.flac")
TIMEOUT = float(os.environ.get("EARSHOT_TEST_TIMEOUT", "120"))
NAME = PATH_IFACE = "io.earshot.Pipeline1"
OBJECT = "/io/earshot/Pipeline1"
DEBIAN_HMM = "/usr/share/pocketsphinx/model/en-us/en-us"  # what an empty stt.acoustic_model means
passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}" + (f" ({detail})" if detail else ""), flush=True)
    return condition


class Lines:
    """Reads a stream's lines on a thread; expect() waits for one that matches, with a deadline."""

    def __init__(self, stream, parse=lambda line: line):
        self.queue = queue.Queue()
        self.seen = []
        self.parse = parse
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            try:
                self.queue.put(self.parse(line.rstrip("\n")))
            except ValueError:
                continue
        self.queue.put(None)

    def expect(self, predicate, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                item = self.queue.get(timeout=remaining)
            except queue.Empty:
                return None
            if item is None:
                self.queue.put(None)  # end of stream: keep answering None
                return None
            self.seen.append(item)
            if predicate(item):
                return item


def sox(*args):
    subprocess.run(["sox", *args], check=True)


GAP_S = 12
SECOND_REQUEST_FRAME = 100 + 455 + GAP_S * 100  # 1 s, the 4.55 s request, the gap


def two_requests(tmp):
    """The bundled request twice, GAP_S apart: the gap is the time the client has to mute (the
    daemon plays it in real time; Mute applies from the audio captured after the call)."""
    req, s1, gap = (os.path.join(tmp, n) for n in ("req.wav", "s1.wav", "gap.wav"))
    sox(SAMPLE, "-r", "16000", "-c", "1", "-b", "16", req)
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", s1, "trim", "0", "1")
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", str(GAP_S))
    out = os.path.join(tmp, "two_requests.wav")
    sox(s1, req, gap, req, s1, out)
    return out


def busctl(*args):
    return subprocess.run(["busctl", "--user", *args], capture_output=True, text=True, timeout=TIMEOUT)


def call(method, *args):
    return busctl("call", NAME, OBJECT, PATH_IFACE, method, *args)


def is_signal(member, *data):
    def match(m):
        if m.get("type") != "signal" or m.get("interface") != PATH_IFACE or m.get("member") != member:
            return False
        return all(m["payload"]["data"][i] == d for i, d in enumerate(data))
    return match


def dump_threads(pid):
    """Where a daemon that stopped answering is, when gdb is there to say."""
    try:
        out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 25"],
                             capture_output=True, text=True, timeout=60).stdout
        print("\n".join(l for l in out.splitlines() if l.startswith(("#", "Thread"))))
    except (OSError, subprocess.TimeoutExpired):
        pass


def stop(process):
    if process.poll() is None:
        process.kill()
        process.wait()


# ---------------------------------------------------------------------------------------------
def test_bus(earshotd, tmp):
    """Methods and errors against a daemon hearing silence; then, against a fresh one, the
    requests, so that the time the client has to mute does not depend on how long the first
    part took on a loaded machine."""
    silence, recording = os.path.join(tmp, "silence.wav"), two_requests(tmp)
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "600")
    config = os.path.join(tmp, "earshot.toml")
    with open(config, "w") as f:
        subprocess.run([earshotd, "--print-config"], stdout=f, check=True)
    monitor = subprocess.Popen(["busctl", "--user", "monitor", NAME, "--json=short"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = Lines(monitor.stderr).expect(lambda l: "Monitoring" in l)
    check("monitor ready", ready is not None)
    bus = Lines(monitor.stdout, json.loads)
    daemon = None
    try:
        daemon, events, log = start_bus_daemon(earshotd, config, silence)
        bus_methods(bus, events, log, config)
        daemon.send_signal(signal.SIGTERM)
        check("methods' daemon: exit 0 on SIGTERM", daemon.wait(timeout=TIMEOUT) == 0)
        check("methods' daemon: its name released (else the next one could not take it)",
              bus.expect(lambda m: m.get("member") == "NameLost" and
                         m["payload"]["data"] == [NAME]))
        started_usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        daemon, events, log = start_bus_daemon(earshotd, config, recording)
        bus_requests(bus, started_usec)
        check("daemon exits 0 at the end of the recording", daemon.wait(timeout=TIMEOUT) == 0)
        # A call after the exit is a marker: the monitor sees every earlier message before it.
        call("GetStats")
        bus.expect(lambda m: m.get("type") == "method_call" and m.get("member") == "GetStats")
        mute = next(i for i, m in enumerate(bus.seen) if m.get("member") == "Mute" and
                    m["payload"]["type"] == "")  # the accepted call, not the one with an argument
        after_mute = bus.seen[mute:]
        heard = [m["member"] for m in after_mute if m.get("type") == "signal" and
                 m.get("member") in ("SpeechStarted", "WakeWord", "Transcript")]
        check("Mute silences the second request", heard == [], str(heard))
    finally:
        if daemon:
            stop(daemon)
        stop(monitor)


def start_bus_daemon(earshotd, config, recording):
    """earshotd on the session bus playing recording; (process, its events, its log lines)."""
    daemon = subprocess.Popen([earshotd, "--config", config, "--bus", "session", "--input",
                               "wav:" + recording, "--events", "-"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return daemon, Lines(daemon.stdout, json.loads), Lines(daemon.stderr)


def bus_methods(bus, events, log, config):
    check("startup ProfileChanged", bus.expect(is_signal("ProfileChanged", "performance")))
    check_interface_xml()
    check("SetProfile saver", call("SetProfile", "s", "saver").returncode == 0)
    check("ProfileChanged saver", bus.expect(is_signal("ProfileChanged", "saver", "manual")))
    check("PropertiesChanged Profile", bus.expect(
        lambda m: m.get("member") == "PropertiesChanged" and
        m["payload"]["data"][1].get("Profile", {}).get("data") == "saver"))
    got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "Profile")
    check("Profile property is saver", got.stdout.strip() == 's "saver"', got.stdout)
    bad = call("SetProfile", "s", "loud")
    check("SetProfile loud refused", bad.returncode != 0 and "unknown profile" in bad.stderr,
          bad.stderr)
    check("SetProfile loud: InvalidArgs", bus.expect(
        lambda m: m.get("type") == "error" and
        m.get("error_name") == "org.freedesktop.DBus.Error.InvalidArgs"))
    check("SetProfile wrong type refused", call("SetProfile", "i", "3").returncode != 0)
    check("Mute with an argument refused", call("Mute", "s", "x").returncode != 0)
    check("unknown method refused", call("Frobnicate").returncode != 0)
    second = subprocess.run([os.environ["EARSHOTD"], "--bus", "session", "--input",
                             "wav:" + SAMPLE], capture_output=True, text=True, timeout=TIMEOUT)
    check("a second daemon: exit 1", second.returncode == 1, str(second.returncode))
    check("a second daemon: says the name is taken",
          "cannot publish io.earshot.Pipeline1 on the session bus: File exists" in second.stderr,
          second.stderr)
    stats = call("GetStats")
    check("GetStats after bad calls", stats.returncode == 0 and "queue_high_water_frames" in
          stats.stdout, stats.stderr)
    # Back to the governor (no battery here: performance), whose models are kws.models'.
    check("SetProfile auto", call("SetProfile", "s", "auto").returncode == 0)
    check("ProfileChanged auto", bus.expect(is_signal("ProfileChanged", "performance")))
    with open(config) as f:
        good = f.read()
    with open(config, "w") as f:
        f.write(good.replace("models = ['computer']", "models = ['/nonexistent/kws.eshm']"))
    check("Reload with a missing model", call("Reload").returncode == 0)
    error = events.expect(lambda e: e.get("event") == "error" and e.get("stage") == "reload")
    check("missing model: error event naming it", error and "/nonexistent/kws.eshm" in
          error["message"], str(error))
    # pocketsphinx ends the process after a fatal error in its own code (here: a filterbank it
    # cannot build); the load on the loader thread must fail with it, and the daemon go on.
    broken = os.path.join(os.path.dirname(config), "broken_hmm")
    shutil.copytree(DEBIAN_HMM, broken)
    with open(os.path.join(broken, "feat.params"), "a") as f:
        f.write("-lowerf 9000\n")
    with open(config, "w") as f:
        f.write(re.sub(r"(\[stt\][^\[]*?\n)acoustic_model = ''",
                       lambda m: m.group(1) + f"acoustic_model = '{broken}'", good))
    check("Reload with a broken acoustic model", call("Reload").returncode == 0)
    error = events.expect(lambda e: e.get("event") == "error" and e.get("stage") == "reload")
    check("broken acoustic model: error event with pocketsphinx's fatal error", error and
          "Failed to create filterbank" in error["message"], str(error))
    with open(config, "w") as f:
        f.write(good)
    check("Reload with the good config", call("Reload").returncode == 0)
    check("models reloaded", log.expect(lambda l: "models reloaded" in l))


def interface_members(xml_text):
    """{(kind, name): signature} of io.earshot.Pipeline1 in an introspection document."""
    root = ET.fromstring(xml_text)
    iface = next(i for i in root.iter("interface") if i.get("name") == PATH_IFACE)
    members = {}
    for node in iface:
        if node.tag == "property":
            members[("property", node.get("name"))] = node.get("type")
        elif node.tag in ("method", "signal"):
            members[(node.tag, node.get("name"))] = ",".join(
                f"{a.get('direction', 'out')}:{a.get('type')}" for a in node.iter("arg"))
    return members


def check_interface_xml():
    got = busctl("introspect", "--xml-interface", NAME, OBJECT)
    with open(os.path.join(SRC, "config", "io.earshot.Pipeline1.xml")) as f:
        shipped = interface_members(f.read())
    live = interface_members(got.stdout) if got.returncode == 0 else {}
    check("config/io.earshot.Pipeline1.xml is the live interface", shipped == live,
          f"{sorted(set(shipped.items()) ^ set(live.items()))}")


def check_stats():
    got = call("GetStats")
    stats = dict(re.findall(r'"([a-z_]+)" [a-z] ("[^"]*"|\S+)', got.stdout))
    print("GetStats after the first request:", got.stdout.strip(), flush=True)
    check("stats: one wake, one request", stats.get("wakes") == "1" and
          stats.get("requests") == "1", str(stats))
    check("stats: STT ran", int(stats.get("stt_frames", "0")) > 0, str(stats))
    check("stats: queue high-water mark within capacity",
          0 < int(stats.get("queue_high_water_frames", "0")) <=
          int(stats.get("queue_capacity_frames", "0")), str(stats))


def bus_requests(bus, started_usec):
    order = ["SpeechStarted", "WakeWord", "Transcript", "SpeechEnded"]
    for member in order:
        if member == "Transcript":
            got = bus.expect(lambda m: is_signal("Transcript")(m) and m["payload"]["data"][1])
        else:
            got = bus.expect(is_signal(member))
        if not check(f"first request: {member} in order", got):
            return
        if member == "WakeWord":
            keyword, score, usec = got["payload"]["data"]
            now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
            check("WakeWord computer", keyword == "computer" and 0 < score <= 1, str(got))
            check("WakeWord monotonic time", started_usec < usec <= now, f"{usec} vs {now}")
        if member == "Transcript":
            check("final transcript has words", got["payload"]["data"][0].strip() != "")
    check_stats()
    check("Mute", call("Mute").returncode == 0)
    # The test means something only if the call came before the second request was captured.
    captured = re.search(r'"input_frames" x (\d+)', call("GetStats").stdout)
    check("Mute came before the second request (else the machine is too slow for this test)",
          captured and int(captured.group(1)) < SECOND_REQUEST_FRAME, str(captured))
    check("StateChanged muted", bus.expect(is_signal("StateChanged", "muted")))
    got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "Muted")
    check("Muted property", got.stdout.strip() == "b true", got.stdout)


# ---------------------------------------------------------------------------------------------
def test_notify(earshotd, tmp):
    silence = os.path.join(tmp, "silence.wav")
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "600")
    path = os.path.join(tmp, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    # Read datagrams as they come, as systemd does: a full socket would block the daemon's sends.
    datagrams = queue.Queue()

    def read_socket():
        while True:
            try:
                datagrams.put(sock.recv(4096).decode())
            except OSError:
                return
    threading.Thread(target=read_socket, daemon=True).start()
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
    daemon = subprocess.Popen([earshotd, "--bus", "none", "--input", "wav:" + silence], env=env,
                              stderr=subprocess.PIPE, text=True)
    log = Lines(daemon.stderr)
    messages = []

    def receive(predicate):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                text = datagrams.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            messages.append(text)
            if predicate(text):
                return text
    try:
        ready = receive(lambda t: "READY=1" in t.split("\n"))
        check("READY=1", ready is not None, str(messages))
        check("nothing but status before READY=1",
              all("WATCHDOG=1" not in m and "STOPPING=1" not in m for m in messages[:-1]))
        # The input logs "playing" before READY=1 is sent (Manager::Run): it must be there.
        check("input started before READY=1", log.expect(lambda l: "playing" in l))
        check("STATUS in words", receive(lambda t: "STATUS=idle: listening" in t))
        pings = [receive(lambda t: "WATCHDOG=1" in t) for _ in range(4)]
        check("WATCHDOG=1 keeps arriving", all(pings), str(messages[-6:]))
        daemon.send_signal(signal.SIGHUP)
        if not check("SIGHUP reloads", log.expect(lambda l: "models reloaded" in l), str(log.seen)):
            dump_threads(daemon.pid)
        while not datagrams.empty():
            messages.append(datagrams.get())
        pings = [receive(lambda t: "WATCHDOG=1" in t) for _ in range(3)]
        check("WATCHDOG=1 after the reload", all(pings))
        daemon.send_signal(signal.SIGTERM)
        check("STOPPING=1 on SIGTERM", receive(lambda t: "STOPPING=1" in t))
        check("exit 0 on SIGTERM", daemon.wait(timeout=TIMEOUT) == 0)
    finally:
        stop(daemon)
        sock.close()


# ---------------------------------------------------------------------------------------------
def alsa_config(tmp, sox_format=("-r", "16000", "-c", "1", "-e", "signed", "-b", "16")):
    """A capture PCM that reads a known recording: ALSA's file plugin over its null plugin."""
    raw = os.path.join(tmp, "request.raw")
    sox(SAMPLE, "-t", "raw", *sox_format, raw)
    conf = os.path.join(tmp, "asound.conf")
    with open(conf, "w") as f:
        f.write('pcm.earshot_test {\n  type file\n  slave.pcm { type null }\n'
                f'  file "/dev/null"\n  infile "{raw}"\n  format "raw"\n}}\n')
    return conf


def expect_request(events, what):
    for name, predicate in (("wake", lambda e: e.get("event") == "wake"),
                            ("final transcript", lambda e: e.get("event") == "transcript" and
                             e.get("final")),
                            ("speech_end", lambda e: e.get("event") == "speech_end")):
        if not check(f"{what}: {name}", events.expect(predicate)):
            return


def test_alsa_formats(earshotd, tmp, unplug_library):
    """Devices that offer only 32-bit or float samples, several channels, 48 or 44.1 kHz."""
    for fmt, channels, rate, encoding in (("S32", 2, 48000, "signed"),
                                          ("FLOAT", 6, 44100, "floating-point")):
        conf = alsa_config(tmp, ("-r", str(rate), "-c", str(channels), "-e", encoding, "-b", "32"))
        env = dict(os.environ, ALSA_CONFIG_PATH=conf, LD_PRELOAD=unplug_library,
                   EARSHOT_TEST_DEVICE_FORMAT=fmt, EARSHOT_TEST_DEVICE_CHANNELS=str(channels),
                   EARSHOT_TEST_DEVICE_RATE=str(rate),
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        daemon = subprocess.Popen([earshotd, "--bus", "none", "--input", "alsa:earshot_test",
                                   "--events", "-"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        events, log = Lines(daemon.stdout, json.loads), Lines(daemon.stderr)
        what = f"{rate} Hz, {channels} channels, {fmt}"
        try:
            check(f"device opened as {what}", log.expect(lambda l: what in l), str(log.seen))
            expect_request(events, what)
            daemon.send_signal(signal.SIGTERM)
            check(f"{what}: exit 0", daemon.wait(timeout=TIMEOUT) == 0)
        finally:
            stop(daemon)


def test_alsa(earshotd, tmp, unplug_library):
    test_alsa_formats(earshotd, tmp, unplug_library)
    unplugged, xrun = os.path.join(tmp, "unplugged"), os.path.join(tmp, "xrun")
    env = dict(os.environ, ALSA_CONFIG_PATH=alsa_config(tmp), LD_PRELOAD=unplug_library,
               EARSHOT_TEST_UNPLUGGED=unplugged, EARSHOT_TEST_XRUN=xrun,
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
    daemon = subprocess.Popen([earshotd, "--bus", "session", "--input", "alsa:earshot_test",
                               "--events", "-"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    events, log = Lines(daemon.stdout, json.loads), Lines(daemon.stderr)
    try:
        check("capture opened", log.expect(lambda l: "capturing from earshot_test" in l))
        expect_request(events, "ALSA capture")
        open(xrun, "w").close()
        check("overrun recovered", log.expect(lambda l: "overrun recovered (1 so far)" in l))
        got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "Xruns")
        check("Xruns property counts it", got.stdout.strip() == "t 1", got.stdout + got.stderr)
        open(unplugged, "w").close()
        check("device loss noticed", log.expect(lambda l: "No such device; reopening" in l))
        check("retries with back-off", log.expect(lambda l: "next try in" in l))
        stats = call("GetStats")
        check("serves D-Bus while the device is gone", stats.returncode == 0 and
              '"capturing" b false' in stats.stdout, stats.stdout + stats.stderr)
        os.unlink(unplugged)
        check("device reopened", log.expect(lambda l: "capture reopened" in l))
        stats = call("GetStats")
        check("GetStats counts the reopen", '"reopens" t 1' in stats.stdout, stats.stdout)
        # SIGTERM in the middle of a request: the request still ends with its final transcript.
        check("after the replug: wake", events.expect(lambda e: e.get("event") == "wake"))
        check("after the replug: a partial transcript", events.expect(
            lambda e: e.get("event") == "transcript" and not e.get("final") and e.get("text")))
        daemon.send_signal(signal.SIGTERM)
        check("SIGTERM: the request's final transcript", events.expect(
            lambda e: e.get("event") == "transcript" and e.get("final")))
        check("SIGTERM: speech_end", events.expect(lambda e: e.get("event") == "speech_end"),
              str(events.seen[-6:]))
        check("SIGTERM: exit 0", daemon.wait(timeout=TIMEOUT) == 0)
    finally:
        stop(daemon)
    bad = subprocess.run([earshotd, "--bus", "none", "--input", "alsa:no_such_pcm"], env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    check("missing device: exit 1", bad.returncode == 1, str(bad.returncode))
    check("missing device: named", "ALSA device no_such_pcm: cannot open" in bad.stderr, bad.stderr)


def main():
    mode, earshotd = sys.argv[1], os.path.abspath(sys.argv[2])
    os.environ["EARSHOTD"] = earshotd
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "bus":
            test_bus(earshotd, tmp)
        elif mode == "notify":
            test_notify(earshotd, tmp)
        elif mode == "alsa":
            test_alsa(earshotd, tmp, os.path.abspath(sys.argv[3]))
        else:
            sys.exit(f"unknown mode {mode}")
    print(f"daemon_test {mode}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
