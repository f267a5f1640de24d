"""Real SMTP servers for the e-mail tests: aiosmtpd on a free port, TLS with a test CA."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = "reports@example.com", "correct horse battery"


def free_port() -> int:
    # aiosmtpd cannot use port 0 (its controller connects to itself on start): pick one first.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    content: bytes


@dataclass
class Inbox:
    messages: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 - aiosmtpd hook
        self.messages.append(
            Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content)
        )
        return "250 OK"


def check_login(server, session, envelope, mechanism, auth_data) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (
        auth_data.login.decode(),
        auth_data.password.decode(),
    ) == (USER, PASSWORD)
    # handled=False: aiosmtpd sends the 235 or 535 reply itself.
    return AuthResult(success=ok, handled=False)


def start(inbox: Inbox, **options) -> Controller:
    """An SMTP server on 127.0.0.1 (options go to aiosmtpd: tls_context, ssl_context, ...)."""
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), **options)
    controller.start()
    return controller


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for localhost / 127.0.0.1 and its key (the certificate is its own CA)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    alt = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


class Dropper:
    """A server that greets, reads one command, then hangs up: a relay dropping the line."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"220 test ESMTP\r\n")
                conn.recv(1024)

    def close(self) -> None:
        self.socket.close()


class Scripted:
    """A raw SMTP server on 127.0.0.1 that plays one misbehaviour on every connection.

    `behaviour(conn, server)` runs in a thread per connection; `messages` counts the messages
    a server read to their final dot (what a relay would have queued for delivery).
    """

    def __init__(self, behaviour) -> None:
        self.behaviour = behaviour
        self.messages: list[bytes] = []
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                self.behaviour(conn, self)
            except OSError:
                pass  # the client gave up: that is what these servers provoke

    def close(self) -> None:
        self.closed.set()
        self.socket.close()

    def __enter__(self) -> Scripted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def refuse(conn: socket.socket, server: Scripted) -> None:
    """Greets with a refusal, as a relay out of service does."""
    conn.sendall(b"554 5.3.2 no service here\r\n")


def hang(conn: socket.socket, server: Scripted) -> None:
    """Accepts the connection and never says a word."""
    server.closed.wait(60)


def drip(seconds: float):
    """Sends its greeting one byte every `seconds`: every read is quick, the whole is not."""

    def behaviour(conn: socket.socket, server: Scripted) -> None:
        for byte in b"220 slow.example ESMTP\r\n":
            if server.closed.wait(seconds):
                return
            conn.sendall(bytes([byte]))
        server.closed.wait(60)

    return behaviour


def take_message(conn: socket.socket, server: Scripted) -> None:
    """A plain SMTP dialogue up to the message's final dot, which is kept in `messages`."""
    reader = conn.makefile("rb")
    conn.sendall(b"220 test ESMTP\r\n")
    for line in reader:
        verb = line[:4].upper()
        if verb in (b"EHLO", b"HELO"):
            conn.sendall(b"250-test\r\n250 8BITMIME\r\n")
        elif verb == b"DATA":
            conn.sendall(b"354 go ahead\r\n")
            body = []
            while (data := reader.readline()) not in (b".\r\n", b""):
                body.append(data)
            if data:  # the final dot: the whole message is here
                server.messages.append(b"".join(body))
            return
        else:
            conn.sendall(b"250 OK\r\n")


def drop_after_data(conn: socket.socket, server: Scripted) -> None:
    """Reads the whole message, then hangs up without the 250 that confirms it."""
    take_message(conn, server)


def silent_after_data(conn: socket.socket, server: Scripted) -> None:
    """Reads the whole message, then never confirms it."""
    take_message(conn, server)
    server.closed.wait(60)
