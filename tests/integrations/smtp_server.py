"""A small real SMTP server for tests: it listens on a port of 127.0.0.1, speaks enough SMTP for smtplib (EHLO,
MAIL, RCPT, DATA, RSET, NOOP, QUIT), and keeps every email it took (a 250 after the final dot), by Message-ID.

What it does at the moment that matters is the test's to choose, through `after_dot(message_id)`:
- "take": keep it and answer 250 (the default);
- "take and hang up": keep it, then close the connection without answering (the client can't tell it went);
- "refuse": answer 554, keep nothing.
With `stall_after(message_id)` true, it answers that session's QUIT only once the test lets it: the client that sent
the email sits after the hand-off, before it can write anything down, for as long as the test likes. Each such
stop is put on `stalled` as (message_id, event): set the event to let the session end.
"""

from __future__ import annotations

import email
import queue
import socket
import threading
from collections import Counter
from email import policy


class SmtpServer:
    def __init__(self, *, after_dot=None, stall_after=None):
        self.after_dot = after_dot or (lambda message_id: "take")
        self.stall_after = stall_after or (lambda message_id: False)
        self.taken: list[str] = []  # Message-IDs, in the order taken
        self.stalled: queue.Queue = queue.Queue()
        self._releases: list[threading.Event] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._closed = True
        for release in self._releases:
            release.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way; close alone leaves it listening
        except OSError:
            pass
        self._sock.close()
        self._thread.join(timeout=5)

    def deliveries(self) -> Counter:
        with self._lock:
            return Counter(self.taken)

    def _serve(self):
        while not self._closed:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(client,), daemon=True).start()

    def _session(self, client: socket.socket):
        reader = client.makefile("rb")

        def say(line: str):
            client.sendall(line.encode() + b"\r\n")

        last = ""
        try:
            say("220 test.smtp ESMTP")
            while True:
                line = reader.readline()
                if not line:
                    return
                verb = line.decode("ascii", "replace").strip().split(" ", 1)[0].upper()
                if verb == "EHLO":
                    client.sendall(b"250-test.smtp\r\n250 8BITMIME\r\n")
                elif verb in ("HELO", "MAIL", "RCPT", "RSET", "NOOP"):
                    say("250 OK")
                elif verb == "DATA":
                    say("354 End data with <CR><LF>.<CR><LF>")
                    lines = []
                    while True:
                        part = reader.readline()
                        if not part:
                            return  # the client went before the final dot: nothing was taken
                        if part == b".\r\n":
                            break
                        lines.append(part[1:] if part.startswith(b"..") else part)
                    message = email.message_from_bytes(b"".join(lines), policy=policy.default)
                    message_id = str(message.get("Message-ID", "")).strip()
                    action = self.after_dot(message_id)
                    if action == "refuse":
                        say("554 Not taken")
                        continue
                    with self._lock:
                        self.taken.append(message_id)
                    last = message_id
                    if action == "take and hang up":
                        return
                    say("250 OK queued")
                elif verb == "QUIT":
                    if last and self.stall_after(last):
                        release = threading.Event()
                        self._releases.append(release)
                        self.stalled.put((last, release))
                        release.wait()
                    say("221 Bye")
                    return
                else:
                    say("502 Not implemented")
        except OSError:
            return
        finally:
            try:
                client.close()
            except OSError:
                pass
