"""What the earshotd integration tests share (daemon_test.py, daemon_bus.py): counted checks,
waits for lines with a deadline, sox, busctl, the daemon's bus names and calls to it from
connections of their own (apps; bench/soak_commands.py too)."""
import os
import queue
import socket
import subprocess
import threading
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(SRC, "tools", "samples", "computer_request.flac")
COMPUTER = os.path.join(SRC, "models", "kws", "computer.eshm")
TIMEOUT = float(os.environ.get("EARSHOT_TEST_TIMEOUT", "120"))
NAME = PATH_IFACE = "io.earshot.Pipeline1"
OBJECT = "/io/earshot/Pipeline1"
DEBIAN_HMM = "/usr/share/pocketsphinx/model/en-us/en-us"  # what an empty stt.acoustic_model means
passed = 0
failed = 0


class NotifySocket:
    """A socket like systemd's NOTIFY_SOCKET in `tmp`: its datagrams are read as they come, as
    systemd does (a full socket would block the daemon's sends), onto the queue `datagrams`."""

    def __init__(self, tmp):
        self.path = os.path.join(tmp, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.datagrams = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                self.datagrams.put(self.sock.recv(4096).decode())
            except OSError:
                return

    def close(self):
        self.sock.close()


def connect(address=None):
    """A bus connection of its own, as an app has: to the bus at `address` (None: the session's)."""
    from gi.repository import Gio
    if address is None:
        address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
             Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def app_call(conn, method, signature=None, args=None, timeout=TIMEOUT):
    """A method of earshotd's called on `conn`: (result tuple, None) or (None, (error name,
    message)). call() below is busctl's, on the session bus."""
    from gi.repository import Gio, GLib
    try:
        reply = conn.call_sync(NAME, OBJECT, PATH_IFACE, method,
                               GLib.Variant(signature, args) if signature else None, None,
                               Gio.DBusCallFlags.NONE, int(timeout * 1000), None)
        return reply.unpack(), None
    except GLib.Error as e:
        return None, (Gio.DBusError.get_remote_error(e), e.message)


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


def busctl(*args):
    return subprocess.run(["busctl", "--user", *args], capture_output=True, text=True, timeout=TIMEOUT)


def call(method, *args):
    return busctl("call", "--", NAME, OBJECT, PATH_IFACE, method, *args)  # args may start with -


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
