#!/usr/bin/python3
"""earshot-wyoming against a Wyoming client written from the protocol's description
(wyoming_client.py), over loopback: describe; the bundled sample at 48 kHz stereo in 20 ms chunks
gives voice-started, `detection` of computer where `earshot run` puts the wake word, and a
transcript; speech without the keyword gives not-detected; ten clients at once (and one stalled
in the middle of a header) each get their own answers; each kind of bad input ends only its own
connection, and the service answers the next client; a unix socket; SIGTERM ends it with 0.

Usage: wyoming_server_test.py EARSHOT_WYOMING EARSHOT [DATA_DIR]
(with DATA_DIR, a Speech Commands word from DATA_DIR/kws/dev is transcribed with the command words,
as `earshot transcribe` does it)
"""
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wyoming_client import Client  # noqa: E402

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(SRC, "tools", "samples", "computer_request.flac")
TIMEOUT = float(os.environ.get("EARSHOT_TEST_TIMEOUT", "120"))
COMMANDS = "yes|no|up|down|left|right|on|off|stop|go"
WAKE_TOLERANCE_MS = 60  # the 48 kHz stereo round trip may move the wake by a hop or a few
failed = 0


_last = [time.monotonic()]


def timed(phase):
    """Prints how long the phase since the last one took (the test's budget is < 60 s)."""
    now = time.monotonic()
    print(f"wyoming_test: {phase}: {now - _last[0]:.1f} s", flush=True)
    _last[0] = now


def check(name, condition, detail=""):
    global failed
    if not condition:
        failed += 1
        print(f"FAIL: {name}" + (f" ({detail})" if detail else ""), flush=True)
    return condition


def pcm(path, rate, channels, trim=None):
    """The recording as raw signed 16-bit little-endian PCM through sox."""
    cmd = ["sox", path, "-t", "raw", "-r", str(rate), "-c", str(channels), "-b", "16",
           "-e", "signed", "-L", "-"]
    return subprocess.run(cmd + (["trim", str(trim)] if trim else []), check=True,
                          stdout=subprocess.PIPE).stdout


class Server:
    """earshot-wyoming on a free port (or a unix socket), its log collected."""

    def __init__(self, binary, uri="tcp://127.0.0.1:0", extra=()):
        self.proc = subprocess.Popen([binary, "--uri", uri, *extra], stderr=subprocess.PIPE,
                                     text=True)
        self.log = []
        self.listening = threading.Event()

        def read():
            for line in self.proc.stderr:
                self.log.append(line.rstrip("\n"))
                m = re.search(r"listening on (\S+)", line)
                if m:
                    self.uri = m.group(1)
                    self.listening.set()
        threading.Thread(target=read, daemon=True).start()

    def wait(self):
        """Waits until it listens (it loads its models first); returns itself."""
        if not self.listening.wait(TIMEOUT):
            raise RuntimeError("earshot-wyoming did not start: " + "\n".join(self.log))
        return self

    def client(self):
        return Client(self.uri, timeout=TIMEOUT)

    def logged(self, text):
        """Whether the log has `text`, waiting for the reader thread (the service may answer
        the client before its log line reaches us)."""
        deadline = time.monotonic() + TIMEOUT
        while not any(text in line for line in list(self.log)):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(TIMEOUT)


def wake_time_ms(earshot):
    """Where `earshot run` (the same pipeline, offline) reports the wake word in the sample."""
    out = subprocess.run([earshot, "run", "--stages", "vad,kws", SAMPLE], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    wakes = [json.loads(l) for l in out.splitlines() if '"wake"' in l]
    return round(wakes[0]["t"] * 1000)


def detect_stream(server, audio, transcribe=False, names=None, rate=48000, channels=2):
    c = server.client()
    c.send("detect", {"names": names} if names else None)
    if transcribe:
        c.send("transcribe", {"language": "en"})
    c.stream(audio, rate, 2, channels, chunk_ms=20)
    c.send("ping")
    events = c.read_until("pong")
    c.close()
    return events


def test_describe(server):
    c = server.client()
    c.send("describe")
    type_, info, _ = c.read()
    c.close()
    check("describe answers info", type_ == "info", type_)
    wake = [m for p in info.get("wake", []) for m in p["models"]]
    check("info: the wake word computer with its phrase and a version",
          any(m["name"] == "computer" and m.get("phrase") == "computer"
              and m.get("version", "").startswith("crc32-") for m in wake), wake)
    asr = {m["name"]: m for p in info.get("asr", []) for m in p["models"]}
    check("info: the open decoder and the command words, in en",
          "earshot-en" in asr and "earshot-commands" in asr
          and all(m["languages"] == ["en"] for m in asr.values()), asr)
    check("info: the command words listed", "yes|no|up|down" in
          asr.get("earshot-commands", {}).get("description", ""), asr)
    check("info: vad", len(info.get("vad", [])) == 1, info.get("vad"))


def test_sample(server, sample48, wake_ms):
    events = detect_stream(server, sample48, transcribe=True)
    types = [e[0] for e in events]
    detections = [e[1] for e in events if e[0] == "detection"]
    check("sample: one detection of computer", len(detections) == 1
          and detections[0]["name"] == "computer", events)
    if detections:
        check(f"sample: detected at {wake_ms} ms (earshot run) +- {WAKE_TOLERANCE_MS}",
              abs(detections[0]["timestamp"] - wake_ms) <= WAKE_TOLERANCE_MS, detections[0])
    check("sample: voice-started before the detection, voice-stopped after",
          ["voice-started", "detection", "voice-stopped"] ==
          [t for t in types if t in ("voice-started", "detection", "voice-stopped")], types)
    check("sample: no not-detected", "not-detected" not in types, types)
    transcripts = [e[1] for e in events if e[0] == "transcript"]
    check("sample: a transcript of the request", len(transcripts) == 1
          and "ironing things away" in transcripts[0]["text"], transcripts)
    return transcripts[0]["text"] if transcripts else ""


def test_no_keyword(server, speech48):
    events = detect_stream(server, speech48)
    types = [e[0] for e in events]
    check("no keyword: not-detected, no detection", "not-detected" in types
          and "detection" not in types, types)
    check("no keyword: the VAD hears the speech", "voice-started" in types, types)
    # Names restrict: the sample with detect names other than computer gives not-detected.
    events = detect_stream(server, speech48, names=["hey_jarvis"])
    check("detect names: another name gives not-detected",
          [e[0] for e in events].count("not-detected") == 1, events)


def test_commands(server, earshot, clip):
    c = server.client()
    c.send("transcribe", {"name": "earshot-commands", "language": "en"})
    c.stream(pcm(clip, 16000, 1), 16000, 2, 1, chunk_ms=100)
    events = c.read_until("transcript")
    c.close()
    text = events[-1][1].get("text") if events else None
    offline = subprocess.run([earshot, "transcribe", "--set", "stt.words=" + COMMANDS, clip],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
    check("transcribe with the command words: one word, as earshot transcribe --set stt.words",
          text in COMMANDS.split("|") and offline.rstrip("\n").split("\t")[-1] == text,
          (events, offline))


def test_many(server, sample48, speech48, wake_ms, sample_text):
    """Ten clients at once, each its own answers, while one client stalls in a header."""
    stalled = socket.create_connection(server.uri[len("tcp://"):].rsplit(":", 1))
    stalled.sendall(b'{"type": "audio-st')
    results = [None] * 10

    def run(i):
        try:
            audio = sample48 if i % 2 == 0 else speech48
            results[i] = detect_stream(server, audio, transcribe=(i % 4 == 0))
        except Exception as e:  # noqa: BLE001: reported as the failure
            results[i] = e
    threads = [threading.Thread(target=run, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    for i, events in enumerate(results):
        if not check(f"client {i} finished", isinstance(events, list), events):
            continue
        types = [e[0] for e in events]
        if i % 2 == 0:
            d = [e[1] for e in events if e[0] == "detection"]
            check(f"client {i}: computer at the right time", len(d) == 1 and
                  abs(d[0]["timestamp"] - wake_ms) <= WAKE_TOLERANCE_MS, events)
        else:
            check(f"client {i}: not-detected", "not-detected" in types and "detection" not in types,
                  types)
        t = [e[1]["text"] for e in events if e[0] == "transcript"]
        check(f"client {i}: a transcript only if asked, the same as alone",
              t == ([sample_text] if i % 4 == 0 else []), t)
    stalled.close()


BAD_INPUTS = {
    "oversized header": b"{" + b" " * 100000,
    "oversized payload": b'{"type": "audio-chunk", "payload_length": 1000000000}\n',
    "payload length that lies": b'{"type": "audio-start", "data": {"rate": 16000, "width": 2, '
                                b'"channels": 1}}\n{"type": "audio-chunk", "payload_length": 2}\n'
                                b'abcdefgh\n',
    "negative length": b'{"type": "describe", "data_length": -5}\n',
    "header not JSON": b'{"type": describe}\n',
    "header without a type": b'{"data": {}}\n',
    "data not an object": b'{"type": "detect", "data_length": 2}\n[]',
    "audio before audio-start": b'{"type": "audio-chunk", "data": {"rate": 16000, "width": 2, '
                                b'"channels": 1}, "payload_length": 4}\n\0\0\0\0',
    "rate of 0": b'{"type": "audio-start", "data": {"rate": 0, "width": 2, "channels": 1}}\n',
    "width of 7": b'{"type": "audio-start", "data": {"rate": 16000, "width": 7, "channels": 1}}\n',
    "a language not spoken": b'{"type": "transcribe", "data": {"language": "fr"}}\n',
    "disconnect mid-payload": b'{"type": "audio-start", "data": {"rate": 16000, "width": 2, '
                              b'"channels": 1}}\n{"type": "audio-chunk", "payload_length": 3200}\n'
                              + b"\1" * 100,
    "not UTF-8": b'{"type": "\xff\xfe"}\n',
}


def closed(client):
    """Whether the server has closed the connection (and no event came before)."""
    try:
        return client.read() is None
    except ConnectionError:
        return True


def test_bad_input(server):
    for name, data in BAD_INPUTS.items():
        c = server.client()
        c.send_raw(data)
        if name != "disconnect mid-payload":
            try:
                events = c.read_until("error")
            except (EOFError, ConnectionError, ValueError) as e:
                events = [("exception", str(e), b"")]
            check(f"{name}: the connection ends with an error event",
                  events and events[-1][0] == "error" and closed(c), events)
        c.close()
        check(f"{name}: the service lives on", server.proc.poll() is None)
        c = server.client()
        c.send("describe")
        check(f"{name}: the next client is answered", (c.read() or ("",))[0] == "info")
        c.close()
    # An unknown type is ignored, as the protocol asks: the same connection goes on.
    c = server.client()
    c.send("no-such-event", {"x": 1}, payload=b"123")
    c.send("describe", {}, data_section=True)
    check("unknown type: ignored, the connection answers", (c.read() or ("",))[0] == "info")
    c.close()
    for cause in ("header line over", "payload_length 1000000000 over",
                  "audio-chunk before audio-start", "rate 0 Hz", "in the middle of an event",
                  "unknown type 'no-such-event'"):
        check(f"the log names the cause: {cause}", server.logged(cause))


def test_unix(server):
    c = server.wait().client()
    c.send("describe")
    type_, info, _ = c.read() or ("", {}, b"")
    asr = [m["name"] for p in info.get("asr", []) for m in p["models"]]
    check("unix socket: describe; stt.command_model none: no command words", type_ == "info"
          and asr == ["earshot-en"], asr)
    c.close()
    check("unix socket: SIGTERM exits 0", server.stop() == 0)


def main(argv):
    binary, earshot = argv[1], argv[2]
    usage = subprocess.run([binary, "--uri", "http://x"], stderr=subprocess.PIPE, text=True)
    check("a bad --uri is a usage error naming it", usage.returncode == 2
          and "--uri http://x" in usage.stderr, usage.stderr)
    wake_ms = wake_time_ms(earshot)
    timed("earshot run")
    sample48 = pcm(SAMPLE, 48000, 2)
    speech48 = pcm(SAMPLE, 48000, 2, trim=1.3)  # the request without its keyword
    data = argv[3] if len(argv) > 3 else ""
    clips = sorted(glob.glob(os.path.join(data, "kws", "dev", "yes", "*.flac")))[:1] if data else []
    tmp = tempfile.TemporaryDirectory()
    # Both servers load their models at once (the sanitizers' build takes seconds for it).
    unix_server = Server(binary, "unix://" + os.path.join(tmp.name, "wyoming.sock"),
                         ["--set", "stt.command_model=none"])
    server = Server(binary).wait()
    timed("start")
    try:
        test_describe(server)
        text = test_sample(server, sample48, wake_ms)
        timed("sample")
        test_no_keyword(server, speech48)
        if clips:
            test_commands(server, earshot, clips[0])
        else:
            print("wyoming_test: no DATA_DIR/kws/dev/yes: the command words not tried")
        timed("no keyword, commands")
        test_many(server, sample48, speech48, wake_ms, text)
        timed("ten clients")
        test_bad_input(server)
        timed("bad input")
        check("SIGTERM exits 0", server.stop() == 0)
        test_unix(unix_server)
    finally:
        for s in (server, unix_server):
            if s.proc.poll() is None:
                s.proc.kill()
        tmp.cleanup()
    print("\n".join(server.log[-5:]))
    print("wyoming_test: " + ("FAILED" if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
