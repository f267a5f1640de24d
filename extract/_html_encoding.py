"""A web page's bytes decoded as browsers decode them (WHATWG HTML, "determining the character
encoding"): a byte order mark, else the charset the answer's Content-Type declared, else a
`<meta>` charset in the page's first 1024 bytes, else UTF-8 when the bytes are (mostly) UTF-8
and windows-1252 when they are not. Labels are the WHATWG Encoding Standard's
(encoding.spec.whatwg.org, "Names and labels"): `iso-8859-1`, `latin1` and `ascii` are
windows-1252 there, as browsers read them, and a label outside the standard (`utf-7`) is
ignored as browsers ignore it. A byte an encoding cannot decode is U+FFFD, as in a browser.
"""

from __future__ import annotations

import codecs
import re

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload

# Each WHATWG encoding as the Python codec that reads it, and the labels that name it. GBK is
# read by the gb18030 decoder, Big5 with HKSCS, Shift_JIS as Windows-31J and EUC-KR as
# windows-949, as the standard's own decoders read them.
_ENCODINGS = (
    ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    ("cp866", "866 cp866 csibm866 ibm866"),
    ("iso8859_2", "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 l2 latin2"),
    ("iso8859_2", "iso_8859-2:1987"),
    ("iso8859_3", "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 l3 latin3"),
    ("iso8859_3", "iso_8859-3:1988"),
    ("iso8859_4", "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 l4 latin4"),
    ("iso8859_4", "iso_8859-4:1988"),
    ("iso8859_5", "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595"),
    ("iso8859_5", "iso_8859-5 iso_8859-5:1988"),
    ("iso8859_6", "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114"),
    ("iso8859_6", "iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596"),
    ("iso8859_6", "iso_8859-6 iso_8859-6:1987"),
    ("iso8859_7", "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126"),
    ("iso8859_7", "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek"),
    ("iso8859_8", "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138"),
    ("iso8859_8", "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual"),
    ("iso8859_8", "csiso88598i iso-8859-8-i logical"),
    ("iso8859_10", "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6"),
    ("iso8859_13", "iso-8859-13 iso8859-13 iso885913"),
    ("iso8859_14", "iso-8859-14 iso8859-14 iso885914"),
    ("iso8859_15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    ("iso8859_16", "iso-8859-16"),
    ("koi8_r", "cskoi8r koi koi8 koi8-r koi8_r"),
    ("koi8_u", "koi8-ru koi8-u"),
    ("mac_roman", "csmacintosh mac macintosh x-mac-roman"),
    ("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    ("cp1250", "cp1250 windows-1250 x-cp1250"),
    ("cp1251", "cp1251 windows-1251 x-cp1251"),
    ("windows-1252", "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1"),
    ("windows-1252", "iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1"),
    ("windows-1252", "us-ascii windows-1252 x-cp1252"),
    ("cp1253", "cp1253 windows-1253 x-cp1253"),
    ("cp1254", "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9"),
    ("cp1254", "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254"),
    ("cp1255", "cp1255 windows-1255 x-cp1255"),
    ("cp1256", "cp1256 windows-1256 x-cp1256"),
    ("cp1257", "cp1257 windows-1257 x-cp1257"),
    ("cp1258", "cp1258 windows-1258 x-cp1258"),
    ("mac_cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    ("gb18030", "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58"),
    ("gb18030", "x-gbk gb18030"),
    ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    ("iso2022_jp", "csiso2022jp iso-2022-jp"),
    ("cp932", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"),
    ("cp949", "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989"),
    ("cp949", "ksc5601 ksc_5601 windows-949"),
    ("utf-16-be", "unicodefffe utf-16be"),
    ("utf-16-le", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"),
    ("replacement", "csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement"),
    ("x-user-defined", "x-user-defined"),
)
LABELS = {label: codec for codec, labels in _ENCODINGS for label in labels.split()}
BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
# windows-1252 as the standard reads it: the five bytes Python's cp1252 leaves undefined (0x81,
# 0x8D, 0x8F, 0x90, 0x9D) are the C1 controls of the same number, not errors.
_C1 = "chipcost-whatwg-windows-1252"
codecs.register_error(_C1, lambda exc: (chr(exc.object[exc.start]), exc.start + 1))  # type: ignore[index]
# x-user-defined: ASCII, and each byte past 127 a private-use character (U+F780 + byte - 0x80).
_USER_DEFINED = str.maketrans({chr(b): chr(0xF700 + b) for b in range(0x80, 0x100)})
# The prescan's pieces, read over the first 1024 bytes as Latin-1 (one character a byte).
PRESCAN_BYTES = 1024
_PIECE = re.compile(
    r"<!--.*?(?:-->|$)|(?P<meta><meta[\s/])|(?P<tag></?[A-Za-z][^\s>]*)|<[!/?][^>]*>?", re.S | re.I
)
_ATTR = re.compile(r"""[\s/]*([^\s/>=]+)\s*(?:=\s*("[^"]*"?|'[^']*'?|[^\s>]*))?""")
_CHARSET_IN = re.compile(r"""charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))""", re.I)


class PageText(str):
    """A page's text that knows the payload it was read from (`where`: its URL and archived
    file), so that a refusal of the page names them (parse_html's of a page nested too deep)."""

    where: str = ""


def html_text(payload: Payload) -> PageText:
    """A web page's text as a browser reads it from its bytes (and the charset its answer
    declared, where the archive kept it)."""
    try:
        text = PageText(decode_html(payload.data, payload.charset))
        _readable(text, payload.data)
        text.where = f"{payload.url} (archived as {payload.ref or payload.name or '?'})"
        return text
    except ValueError as exc:
        raise ParseError(
            f"payload {payload.ref or payload.name or '?'} ({payload.url}) {exc}: report a "
            "format change"
        ) from exc


# The start of a page read for NULs, and the share of them that says it was not read as text.
NUL_SAMPLE = 4096
NUL_SHARE = 0.25


def _readable(text: str, data: bytes) -> None:
    """ValueError for a page whose text is mostly NULs: every other byte 0, UTF-16 sent with
    no byte order mark and no charset saying so (browsers do not read it as UTF-16 either).
    Read as UTF-8 its tags are "<\x00h\x00t\x00m\x00l": any parser would say the page has
    none of what it looks for, a changed layout, where it is an encoding no one could read."""
    sample = text[:NUL_SAMPLE]
    if not sample or sample.count("\0") < NUL_SHARE * len(sample):
        return
    head = data[:NUL_SAMPLE]
    odd = head[1::2].count(0) > head[0::2].count(0)  # "<\0": little-endian
    raise ValueError(
        f"is in an encoding that could not be read: {sample.count(chr(0)):,} of its first "
        f"{len(sample):,} characters are NUL, every other byte 0, as in UTF-16"
        f"{'LE' if odd else 'BE'} sent without a byte order mark or a charset saying so "
        "(browsers do not read it as UTF-16 either); not read as a page"
    )


def decode_html(data: bytes, charset: str = "") -> str:
    """`data` decoded by the WHATWG sniffing order; ValueError for a page declaring one of the
    encodings browsers read as no text (ISO-2022-KR, HZ: the standard's "replacement")."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom) :], codec, "")
    label = _label(charset)
    if label:
        return _decode(data, LABELS[label], label)
    label = _meta_label(data[:PRESCAN_BYTES])
    if label:
        codec = LABELS[label]
        # A page cannot say it is UTF-16 in bytes read as ASCII; x-user-defined is a script's.
        codec = {"utf-16-be": "utf-8", "utf-16-le": "utf-8"}.get(codec, codec)
        return _decode(data, "windows-1252" if codec == "x-user-defined" else codec, label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _undeclared(data)


def _undeclared(data: bytes) -> str:
    """A page that declares nothing and is not UTF-8 throughout: UTF-8 still where it is
    mostly UTF-8 (more whole multi-byte sequences than stray bytes: a page written in UTF-8
    with a stray byte, each such byte U+FFFD), as Firefox's and Chrome's detectors read it;
    else windows-1252, the standard's fallback for a page in a Western language."""
    text = data.decode("utf-8", errors="replace")
    stray = text.count("\ufffd") - data.count("\ufffd".encode())
    whole = sum(1 for c in text if c > "\x7f") - stray - data.count("\ufffd".encode())
    return text if whole > stray else _decode(data, "windows-1252", "")


def _label(said: str | None) -> str:
    """A label of the standard, trimmed and lower-cased, or "" for none or one it lacks."""
    label = (said or "").strip("\t\n\f\r ").lower()
    return label if label in LABELS else ""


def _decode(data: bytes, codec: str, label: str) -> str:
    if codec == "windows-1252":
        return data.decode("cp1252", errors=_C1)
    if codec == "x-user-defined":
        return data.decode("latin-1").translate(_USER_DEFINED)
    if codec == "replacement":
        raise ValueError(
            f"declares charset {label!r}, which browsers read as no text (WHATWG's "
            "replacement encoding)"
        )
    return data.decode(codec, errors="replace")


def _meta_label(head: bytes) -> str:
    """The charset the first `<meta>` of the prescan declares, by the standard's prescan: a
    `charset` attribute, or `http-equiv="content-type"` with a `content` naming one."""
    text, at = head.decode("latin-1"), 0
    while (piece := _PIECE.search(text, at)) is not None:
        at = piece.end()
        if piece.group("meta"):
            attrs, at = _attributes(text, at)
            if label := _meta_charset(attrs):
                return label
        elif piece.group("tag"):
            _, at = _attributes(text, at)  # another tag: its attributes are skipped
    return ""


def _attributes(text: str, at: int) -> tuple[dict[str, str], int]:
    """A tag's attributes from `at` to its `>` (the first of each name), and where it ends."""
    attrs: dict[str, str] = {}
    while at < len(text) and text[at] != ">":
        match = _ATTR.match(text, at)
        if match is None or match.end() == at:
            at += 1
            continue
        name, value = match.group(1).lower(), match.group(2) or ""
        attrs.setdefault(name, value.strip("\"'"))
        at = match.end()
    return attrs, at + 1


def _meta_charset(attrs: dict[str, str]) -> str:
    if "charset" in attrs:
        return _label(attrs["charset"])
    if attrs.get("http-equiv", "").lower() == "content-type":
        found = _CHARSET_IN.search(attrs.get("content", ""))
        return _label(next((g for g in found.groups() if g is not None), "")) if found else ""
    return ""
