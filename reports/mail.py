"""E-mail: SMTP settings from the environment (or a secret) and the MIME message."""

from __future__ import annotations

import email.policy
import mimetypes
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, formatdate, getaddresses, make_msgid, parseaddr
from pathlib import Path

from chipcost.core.errors import ChipcostError
from chipcost.core.outputs import written_whole
from chipcost.core.questions import COMMAND_LINE

ENV_PREFIX = "CHIPCOST_SMTP_"
TLS_MODES = ("starttls", "ssl", "none")
DEFAULT_PORTS = {"starttls": 587, "ssl": 465, "none": 25}
DRY_RUN_SENDER = "chipcost <chipcost@localhost>"
# Headers unfolded up to 200 characters (RFC 5322 allows 998): the standard library's folding
# of a subject near 78 characters around "−8%" doubles a space or leaves an empty encoded word.
MAIL_POLICY = email.policy.SMTP.clone(max_line_length=200)
# Seconds for connecting and for each SMTP reply: a dead relay fails the run, not hangs it.
SMTP_TIMEOUT = 30
# Seconds for the whole exchange (connect, greeting, TLS, login, send): a relay that answers
# a byte at a time, each within SMTP_TIMEOUT, must not hold a run for many minutes.
SMTP_DEADLINE = 120


class EmailError(ChipcostError):
    """The message could not be sent (settings, connection, login or refusal)."""


class MaybeDelivered(EmailError):
    """The server had the whole message when the connection ended: it may have delivered it."""


class RecipientsRefused(EmailError):
    """The server refused these recipients (the others, if any, were accepted)."""

    def __init__(self, message: str, refused: list[str]) -> None:
        super().__init__(message)
        self.refused = refused


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
            "_PASSWORD, _FROM, _TLS) or, in a Prefect flow, name a Secret block (smtp_block); "
            f"or write the message to a file instead ({COMMAND_LINE.name('dry_run')}, a flow's "
            "dry_run)"
        )
    tls = (get("tls") or "starttls").lower()
    if tls not in TLS_MODES:
        raise EmailError(f"CHIPCOST_SMTP_TLS={tls!r} is not one of {', '.join(TLS_MODES)}")
    port_text = get("port") or str(DEFAULT_PORTS[tls])
    # isascii: str.isdigit() accepts "²", which int() refuses.
    if not (port_text.isascii() and port_text.isdigit() and 0 < int(port_text) < 65536):
        raise EmailError(f"CHIPCOST_SMTP_PORT={port_text!r} is not a port number (1 to 65535)")
    user = get("user")
    sender = get("from") or (user if user and "@" in user else None)
    if not sender:
        raise EmailError("no sender address: set CHIPCOST_SMTP_FROM (e.g. reports@example.com)")
    check_address(sender, f"the sender CHIPCOST_SMTP_FROM={sender!r}")
    try:  # one address, as a recipient's is checked
        (sender,) = check_recipients([sender])
    except (EmailError, ValueError):
        raise EmailError(
            f"the sender CHIPCOST_SMTP_FROM={_cut(sender)} is not one e-mail address: give one, "
            "e.g. reports@example.com"
        ) from None
    ca_file = _ca_file(get("ca_file"), tls)
    return SmtpSettings(host, int(port_text), sender, tls, user, get("password"), ca_file)


def _ca_file(path: str | None, tls: str) -> str | None:
    """The CA bundle, read once before anything is built or sent: one missing, unreadable or
    holding no certificate is said as the setting's, not as a server that cannot be reached."""
    if path is None or tls == "none":  # no TLS: no certificate to check against it
        return path
    fix = "give a readable CA bundle (PEM), or unset it to trust the system's CAs"
    try:
        ssl.create_default_context(cafile=path)
    except ssl.SSLError:  # an OSError too: said first
        raise EmailError(
            f"CHIPCOST_SMTP_CA_FILE={_cut(path)} holds no certificate (PEM expected): {fix}"
        ) from None
    except OSError as exc:
        raise EmailError(
            f"CHIPCOST_SMTP_CA_FILE={_cut(path)} cannot be read ({exc.strerror}): {fix}"
        ) from None
    return path


def check_address(address: str, what: str = "") -> None:
    """Refuse an address with a control character: a line break in it would add a header (or
    fail the message after the report files are written)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in address):
        raise EmailError(
            f"{what or repr(address)} holds a control character (a line break?): give one plain "
            "address, e.g. finops@example.com"
        )


# What SMTP carries (RFC 5321, 4.5.3.1): a local part of 64 octets, a path of 256 with its
# angle brackets. A longer address is refused before the report is built, not by the server.
MAX_LOCAL_PART = 64
MAX_ADDRESS = 254


def check_recipients(recipients: list[str]) -> list[str]:
    """Each address given (a comma list as a mail client writes one counts as several, a
    name in quotes kept whole: '"Doe, Jo" <jo@example.com>'), or a message naming the first
    that is not an address."""
    found = []
    for given in recipients:
        check_address(given)
        for name, addr in getaddresses([given]):
            if "@" not in addr or " " in addr or not addr.rpartition("@")[0]:
                raise EmailError(f"{_cut(given)} is not an e-mail address")
            addr = _ascii(given, addr)
            if len(addr) > MAX_ADDRESS or len(addr.rpartition("@")[0]) > MAX_LOCAL_PART:
                raise EmailError(
                    f"{_cut(addr)} is longer than an e-mail address can be ({MAX_LOCAL_PART} "
                    f"characters before the @, {MAX_ADDRESS} in all)"
                )
            found.append(formataddr((name, addr)) if name else addr)
    if recipients and not found:
        raise EmailError(f"{_cut(recipients[0])} is not an e-mail address")
    return list(dict.fromkeys(found))


def _ascii(given: str, address: str) -> str:
    """The address as SMTP without its UTF-8 extension carries it: a domain outside ASCII in
    its IDNA form (exämple.com is xn--exmple-cua.com); a name before the @ outside ASCII is
    refused (it needs SMTPUTF8, which chipcost does not send)."""
    local, _, domain = address.rpartition("@")
    if not local.isascii():
        raise EmailError(
            f"{_cut(given)}: the part before the @ holds a letter outside ASCII, which a mail "
            "server takes only with SMTPUTF8 (chipcost does not send it): give an ASCII address"
        )
    if domain.isascii():
        return address
    try:
        return f"{local}@{domain.encode('idna').decode('ascii')}"
    except UnicodeError:
        raise EmailError(f"{_cut(given)}: {domain!r} is no domain name") from None


def _cut(text: str) -> str:
    return repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text):,} characters)"


def build_message(
    *,
    subject: str,
    sender: str,
    recipients: list[str],
    text: str,
    html: str,
    attachments: list[Path],
    message_id: str | None = None,
) -> EmailMessage:
    """multipart/mixed > (multipart/alternative: text, html) + attachments.

    A message_id given (stable_message_id) makes a copy sent again the same message to mail
    clients, which show one; without it every message gets a new one.
    """
    message = EmailMessage(policy=MAIL_POLICY)
    message["Subject"] = subject
    message["From"] = sender
    # An RFC 5322 empty group: a dry run may have nobody to address.
    message["To"] = ", ".join(recipients) if recipients else "undisclosed-recipients:;"
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = message_id or make_msgid(domain=_domain(sender))
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    for path in attachments:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        maintype, subtype = kind.split("/", 1)
        message.add_attachment(
            path.read_bytes(), maintype=maintype, subtype=subtype, filename=path.name
        )
    return message


def _domain(sender: str) -> str:
    return parseaddr(sender)[1].rpartition("@")[2] or "localhost"


def stable_message_id(kind: str, key: str, sender: str) -> str:
    """The same Message-ID for the same report and period: <chipcost.report.KEY@domain>."""
    safe = "".join(c if (c.isascii() and c.isalnum()) or c in "-_." else "-" for c in key)
    return f"<chipcost.{kind}.{safe}@{_domain(sender)}>"


def write_eml(message: EmailMessage, path: Path) -> Path:
    with written_whole([path]) as (done,):
        done.write_bytes(bytes(message))
    return path
