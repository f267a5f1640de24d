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
