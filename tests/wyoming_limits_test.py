#!/usr/bin/python3
"""earshot-wyoming's limits (issue 78): idle or slow sockets cannot lock clients out, and a header
cannot make it allocate or work without bound.

- a full server (--max-connections 4) whose connections are idle gives the longest idle one's
  place to a new client, which is served; one whose connections are all busy refuses it, and the
  log says so;
- the same per IP address (--max-per-address 2): a third busy client from 127.0.0.1 is refused,
  one from 127.0.0.2 is served;
- a client sending one byte at a time gets an `error` event (code `timeout`) once its event is not
  whole after --header-timeout-ms; one that sends nothing after --idle-timeout-ms likewise;
- audio-start at 1 Hz (or 7999, or 192001) is an `error` event naming the range; 8 kHz is served;
- a client that closes frees its slot at once: 100 times, two clients of 127.0.0.1 (its share)
  each get an answer or an error and close, and a third connecting right after is served;
- with its defaults and 64 clients from 127.0.0.1 that never send a whole event (half idle, half
  sending a header a byte a second, each back half a second after it is closed), a normal client
  from 127.0.0.1 (describe, then a little audio) is served every time for 20 s.

Waits are generous (the suite runs under the sanitizers and qemu): nothing asserts a speed.

Usage: wyoming_limits_test.py EARSHOT_WYOMING
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wyoming_server_test as base  # noqa: E402
from wyoming_server_test import Server, check  # noqa: E402

LIMITS = ["--max-connections", "4", "--max-per-address", "2", "--header-timeout-ms", "1500",
          "--idle-timeout-ms", "3000"]


def connect(server, source="127.0.0.1"):
    """A raw socket to the server from `source` (another loopback address is another client
    address)."""
    host, port = server.uri[len("tcp://"):].rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=base.TIMEOUT,
                                    source_address=(source, 0))
    return sock


def type_of(line):
    """The type of the event whose header is `line` (None for none)."""
    try:
        return json.loads(line).get("type")
    except ValueError:
        return None


def describe(sock):
    """Whether the server answers `describe` with `info` on `sock` (False: closed, or an error)."""
    try:
        sock.sendall(b'{"type": "describe"}\n')
        return type_of(sock.makefile("rb").readline()) == "info"
    except OSError:
        return False


class Busy:
    """A client that pings every 100 ms until stopped: never idle."""

    def __init__(self, server, source="127.0.0.1"):
        self.sock = connect(server, source)
        self.ok = describe(self.sock)
        self.running = True
        self.thread = threading.Thread(target=self._ping, daemon=True)
        self.thread.start()

    def _ping(self):
        reader = self.sock.makefile("rb")
        while self.running:
            try:
                self.sock.sendall(b'{"type": "ping"}\n')
                self.ok = self.ok and type_of(reader.readline()) == "pong"
            except OSError:
                self.ok = False
                return
            time.sleep(0.1)

    def stop(self):
        self.running = False
        self.thread.join()
        self.sock.close()


def error_of(sock, wait_s):
    """The text of the `error` event the server sends within `wait_s`, or None."""
    sock.settimeout(wait_s)
    try:
        line = sock.makefile("rb").readline()
    except OSError:
        return None
    return line.decode(errors="replace") if b'"error"' in line else None


def test_idle_make_room(server):
    idle = [connect(server) for _ in range(2)] + [connect(server, "127.0.0.2") for _ in range(2)]
    time.sleep(1.5)  # idle for over a second: each may make room for a new client
    fresh = connect(server, "127.0.0.3")
    check("a new client is served while idle sockets fill the server", describe(fresh))
    check("the room it took is logged", server.logged("to make room for 127.0.0.3"))
    for s in idle + [fresh]:
        s.close()


def test_busy_refuse(server):
    time.sleep(0.5)  # the closed sockets' slots reaped
    busy = [Busy(server) for _ in range(2)] + [Busy(server, "127.0.0.2") for _ in range(2)]
    check("four busy clients served", all(b.ok for b in busy))
    refused = connect(server, "127.0.0.3")
    check("a fifth is refused while all four are busy", not describe(refused))
    check("the refusal is logged", server.logged("refused, 4 connections already"))
    refused.close()
    third = connect(server)
    check("a third busy address's client is refused", not describe(third))
    check("its refusal names the address", server.logged("refused, 2 connections from 127.0.0.1"))
    third.close()
    for b in busy:
        b.stop()
    check("the busy clients were never dropped", all(b.ok for b in busy))


def test_timeouts(server):
    time.sleep(0.5)
    slow = connect(server)
    slow.sendall(b'{"type": ')
    got = None
    deadline = time.monotonic() + 10
    try:
        while got is None and time.monotonic() < deadline:
            slow.sendall(b" ")  # a byte at a time: never a whole header
            got = error_of(slow, 0.25)
    except OSError:
        pass
    check("a header sent a byte at a time times out", got and "header timeout" in got, got)
    slow.close()
    idle = connect(server)
    got = error_of(idle, 20)
    check("a client that sends nothing times out", got and "idle timeout" in got, got)
    idle.close()


def test_rates(server):
    for rate in (1, 7999, 192001):
        sock = connect(server)
        sock.sendall(b'{"type": "audio-start", "data": {"rate": %d, "width": 2, "channels": 1}}\n'
                     % rate)
        got = error_of(sock, base.TIMEOUT)
        check(f"audio-start at {rate} Hz refused", got and "expected 8000 to 192000" in got, got)
        sock.close()
    c = server.client()
    c.send("audio-start", {"rate": 8000, "width": 2, "channels": 1})
    c.send("audio-chunk", {"rate": 8000, "width": 2, "channels": 1}, payload=bytes(1600))
    c.send("audio-stop")
    events = c.read_until("not-detected", "error")
    check("8 kHz is served", events and events[-1][0] == "not-detected", events)
    c.close()


def test_closed_free_their_slots(server, rounds=100):
    served = 0
    for k in range(rounds):
        pair = [connect(server) for _ in range(2)]
        for s in pair:
            if k % 2:
                describe(s)
            else:  # refused with an error event, which the server lingers after
                s.sendall(b'{"type": "audio-start", '
                          b'"data": {"rate": 1, "width": 2, "channels": 1}}\n')
                error_of(s, base.TIMEOUT)
            s.close()
        third = connect(server)
        served += describe(third)
        third.close()
    check(f"a client right after two closed ones is served ({served} of {rounds})",
          served == rounds)


def bad_client(server, slow, stop):
    """Until `stop`: connects, sends nothing (or a header a byte a second) until closed, and is back
    half a second later."""
    while time.monotonic() < stop:
        try:
            sock = connect(server)
            sock.settimeout(1.0)
            if slow:
                sock.sendall(b'{"type": ')
            while time.monotonic() < stop:
                try:
                    if sock.recv(4096) == b"":
                        break
                except socket.timeout:
                    if slow:
                        sock.sendall(b" ")
            sock.close()
        except OSError:
            pass
        time.sleep(0.5)


def normal_round(server):
    """describe, then 0.2 s of silence: whether `info` and `not-detected` came back."""
    try:
        c = server.client()
        c.send("describe")
        info = c.read()
        c.send("audio-start", {"rate": 16000, "width": 2, "channels": 1})
        c.send("audio-chunk", {"rate": 16000, "width": 2, "channels": 1}, payload=bytes(6400))
        c.send("audio-stop")
        events = c.read_until("not-detected", "error")
        c.close()
    except (OSError, EOFError, ValueError) as e:
        return str(e)
    ok = info and info[0] == "info" and events and events[-1][0] == "not-detected"
    return True if ok else str(events)[:200]


def test_bad_clients_cannot_lock_out(binary, seconds=20):
    server = Server(binary).wait()
    try:
        stop = time.monotonic() + seconds
        for k in range(64):
            threading.Thread(target=bad_client, args=(server, k % 2 == 0, stop),
                             daemon=True).start()
        time.sleep(2)  # the bad clients hold every slot of 127.0.0.1's
        results = []
        while time.monotonic() < stop:
            results.append(normal_round(server))
            time.sleep(0.5)
        failures = [r for r in results if r is not True]
        print(f"normal client served {len(results) - len(failures)} of {len(results)} among 64 bad "
              "clients")
        check(f"a normal client among 64 bad ones served every time ({len(results)} rounds)",
              results and not failures, failures[:3])
        check("the bad clients made room for it", server.logged("no whole event since it connected"))
        check("SIGTERM exits 0 with 64 bad clients", server.stop() == 0)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def main(argv):
    server = Server(argv[1], extra=LIMITS).wait()
    try:
        test_idle_make_room(server)
        test_busy_refuse(server)
        test_timeouts(server)
        test_rates(server)
        test_closed_free_their_slots(server)
        check("SIGTERM exits 0", server.stop() == 0)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    print("\n".join(server.log[-8:]))
    test_bad_clients_cannot_lock_out(argv[1])
    print("wyoming_limits_test: " + ("FAILED" if base.failed else "ok"))
    return 1 if base.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
