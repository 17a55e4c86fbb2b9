"""Issue 49's D-Bus half (daemon_test.py commands): request ids, command sets registered by apps,
Command and Error signals, typed errors, push-to-talk and cancel.

The daemon reads its audio from standard input (wav:-), which the test writes only when it is
ready for it: a set registered, a request started. Nothing depends on how fast the machine is,
so the test runs under the sanitizers too. Apps are GDBus connections of their own (python3-gi):
a set lives as long as the connection that registered it, so busctl (a connection per call)
could not hold one. Signals are read from `busctl monitor`.
"""
import json
import os
import struct
import subprocess
import time

from gi.repository import Gio, GLib

from daemon_bus import check_interface_xml
from daemon_lib import NAME, OBJECT, PATH_IFACE, SAMPLE, TIMEOUT, Lines, check, is_signal, stop

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


def connect():
    """A bus connection of its own: an app."""
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
             Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def call(conn, method, signature=None, args=None):
    """(result tuple, None) or (None, (error name, message))."""
    try:
        reply = conn.call_sync(NAME, OBJECT, PATH_IFACE, method,
                               GLib.Variant(signature, args) if signature else None, None,
                               Gio.DBusCallFlags.NONE, int(TIMEOUT * 1000), None)
        return reply.unpack(), None
    except GLib.Error as e:
        return None, (Gio.DBusError.get_remote_error(e), e.message)


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
        daemon.stdin.write(wav_header() + silence(0.5))
        daemon.stdin.flush()
        check("startup ProfileChanged", bus.expect(is_signal("ProfileChanged", "performance")))
        check_interface_xml()
        app = connect()
        register(app, bus)
        requests(app, bus, events, daemon.stdin)
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
