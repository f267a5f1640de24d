"""Sending over SMTP within a deadline, and saying what happened in words a user can act on.

A failure is told apart by when it happened: before the server had the message (nothing was
delivered: fix and send again), or after the whole message was sent and before the server
confirmed it (it may have been delivered: check before sending again). A timeout is told
apart from a closed connection.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
import time
from email.message import EmailMessage

from chipcost.core.commands import suggested
from chipcost.core.questions import COMMAND_LINE
from chipcost.reports import mail
from chipcost.reports.mail import EmailError, MaybeDelivered, RecipientsRefused, SmtpSettings


class _Deadline:
    """Shuts the connection down when the whole exchange runs past its time.

    A socket timeout bounds each read, not their sum: a server sending its greeting a byte
    every 20 s never trips a 30 s timeout. Shutting the socket down from a timer ends the
    read in progress, whatever it is waiting for.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self._watched: socket.socket | None = None
        self._timer: threading.Timer | None = None

    def left(self) -> float:
        return max(0.1, self.end - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the descriptor: TLS may wrap (and detach) the original later.
        self._watched = sock.dup()
        self._timer = threading.Timer(self.left(), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        if self._watched is not None:
            try:
                self._watched.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._watched is not None:
            self._watched.close()


class _Client(smtplib.SMTP):
    """smtplib's client under a deadline, knowing what stage of the exchange it is in."""

    def __init__(self, settings: SmtpSettings, deadline: _Deadline) -> None:
        self.settings = settings
        self.deadline = deadline
        self.stage = "while connecting"
        self.handed_over = False  # the whole message, final dot included, has been sent
        super().__init__(timeout=mail.SMTP_TIMEOUT)
        self._host = settings.host  # the name STARTTLS checks the certificate against

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = socket.create_connection(
            (host, port), min(timeout, self.deadline.left()), self.source_address
        )
        self.deadline.watch(sock)
        if self.settings.tls == "ssl":
            self.stage = "while starting TLS"
            sock = _tls_context(self.settings).wrap_socket(sock, server_hostname=host)
        self.stage = "before its greeting"
        return sock

    def getreply(self) -> tuple[int, bytes]:
        reply = super().getreply()
        if self.deadline.expired:  # a reply cut short by the deadline is no reply
            raise smtplib.SMTPServerDisconnected("the deadline passed")
        return reply

    def send(self, s: bytes | str) -> None:
        super().send(s)
        # smtplib sends the message and its final "." line in one piece: once that left,
        # the server may deliver it even if we never hear its reply.
        if isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):
            self.handed_over = True
            self.stage = "before confirming the message"


def _tls_context(settings: SmtpSettings) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=settings.ca_file)


def send(message: EmailMessage, settings: SmtpSettings, recipients: list[str]) -> None:
    """Send over SMTP; every failure becomes an EmailError that says what to check.

    MaybeDelivered: the connection ended after the whole message was sent; RecipientsRefused:
    the server refused some recipients and delivered to the others.
    """
    if not recipients:
        said = COMMAND_LINE.said("email", "ADDRESS")
        raise EmailError(f"no recipients: pass {said} (or the flow's recipients)")
    deadline = _Deadline(mail.SMTP_DEADLINE)
    client = _Client(settings, deadline)
    try:
        refused = _exchange(client, message, settings, recipients)
    except (smtplib.SMTPException, OSError) as exc:
        raise _failure(exc, client, deadline) from None
    finally:
        deadline.close()
        client.close()
    if refused:
        raise RecipientsRefused(
            f"the SMTP server refused some recipients: {_refusals(refused)}", list(refused)
        )


def _exchange(
    client: _Client, message: EmailMessage, settings: SmtpSettings, recipients: list[str]
) -> dict:
    code, reply = client.connect(settings.host, settings.port)
    if code != 220:
        raise smtplib.SMTPConnectError(code, reply)
    if settings.tls == "starttls":
        client.stage = "while starting TLS"
        try:
            client.starttls(context=_tls_context(settings))
        except smtplib.SMTPNotSupportedError:
            raise EmailError(
                f"the SMTP server {settings.address} does not offer STARTTLS: set "
                "CHIPCOST_SMTP_TLS=ssl (usually port 465), or none on a trusted network"
            ) from None
    if settings.user:
        client.stage = "while logging in"
        client.login(settings.user, settings.password or "")
    client.stage = "before accepting the message"
    refused = client.send_message(message, settings.sender, recipients)
    try:
        client.quit()
    except (smtplib.SMTPException, OSError):
        pass  # the message is accepted: a server that hangs up on QUIT changes nothing
    return refused


def _failure(exc: Exception, client: _Client, deadline: _Deadline) -> EmailError:
    settings = client.settings
    where = f"the SMTP server {settings.address}"
    timed_out = deadline.expired or _is_timeout(exc)
    if client.handed_over and isinstance(exc, smtplib.SMTPServerDisconnected | OSError):
        how = "stopped answering" if timed_out else "closed the connection"
        return MaybeDelivered(
            f"{where} {how} after receiving the whole message, before confirming it: it may "
            "have been delivered. Ask a recipient before sending again "
            f"({suggested('report', force=True)} sends it again)"
        )
    if deadline.expired:
        return EmailError(
            f"{where} timed out: the exchange took longer than {deadline.seconds:g} s "
            f"(stuck {client.stage}); nothing was sent. Check that it is a working SMTP relay"
        )
    if timed_out:
        return EmailError(
            f"{where} timed out: no answer within {mail.SMTP_TIMEOUT:g} s {client.stage}; "
            "nothing was sent. A server on a TLS port (465) waits silently for TLS: check "
            "the port and CHIPCOST_SMTP_TLS (ssl for port 465, starttls for 587)"
        )
    return _refusal(exc, client) or _network(exc, where, client.stage)


def _is_timeout(exc: BaseException) -> bool:
    # smtplib turns a read timeout into SMTPServerDisconnected; the timeout is its context.
    return isinstance(exc, TimeoutError) or isinstance(exc.__context__, TimeoutError)


def _refusal(exc: Exception, client: _Client) -> EmailError | None:
    settings = client.settings
    where = f"the SMTP server {settings.address}"
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return EmailError(
            f"{where} refused the login of {settings.user!r} ({exc.smtp_code}): check "
            "CHIPCOST_SMTP_USER and CHIPCOST_SMTP_PASSWORD"
        )
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return RecipientsRefused(
            f"the SMTP server refused every recipient: {_refusals(exc.recipients)}",
            list(exc.recipients),
        )
    if isinstance(exc, smtplib.SMTPConnectError):
        return EmailError(
            f"{where} refused the connection ({exc.smtp_code} {_text(exc.smtp_error)}): "
            "nothing was sent; try again later or ask the relay's administrator"
        )
    if isinstance(exc, smtplib.SMTPResponseException):
        return EmailError(
            f"{where} refused the message ({exc.smtp_code} {_text(exc.smtp_error)}): "
            "nothing was sent"
        )
    return None


def _network(exc: Exception, where: str, stage: str) -> EmailError:
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return EmailError(
            f"{where} closed the connection {stage}; nothing was sent. Check the port and "
            "CHIPCOST_SMTP_TLS (ssl for port 465, starttls for 587)"
        )
    if isinstance(exc, ssl.SSLError):
        return EmailError(
            f"TLS with {where} failed ({exc.reason}): check CHIPCOST_SMTP_TLS, or "
            "CHIPCOST_SMTP_CA_FILE for a private certificate authority"
        )
    if isinstance(exc, smtplib.SMTPException):
        return EmailError(f"{where} refused the message: {exc}")
    return EmailError(f"cannot reach {where}: {exc}")


def _text(reply: bytes | str) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else str(reply)


def _refusals(refused: dict) -> str:
    return "; ".join(f"{addr} ({code} {_text(reply)})" for addr, (code, reply) in refused.items())
