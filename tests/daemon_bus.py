"""The D-Bus test of earshotd (daemon_test.py bus): signals, properties, methods, errors."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

from daemon_lib import (COMPUTER, DEBIAN_HMM, NAME, OBJECT, PATH_IFACE, SAMPLE, SRC, TIMEOUT,
                        Lines, busctl, call, check, is_signal, sox, stop)

GAP_S = 12
SECOND_REQUEST_FRAME = 100 + 455 + GAP_S * 100  # 1 s, the 4.55 s request, the gap
THIRD_REQUEST_FRAME = SECOND_REQUEST_FRAME + 455 + GAP_S * 100


def three_requests(tmp):
    """The bundled request three times, GAP_S apart: a gap is the time the client has to set a
    sensitivity or to mute (the daemon plays it in real time; both apply from the audio captured
    after the call)."""
    req, s1, gap = (os.path.join(tmp, n) for n in ("req.wav", "s1.wav", "gap.wav"))
    sox(SAMPLE, "-r", "16000", "-c", "1", "-b", "16", req)
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", s1, "trim", "0", "1")
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", str(GAP_S))
    out = os.path.join(tmp, "three_requests.wav")
    sox(s1, req, gap, req, gap, req, s1, out)
    return out


def test_bus(earshotd, tmp):
    """Methods and errors against a daemon hearing silence, listening for two keywords; then,
    against a fresh one with the default config, the requests, so that the time the client has to
    mute does not depend on how long the first part took on a loaded machine."""
    silence, recording = os.path.join(tmp, "silence.wav"), three_requests(tmp)
    sox("-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "600")
    config, two_keywords = os.path.join(tmp, "earshot.toml"), os.path.join(tmp, "two.toml")
    with open(config, "w") as f:
        subprocess.run([earshotd, "--print-config"], stdout=f, check=True)
    with open(config) as f:
        default = f.read()
    with open(two_keywords, "w") as f:
        f.write(default.replace("models = ['computer']\n", f"models = ['computer', '{COMPUTER}']\n")
                .replace("names = []", "names = ['', 'second']")
                .replace("sensitivities = []", "sensitivities = [0.5, 0.3]"))
    monitor = subprocess.Popen(["busctl", "--user", "monitor", NAME, "--json=short"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = Lines(monitor.stderr).expect(lambda l: "Monitoring" in l)
    check("monitor ready", ready is not None)
    bus = Lines(monitor.stdout, json.loads)
    daemon = None
    try:
        daemon, events, log = start_bus_daemon(earshotd, two_keywords, silence)
        bus_methods(bus, events, log, two_keywords)
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
        check("Mute silences the third request", heard == [], str(heard))
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


def get_keywords():
    """The Keywords property: [name, phrase, sensitivity, threshold, model, size] per keyword."""
    got = busctl("get-property", "--json=short", NAME, OBJECT, PATH_IFACE, "Keywords")
    return json.loads(got.stdout)["data"] if got.returncode == 0 else None


def keywords_changed(m):
    """The Keywords of a PropertiesChanged signal, or None."""
    if m.get("member") != "PropertiesChanged":
        return None
    return m["payload"]["data"][1].get("Keywords", {}).get("data")


def bus_keywords(bus):
    """The keyword list and SetSensitivity: typed errors, the change at once, its threshold."""
    got = get_keywords()
    check("Keywords: both, in order, at their config's sensitivities", got == [
        ["computer", "", 0.5, 26214 / 32768, COMPUTER, "large"],
        ["second", "", 0.3, 28836 / 32768, COMPUTER, "large"]], str(got))  # 32768 - 6554 * 0.6
    check("SetSensitivity", call("SetSensitivity", "sd", "computer", "0.7").returncode == 0)
    check("PropertiesChanged Keywords", bus.expect(
        lambda m: keywords_changed(m) and keywords_changed(m)[0][2] == 0.7))
    got = get_keywords()
    check("Keywords: the new sensitivity and its threshold", got and got[0][2:4] == [
        0.7, 15728 / 32768] and got[1][2] == 0.3, str(got))  # 26214 * 0.6
    for args, error in ((("nothing", "0.5"), "io.earshot.Error.UnknownKeyword"),
                        (("computer", "1.5"), "io.earshot.Error.SensitivityOutOfRange"),
                        (("computer", "-0.1"), "io.earshot.Error.SensitivityOutOfRange")):
        bad = call("SetSensitivity", "sd", *args)
        check(f"SetSensitivity {args} refused", bad.returncode != 0 and (
            "outside [0, 1]" in bad.stderr or "no keyword 'nothing'" in bad.stderr), bad.stderr)
        check(f"SetSensitivity {args}: {error}", bus.expect(
            lambda m: m.get("type") == "error" and m.get("error_name") == error))
    check("SetSensitivity with one argument refused",
          call("SetSensitivity", "s", "computer").returncode != 0)
    check("refused calls change nothing", get_keywords() == got)


def bus_methods(bus, events, log, config):
    check("startup ProfileChanged", bus.expect(is_signal("ProfileChanged", "performance")))
    check_interface_xml()
    bus_keywords(bus)
    check("SetProfile saver", call("SetProfile", "s", "saver").returncode == 0)
    check("ProfileChanged saver", bus.expect(is_signal("ProfileChanged", "saver", "manual")))
    check("PropertiesChanged Profile", bus.expect(
        lambda m: m.get("member") == "PropertiesChanged" and
        m["payload"]["data"][1].get("Profile", {}).get("data") == "saver"))
    got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "Profile")
    check("Profile property is saver", got.stdout.strip() == 's "saver"', got.stdout)
    small = bus.expect(lambda m: keywords_changed(m) and keywords_changed(m)[0][5] == "small")
    got = keywords_changed(small) if small else None
    check("saver: the bundled keyword's small model, the other keeps its own; sensitivities kept",
          got and got[0][4].endswith("computer_small.eshm") and got[0][2] == 0.7 and
          got[1][4:] == [COMPUTER, "large"] and got[1][2] == 0.3, str(got))
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
    check("keywords back at their large models", bus.expect(
        lambda m: keywords_changed(m) and keywords_changed(m)[0][5] == "large"))
    with open(config) as f:
        good = f.read()
    with open(config, "w") as f:
        f.write(good.replace("models = ['computer', ", "models = ['/nonexistent/kws.eshm', "))
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
    got = get_keywords()
    check("Reload takes the config's sensitivities again",
          [k[2] for k in got] == [0.5, 0.3], str(got))


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
            keyword, score, usec, request = got["payload"]["data"]
            check("WakeWord: the first request", request == 1, str(got))
            now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
            check("WakeWord computer", keyword == "computer" and 0 < score <= 1, str(got))
            check("WakeWord monotonic time", started_usec < usec <= now, f"{usec} vs {now}")
        if member == "Transcript":
            check("final transcript has words", got["payload"]["data"][0].strip() != "")
            check("final transcript: the wake word's request, not cancelled",
                  got["payload"]["data"][3:] == [1, False], str(got))
    check_stats()
    # Sensitivity 0: the second request is heard as speech, and no wake word in it.
    check("SetSensitivity 0", call("SetSensitivity", "sd", "computer", "0").returncode == 0)
    # The test means something only if the call came before the second request was captured.
    captured = re.search(r'"input_frames" x (\d+)', call("GetStats").stdout)
    check("SetSensitivity came before the second request (else the machine is too slow for this "
          "test)", captured and int(captured.group(1)) < SECOND_REQUEST_FRAME, str(captured))
    start = len(bus.seen)
    check("second request: SpeechStarted", bus.expect(is_signal("SpeechStarted")))
    check("second request: SpeechEnded", bus.expect(is_signal("SpeechEnded")))
    heard = [m["member"] for m in bus.seen[start:] if m.get("type") == "signal" and
             m.get("member") in ("WakeWord", "Transcript")]
    check("sensitivity 0: no wake word in the second request", heard == [], str(heard))
    check("Mute", call("Mute").returncode == 0)
    captured = re.search(r'"input_frames" x (\d+)', call("GetStats").stdout)
    check("Mute came before the third request (else the machine is too slow for this test)",
          captured and int(captured.group(1)) < THIRD_REQUEST_FRAME, str(captured))
    check("StateChanged muted", bus.expect(is_signal("StateChanged", "muted")))
    got = busctl("get-property", NAME, OBJECT, PATH_IFACE, "Muted")
    check("Muted property", got.stdout.strip() == "b true", got.stdout)
