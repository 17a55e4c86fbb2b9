"""Issue 49's D-Bus half (daemon_test.py commands): request ids, command sets registered by apps,
Command and Error signals, typed errors, push-to-talk and cancel, the request audio pipe.

The daemon reads its audio from standard input (wav:-), which the test writes only when it is
ready for it: a set registered, a request started. Nothing depends on how fast the machine is,
so the test runs under the sanitizers too. Apps are GDBus connections of their own (python3-gi):
a set lives as long as the connection that registered it, so busctl (a connection per call)
could not hold one. Signals are read from `busctl monitor`.
"""
import fcntl
import json
import os
import struct
import subprocess
import threading
import time

from gi.repository import Gio, GLib

from daemon_bus import check_interface_xml
from daemon_lib import (NAME, OBJECT, PATH_IFACE, SAMPLE, TIMEOUT, Lines, check, connect,
                        is_signal, stop)
from daemon_lib import app_call as call

# A set around the words the bundled request says ("she's going to put the ironing things away").
CHORES = """set chores
slot thing = ironing things:ironing | dishes | toys
intent away
  she's going to put the {thing} away
intent stop
  stop [now]
"""
LIGHTS = """set lights
slot device = kitchen light | bedroom lamp | fan
intent light
  (turn | switch) (on | off){state} [the] {device}
"""
WAKE_END_S = 1.05  # where "computer" ends in the bundled request (its wake event's t)


def pcm(path, *effects):
    """A sound file as 16 kHz 16-bit mono samples, raw."""
    return subprocess.run(["sox", path, "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16",
                           "-c", "1", "-", *effects], capture_output=True, check=True).stdout


def silence(seconds):
    return bytes(2 * int(16000 * seconds))


def wav_header():
    """A WAV header whose data runs on (the stream ends when the test closes the pipe)."""
    fmt = struct.pack("<HHIIHH", 1, 1, 16000, 32000, 2, 16)
    return (b"RIFF" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + b"fmt " +
            struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", 0xFFFFFFFF))


class Audio:
    """The daemon's standard input, and what was written on it after the header (the stream)."""

    def __init__(self, stream):
        self.stream, self.written = stream, bytearray()

    def write(self, data):
        self.stream.write(data)
        self.written += data

    def flush(self):
        self.stream.flush()


def get_property(conn, name):
    reply = conn.call_sync(NAME, OBJECT, "org.freedesktop.DBus.Properties", "Get",
                           GLib.Variant("(ss)", (PATH_IFACE, name)), None, Gio.DBusCallFlags.NONE,
                           int(TIMEOUT * 1000), None)
    return reply.unpack()[0]


def data(m):
    return m["payload"]["data"]


def test_commands(earshotd, tmp):
    config = os.path.join(tmp, "earshot.toml")
    with open(config, "w") as f:
        subprocess.run([earshotd, "--print-config"], stdout=f, check=True)
    monitor = subprocess.Popen(["busctl", "--user", "monitor", NAME, "--json=short"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check("monitor ready", Lines(monitor.stderr).expect(lambda l: "Monitoring" in l) is not None)
    bus = Lines(monitor.stdout, json.loads)
    daemon = subprocess.Popen([earshotd, "--config", config, "--bus", "session", "--input",
                               "wav:-", "--events", "-"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)
    events = Lines((line.decode() for line in daemon.stdout), json.loads)
    log = Lines(line.decode() for line in daemon.stderr)
    try:
        daemon.stdin.write(wav_header())
        audio = Audio(daemon.stdin)
        audio.write(silence(0.5))
        audio.flush()
        check("startup ProfileChanged", bus.expect(is_signal("ProfileChanged", "performance")))
        check_interface_xml()
        app = connect()
        register(app, bus)
        requests(app, bus, events, audio)
        request_audio(app, bus, audio)
        errors(app, bus, config)
        daemon.stdin.close()
        check("daemon exits 0 at the end of its input", daemon.wait(timeout=TIMEOUT) == 0)
        app.close_sync(None)
    finally:
        stop(daemon)
        stop(monitor)
        if daemon.returncode not in (0, None):
            print("\n".join(log.seen[-30:]))


def register(app, bus):
    """RegisterCommands: a set compiled and its handle; refusals typed, naming line and word;
    a second connection's set gone with it."""
    began = time.monotonic()
    got, error = call(app, "RegisterCommands", "(ss)", ("chores", CHORES))
    print(f"RegisterCommands answered in {time.monotonic() - began:.2f} s (compiled)", flush=True)
    check("RegisterCommands chores", error is None and
          got[0].startswith("/io/earshot/Pipeline1/commands/"), str(error or got))
    cases = [("bad", "set bad\nintent x\n  say (this\n", "io.earshot.Error.BadCommandSet",
              ["RegisterCommands bad:3:", "'('"]),
             ("unknown", "set unknown\nintent x\n  put the toys --\n",
              "io.earshot.Error.BadCommandSet", ["RegisterCommands unknown:3:", "'--'"]),
             ("chores", CHORES, "io.earshot.Error.NameTaken", ["'chores'"])]
    for name, text, want, words in cases:
        got, error = call(app, "RegisterCommands", "(ss)", (name, text))
        check(f"RegisterCommands {name}: {want}", error and error[0] == want, str(error or got))
        check(f"RegisterCommands {name}: the error names {words}",
              error and all(w in error[1] for w in words), str(error))
    other = connect()
    lights, error = call(other, "RegisterCommands", "(ss)", ("lights", LIGHTS))
    check("a second app registers lights", error is None, str(error))
    sets = get_property(app, "CommandSets")
    check("CommandSets: both", sets == ["chores", "lights"], str(sets))
    if lights:
        _, error = call(app, "UnregisterCommands", "(o)", lights)
        check("UnregisterCommands of another app's set: NotOwner",
              error and error[0] == "io.earshot.Error.NotOwner", str(error))
    other.close_sync(None)
    check("the second app's set is gone with its connection", bus.expect(
        lambda m: m.get("member") == "PropertiesChanged" and
        data(m)[1].get("CommandSets", {}).get("data") == ["chores"]))
    if lights:
        _, error = call(app, "UnregisterCommands", "(o)", lights)
        check("UnregisterCommands of a set gone: NotFound",
              error and error[0] == "io.earshot.Error.NotFound", str(error))


def command_of(request):
    return lambda m: is_signal("Command")(m) and data(m)[5] == request


def final_of(request):
    return lambda m: is_signal("Transcript")(m) and data(m)[1] and data(m)[3] == request


def requests(app, bus, events, audio):
    """A wake word's command; push-to-talk's; a rejected one; CancelRequest and Mute."""
    request = pcm(SAMPLE)
    command_only = pcm(SAMPLE, "trim", str(WAKE_END_S))
    keyword_only = pcm(SAMPLE, "trim", "0", str(WAKE_END_S))
    audio.write(request + silence(1.5))
    audio.flush()
    wake = bus.expect(is_signal("WakeWord", "computer"))
    check("WakeWord", wake is not None)
    first = data(wake)[3] if wake else 0
    check("WakeWord: request 1", first == 1, str(wake))
    final = bus.expect(final_of(first))
    check("Transcript: the wake word's request", final and data(final)[0] ==
          "she's going to put the ironing things away" and not data(final)[4], str(final))
    got = bus.expect(command_of(first))
    check("Command: the set, intent and slots of the wake word's request", got and data(got)[:5] == [
        "chores", "away", {"thing": "ironing"}, "she's going to put the ironing things away", 1.0],
        str(got))
    check("command event", events.expect(lambda e: e["event"] == "command" and
                                         e["request"] == first and e["intent"] == "away"))

    started, error = call(app, "StartRequest")
    check("StartRequest: the next id", error is None and started[0] == first + 1,
          str(error or started))
    audio.write(command_only + silence(1.5))
    audio.flush()
    second = first + 1
    got = bus.expect(command_of(second))
    check("StartRequest without a wake word: Command", got and data(got)[:3] == [
        "chores", "away", {"thing": "ironing"}], str(got))

    started, error = call(app, "StartRequest")
    third = started[0] if started else 0
    audio.write(keyword_only + silence(1.5))
    audio.flush()
    got = bus.expect(command_of(third))
    check("no command said: Command rejected (set and intent empty)",
          got and data(got)[:3] == ["", "", {}], str(got))
    check("command event rejected", events.expect(
        lambda e: e["event"] == "command" and e["request"] == third and e.get("rejected")))

    for how in ("CancelRequest", "Mute"):
        started, error = call(app, "StartRequest")
        request_id = started[0] if started else 0
        audio.write(command_only[:32000])  # a second of the command, then the end of it
        audio.flush()
        _, error = call(app, how)
        check(f"{how} in a request", error is None, str(error))
        audio.write(command_only[32000:] + silence(1.5))
        audio.flush()
        final = bus.expect(final_of(request_id))
        check(f"{how}: the request's final Transcript says cancelled",
              final and data(final)[0] == "" and data(final)[4] is True, str(final))
        check(f"{how}: the cancelled transcript event", events.expect(
            lambda e: e["event"] == "transcript" and e["request"] == request_id and
            e.get("cancelled")))
        if how == "Mute":
            call(app, "Unmute")
        # A request after it: its Command comes, and none came for the cancelled one.
        start = len(bus.seen)
        started, error = call(app, "StartRequest")
        audio.write(command_only + silence(1.5))
        audio.flush()
        check(f"after {how}: the next request's Command",
              started and bus.expect(command_of(started[0])), str(error or started))
        cancelled = [m for m in bus.seen[start:] if command_of(request_id)(m)]
        check(f"{how}: no Command for the cancelled request", cancelled == [], str(cancelled))
    check("the request over", bus.expect(
        lambda m: is_signal("StateChanged")(m) and data(m)[0] != "command"))
    _, error = call(app, "CancelRequest")
    check("CancelRequest without a request: NoRequest",
          error and error[0] == "io.earshot.Error.NoRequest", str(error))
    call(app, "Mute")
    _, error = call(app, "StartRequest")
    check("StartRequest muted: Muted", error and error[0] == "io.earshot.Error.Muted", str(error))
    call(app, "Unmute")


def errors(app, bus, config):
    """The Error signal carries the error event; Reload's typed error."""
    with open(config) as f:
        good = f.read()
    with open(config, "w") as f:
        f.write(good.replace("models = ['computer']\n", "models = ['/nonexistent/kws.eshm']\n"))
    _, error = call(app, "Reload")
    check("Reload with a missing model", error is None, str(error))
    got = bus.expect(is_signal("Error", "reload"))
    check("Error signal: stage and message", got and "/nonexistent/kws.eshm" in data(got)[1],
          str(got))
    with open(config, "w") as f:
        f.write("[kws\n")
    _, error = call(app, "Reload")
    check("Reload of a config that does not parse: BadConfig",
          error and error[0] == "io.earshot.Error.BadConfig", str(error))
    with open(config, "w") as f:
        f.write(good)


class PipeReader:
    """Reads a request-audio pipe on a thread, as an app would."""

    def __init__(self, fd):
        self.fd, self.data, self.lock = fd, bytearray(), threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return
            with self.lock:
                self.data += chunk

    def frames(self):
        """[(kind, request, sample, payload)] of the whole frames read so far."""
        with self.lock:
            data = bytes(self.data)
        frames, i = [], 0
        while i + 24 <= len(data):
            kind, size, request, sample = struct.unpack_from("<IIQq", data, i)
            if i + 24 + size > len(data):
                break
            frames.append((kind, request, sample, data[i + 24:i + 24 + size]))
            i += 24 + size
        return frames


def open_request_audio(conn):
    reply, fds = conn.call_with_unix_fd_list_sync(
        NAME, OBJECT, PATH_IFACE, "OpenRequestAudio", None, GLib.VariantType("(h)"),
        Gio.DBusCallFlags.NONE, int(TIMEOUT * 1000), None, None)
    return fds.get(reply.unpack()[0])


def request_audio(app, bus, audio):
    """OpenRequestAudio: each request's samples exactly, framed; an app that never reads its
    pipe holds nothing back (its frames are dropped, counted)."""
    # The daemon reads wav:- faster than real time: the reader's pipe gets room for a whole
    # request (F_SETPIPE_SZ, as an app that wants slack may do), the other keeps its 64 KiB.
    fd = open_request_audio(app)
    fcntl.fcntl(fd, 1031, 1 << 20)  # F_SETPIPE_SZ
    reader = PipeReader(fd)
    unread = open_request_audio(app)  # never read
    command_only = pcm(SAMPLE, "trim", str(WAKE_END_S))
    ids = []
    for n in range(3):  # 3 requests of about 3 s: past a 64 KiB pipe's 1.9 s
        started, error = call(app, "StartRequest")
        check(f"request audio: StartRequest {n}", error is None, str(error))
        ids.append(started[0] if started else 0)
        audio.write(command_only + silence(1.5))
        audio.flush()
        check(f"request audio: request {n}'s Command (the daemon goes on with a pipe full)",
              bus.expect(command_of(ids[-1])))
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and not any(
            f[0] == 3 and f[1] == ids[-1] for f in reader.frames()):
        time.sleep(0.05)
    frames = reader.frames()
    for request in ids:
        mine = [f for f in frames if f[1] == request]
        kinds = [f[0] for f in mine]
        ok = kinds and kinds[0] == 1 and kinds[-1] == 3 and set(kinds[1:-1]) == {2}
        check(f"request {request}: start, audio, end", ok, str(kinds[:3] + kinds[-2:]))
        if not ok:
            continue
        first, end = mine[0][2], mine[-1][2]
        samples = b"".join(f[3] for f in mine[1:-1])
        contiguous = all(f[2] == first + 160 * i for i, f in enumerate(mine[1:-1]))
        check(f"request {request}: frames contiguous from its first sample", contiguous)
        check(f"request {request}: exactly the stream's samples from its start to its end",
              samples == bytes(audio.written[2 * first:2 * end]) and len(samples) > 0,
              f"{first}..{end}, {len(samples)} bytes")
        check(f"request {request}: its audio holds the command said",
              command_only[:32000] in samples)
    stats, error = call(app, "GetStats")
    stats = stats[0] if stats else {}
    check("GetStats: frames dropped for the pipe nobody reads",
          stats.get("request_audio_dropped", 0) > 0 and stats.get("request_audio_readers") == 2,
          str({k: v for k, v in stats.items() if k.startswith("request_audio")}))
    os.close(unread)
