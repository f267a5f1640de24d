"""E-mail: SMTP settings from the environment (or a secret), the MIME message, sending."""

from __future__ import annotations

import email.policy
import mimetypes
import os
import smtplib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path

from chipcost.core.errors import ChipcostError

ENV_PREFIX = "CHIPCOST_SMTP_"
TLS_MODES = ("starttls", "ssl", "none")
DEFAULT_PORTS = {"starttls": 587, "ssl": 465, "none": 25}
DRY_RUN_SENDER = "chipcost <chipcost@localhost>"
# Headers unfolded up to 200 characters (RFC 5322 allows 998): the standard library's folding
# of a subject near 78 characters around "−8%" doubles a space or leaves an empty encoded word.
MAIL_POLICY = email.policy.SMTP.clone(max_line_length=200)
# Seconds for connecting and for each SMTP reply: a dead relay fails the run, not hangs it.
SMTP_TIMEOUT = 30


class EmailError(ChipcostError):
    """The message could not be sent (settings, connection, login or refusal)."""


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to send. The password never appears in repr, logs or messages."""

    host: str
    port: int
    sender: str
    tls: str = "starttls"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None  # a private CA for a relay with an internal certificate

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def smtp_settings(values: Mapping[str, object] | None = None) -> SmtpSettings:
    """From a mapping (a Prefect Secret block's value: host, port, user, password, from, tls,
    ca_file) or, for each key it lacks, from CHIPCOST_SMTP_<KEY> environment variables."""
    given = {k.lower(): v for k, v in (values or {}).items()}

    def get(key: str) -> str | None:
        value = given.get(key, os.environ.get(ENV_PREFIX + key.upper()))
        return str(value).strip() if value not in (None, "") else None

    host = get("host")
    if not host:
        raise EmailError(
            "no SMTP server configured: set CHIPCOST_SMTP_HOST (and CHIPCOST_SMTP_PORT, _USER, "
            "_PASSWORD, _FROM, _TLS), or use --dry-run to write the message to a file instead"
        )
    tls = (get("tls") or "starttls").lower()
    if tls not in TLS_MODES:
        raise EmailError(f"CHIPCOST_SMTP_TLS={tls!r} is not one of {', '.join(TLS_MODES)}")
    port_text = get("port") or str(DEFAULT_PORTS[tls])
    if not port_text.isdigit():
        raise EmailError(f"CHIPCOST_SMTP_PORT={port_text!r} is not a port number")
    user = get("user")
    sender = get("from") or (user if user and "@" in user else None)
    if not sender:
        raise EmailError("no sender address: set CHIPCOST_SMTP_FROM (e.g. reports@example.com)")
    return SmtpSettings(host, int(port_text), sender, tls, user, get("password"), get("ca_file"))


def check_recipients(recipients: list[str]) -> list[str]:
    """Addresses as given, or a message naming the first that is not an address."""
    for address in recipients:
        _, addr = parseaddr(address)
        if "@" not in addr or " " in addr:
            raise EmailError(f"{address!r} is not an e-mail address")
    return list(recipients)


def build_message(
    *,
    subject: str,
    sender: str,
    recipients: list[str],
    text: str,
    html: str,
    attachments: list[Path],
) -> EmailMessage:
    """multipart/mixed > (multipart/alternative: text, html) + attachments."""
    message = EmailMessage(policy=MAIL_POLICY)
    message["Subject"] = subject
    message["From"] = sender
    # An RFC 5322 empty group: a dry run may have nobody to address.
    message["To"] = ", ".join(recipients) if recipients else "undisclosed-recipients:;"
    message["Date"] = formatdate(usegmt=True)
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    message["Message-ID"] = make_msgid(domain=domain)
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    for path in attachments:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        maintype, subtype = kind.split("/", 1)
        message.add_attachment(
            path.read_bytes(), maintype=maintype, subtype=subtype, filename=path.name
        )
    return message


def write_eml(message: EmailMessage, path: Path) -> Path:
    path.write_bytes(bytes(message))
    return path


def _tls_context(settings: SmtpSettings) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=settings.ca_file)


def _open(settings: SmtpSettings) -> smtplib.SMTP:
    if settings.tls == "ssl":
        return smtplib.SMTP_SSL(
            settings.host, settings.port, timeout=SMTP_TIMEOUT, context=_tls_context(settings)
        )
    client = smtplib.SMTP(settings.host, settings.port, timeout=SMTP_TIMEOUT)
    if settings.tls == "starttls":
        try:
            client.starttls(context=_tls_context(settings))
        except smtplib.SMTPNotSupportedError:
            client.close()
            raise EmailError(
                f"the SMTP server {settings.address} does not offer STARTTLS: set "
                "CHIPCOST_SMTP_TLS=ssl (usually port 465), or none on a trusted network"
            ) from None
    return client


def send(message: EmailMessage, settings: SmtpSettings, recipients: list[str]) -> None:
    """Send over SMTP; every failure becomes an EmailError that says what to check."""
    if not recipients:
        raise EmailError("no recipients: pass --email ADDRESS (or the flow's recipients)")
    try:
        with _open(settings) as client:
            if settings.user:
                client.login(settings.user, settings.password or "")
            refused = client.send_message(message, settings.sender, recipients)
    except smtplib.SMTPAuthenticationError as exc:
        raise EmailError(
            f"the SMTP server {settings.address} refused the login of {settings.user!r} "
            f"({exc.smtp_code}): check CHIPCOST_SMTP_USER and CHIPCOST_SMTP_PASSWORD"
        ) from None
    except smtplib.SMTPRecipientsRefused as exc:
        raise EmailError(
            f"the SMTP server refused every recipient: {_refusals(exc.recipients)}"
        ) from None
    except smtplib.SMTPServerDisconnected:
        raise EmailError(
            f"the SMTP server {settings.address} closed the connection: check the port and "
            "CHIPCOST_SMTP_TLS (ssl for port 465, starttls for 587)"
        ) from None
    except smtplib.SMTPException as exc:
        raise EmailError(f"the SMTP server {settings.address} refused the message: {exc}") from None
    except ssl.SSLError as exc:
        raise EmailError(
            f"TLS with the SMTP server {settings.address} failed ({exc.reason}): check "
            "CHIPCOST_SMTP_TLS, or CHIPCOST_SMTP_CA_FILE for a private certificate authority"
        ) from None
    except OSError as exc:
        raise EmailError(f"cannot reach the SMTP server {settings.address}: {exc}") from None
    if refused:
        raise EmailError(f"the SMTP server refused some recipients: {_refusals(refused)}")


def _refusals(refused: dict) -> str:
    return "; ".join(
        f"{addr} ({code} {reply.decode(errors='replace')})"
        for addr, (code, reply) in refused.items()
    )
