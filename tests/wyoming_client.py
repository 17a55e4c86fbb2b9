"""A Wyoming protocol client, written from the protocol's published description
(github.com/rhasspy/wyoming, README "Format"): an event is one JSON header line ending in '\\n'
with `type`, optional `data`, `data_length` and `payload_length`; then data_length bytes of a JSON
object merged on top of `data`; then payload_length bytes of payload. The tests
(wyoming_server_test.py) and the cost measurement (bench/wyoming_cost.sh) use it; it needs only
the standard library.

Usage as a program: wyoming_client.py URI describe
                    wyoming_client.py URI stream RAW_FILE RATE WIDTH CHANNELS [CHUNK_MS]
(stream: a detect stream of the raw PCM file, printing each event received as a JSON line)
"""
import json
import socket
import sys


class Client:
    def __init__(self, uri, timeout=60.0):
        if uri.startswith("unix://"):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(uri[len("unix://"):])
        elif uri.startswith("tcp://"):
            host, port = uri[len("tcp://"):].rsplit(":", 1)
            self.sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
        else:
            raise ValueError(f"{uri}: expected tcp://HOST:PORT or unix://PATH")
        self.reader = self.sock.makefile("rb")

    def close(self):
        self.reader.close()
        self.sock.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, type_, data=None, payload=b"", data_section=False):
        """One event; with data_section the data travels after the header (data_length)."""
        header = {"type": type_}
        extra = b""
        if data is not None and data_section:
            extra = json.dumps(data).encode()
            header["data_length"] = len(extra)
        elif data is not None:
            header["data"] = data
        if payload:
            header["payload_length"] = len(payload)
        self.sock.sendall(json.dumps(header).encode() + b"\n" + extra + payload)

    def read(self):
        """The next event as (type, data, payload); None when the server closed the connection."""
        line = self.reader.readline()
        if not line:
            return None
        if not line.endswith(b"\n"):
            raise EOFError("connection closed inside a header line")
        header = json.loads(line)
        data = header.get("data") or {}
        data_length = header.get("data_length") or 0
        payload_length = header.get("payload_length") or 0
        if data_length:
            data.update(json.loads(self._exactly(data_length)))
        payload = self._exactly(payload_length) if payload_length else b""
        return header["type"], data, payload

    def _exactly(self, n):
        got = self.reader.read(n)
        if len(got) != n:
            raise EOFError(f"connection closed after {len(got)} of {n} bytes")
        return got

    def read_until(self, *types):
        """Events up to and including the first of `types`; all of them up to the close if none."""
        events = []
        while True:
            event = self.read()
            if event is None:
                return events
            events.append(event)
            if event[0] in types:
                return events

    def stream(self, pcm, rate, width, channels, chunk_ms=20, timestamp=0):
        """audio-start, the PCM bytes in chunks of chunk_ms, audio-stop. Then read_until("pong")
        after a ping returns every answer: the server answers events in order."""
        fmt = {"rate": rate, "width": width, "channels": channels}
        self.send("audio-start", dict(fmt, timestamp=timestamp))
        frame = width * channels
        step = rate * frame * chunk_ms // 1000

        def ms(offset):
            return timestamp + offset // frame * 1000 // rate
        for i in range(0, len(pcm), step):
            self.send("audio-chunk", dict(fmt, timestamp=ms(i)), pcm[i:i + step])
        self.send("audio-stop", {"timestamp": ms(len(pcm))})


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    client = Client(argv[1])
    if argv[2] == "describe":
        client.send("describe")
        print(json.dumps(client.read()[1]))
        return 0
    if argv[2] == "stream" and len(argv) >= 7:
        with open(argv[3], "rb") as f:
            pcm = f.read()
        rate, width, channels = int(argv[4]), int(argv[5]), int(argv[6])
        client.send("detect")
        client.stream(pcm, rate, width, channels, int(argv[7]) if len(argv) > 7 else 20)
        client.send("ping")
        for type_, data, _ in client.read_until("pong")[:-1]:
            print(json.dumps({"type": type_, "data": data}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
