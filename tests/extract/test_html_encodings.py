"""Pages in encodings browsers read: each web source yields its recorded offers from its
recorded page re-encoded as UTF-16 with a byte order mark, as windows-1252 with no
declaration, as windows-1252 declared by `<meta charset="iso-8859-1">` (which browsers read as
windows-1252), and as windows-1252 named by the answer's Content-Type over a `<meta>` saying
UTF-8. The sniffing order itself (extract/_html_encoding.py) is checked on small pages."""

from __future__ import annotations

import codecs
import dataclasses
import re

import pytest

from chipcost.archive import ArchiveWriter, read_payloads
from chipcost.core.errors import ParseError
from chipcost.extract import modal
from chipcost.extract._html_encoding import PRESCAN_BYTES, decode_html
from chipcost.extract.base import FetchContext
from tests.extract.test_html_pages import RECORDED, _grown, _page, _said
from tests.fault_server import fault_server, respond

META_UTF8 = re.compile(r"""<meta charset=["']?utf-8["']?\s*/?>""", re.IGNORECASE)
CAFE = "<p>caf\xe9</p>"  # é: one byte in windows-1252, never a whole UTF-8 sequence alone


def _declaring(page: str, label: str | None) -> str:
    """The page with its `<meta charset>` naming `label` (first, after any doctype), or with
    none when `label` is None."""
    page = META_UTF8.sub("", page)
    if label is None:
        return page
    doctype = re.match(r"<!DOCTYPE html>", page, re.IGNORECASE)
    at = doctype.end() if doctype else 0
    return f'{page[:at]}<meta charset="{label}">{page[at:]}'


def _windows_1252(page: str) -> bytes:
    data = _grown(page, CAFE).encode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # read as UTF-8 it would fail: the encoding is what is tried
    return data


def _stray_byte(page: str) -> bytes:
    """The page in UTF-8 with one byte no UTF-8 sequence holds (a `caf\xe9` pasted in)."""
    data = _grown(page, "<p>caf\x00</p>").encode().replace(b"caf\x00", b"caf\xe9")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    return data


ENCODED = {
    "UTF-16LE with a BOM": lambda page: codecs.BOM_UTF16_LE + page.encode("utf-16-le"),
    "UTF-16BE with a BOM": lambda page: codecs.BOM_UTF16_BE + page.encode("utf-16-be"),
    "UTF-8 with a BOM": lambda page: codecs.BOM_UTF8 + page.encode(),
    "windows-1252, undeclared": lambda page: _windows_1252(_declaring(page, None)),
    "UTF-8 with a stray byte, undeclared": lambda page: _stray_byte(_declaring(page, None)),
    '<meta charset="iso-8859-1">': lambda page: _windows_1252(_declaring(page, "iso-8859-1")),
    "<meta http-equiv> windows-1252": lambda page: _windows_1252(
        _declaring(page, None).replace(
            "<", '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><', 1
        )
    ),
}


@pytest.mark.parametrize("encode", ENCODED.values(), ids=ENCODED)
@pytest.mark.parametrize("module_name", sorted(RECORDED))
def test_a_page_in_an_encoding_browsers_read_yields_the_recorded_offers(module_name, encode):
    module, payload, page = _page(module_name)
    name = RECORDED[module_name]
    recorded = module.parse([payload(name)])
    assert recorded.records
    assert _said(module.parse([payload(name, data=encode(page))])) == _said(recorded)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("module_name", sorted(RECORDED))
def test_a_page_in_utf16_without_a_bom_is_said_unreadable_not_a_changed_layout(module_name, codec):
    """UTF-16 with no byte order mark and no charset (browsers do not read it as UTF-16
    either): every other byte 0. On c96d2408 crusoe said `changed layout: it has no 'gpu
    instances pricing' section`, the other sources their own layout's words."""
    module, payload, page = _page(module_name)
    with pytest.raises(ParseError) as refused:
        module.parse([payload(RECORDED[module_name], data=page.encode(codec))])
    said = str(refused.value)
    assert "in an encoding that could not be read" in said
    assert f"UTF-16{codec[-2:].upper()}" in said and "without a byte order mark" in said
    assert "layout" not in said


@pytest.mark.parametrize("module_name", sorted(RECORDED))
def test_the_answers_charset_is_read_before_the_pages_meta(module_name):
    """Content-Type: text/html; charset=windows-1252 on a page whose <meta> says UTF-8: the
    header wins, as in a browser (a `—` read as UTF-8 would be U+FFFD)."""
    module, payload, page = _page(module_name)
    name = RECORDED[module_name]
    recorded = module.parse([payload(name)])
    data = _grown(_declaring(page, "utf-8"), CAFE).encode("cp1252")
    served = dataclasses.replace(payload(name, data=data), charset="windows-1252")
    assert _said(module.parse([served])) == _said(recorded)


def test_a_fetched_pages_charset_is_archived_and_read_on_replay(tmp_path, monkeypatch):
    """Through a local server: the page in windows-1252, its <meta> saying UTF-8, served as
    `text/html; charset=windows-1252`; the manifest keeps the charset and the replay reads
    the page by it."""
    _, payload, page = _page("modal")
    recorded = modal.parse([payload(RECORDED["modal"])])
    data = _grown(_declaring(page, "utf-8"), CAFE).encode("cp1252")
    served = respond(200, data, {"Content-Type": "text/html; charset=windows-1252"})
    with fault_server(served) as server:
        monkeypatch.setattr(modal, "PAGE_URL", f"{server.url}/pricing")
        archive = ArchiveWriter(tmp_path, "2026-11-16T060000Z", "modal")
        fetched = modal.fetch(FetchContext(archive=archive))
    assert [p.charset for p in fetched] == ["windows-1252"]
    assert archive.manifest["payloads"][0]["charset"] == "windows-1252"
    replayed = read_payloads(tmp_path / "2026-11-16T060000Z", "modal")
    assert [p.charset for p in replayed] == ["windows-1252"]
    assert _offers(modal.parse(replayed)) == _offers(recorded)
    # Without the header, the <meta> rules: é and — are U+FFFD, the page's own words differ.
    assert "\ufffd" in decode_html(replayed[0].data)


def _offers(result) -> list[tuple]:
    """The prices and what they are of, without their provenance (the server's URL, the run)."""
    said = [(r.sku, r.chip, r.pricing_model, r.price_per_hour, r.extra) for r in result.records]
    return sorted(said, key=repr)


CASES = {
    "a UTF-8 page is read as it is": (b"<p>caf\xc3\xa9 \xe2\x80\x94", "", "<p>café —"),
    "a BOM wins over the header and the meta": (
        codecs.BOM_UTF16_LE + '<meta charset="koi8-r"><p>café'.encode("utf-16-le"),
        "windows-1251",
        '<meta charset="koi8-r"><p>café',
    ),
    "the header wins over the meta": (b'<meta charset="utf-8"><p>caf\xe9', "latin1", "café"),
    "a header label browsers lack is ignored": (b'<meta charset="koi8-r">\xc1', "utf-7", "а"),
    "the first meta that names a known label wins": (
        b'<meta charset="utf-7"><meta http-equiv=content-type content="text/html;charset=koi8-r">'
        b'<meta charset="utf-8">\xc1',
        "",
        "а",
    ),
    "a meta in a comment or an attribute is not read": (
        b'<!-- <meta charset="koi8-r"> --><p title=\'<meta charset="koi8-r">\'>caf\xe9',
        "",
        "café",
    ),
    "a meta saying UTF-16 is read as UTF-8": (b'<meta charset="utf-16">caf\xc3\xa9', "", "café"),
    "an undeclared page that is not UTF-8 is windows-1252": (b"\x80 \x81 \x9f", "", "€ \x81 Ÿ"),
    "a byte UTF-8 cannot read, declared UTF-8, is U+FFFD": (
        b'<meta charset="UTF-8">caf\xe9',
        "",
        "caf\ufffd",
    ),
    "a label is trimmed and read in any case": (b"<meta charset=' ISO-8859-1 '>\xe9", "", "é"),
}


@pytest.mark.parametrize(("data", "charset", "text"), CASES.values(), ids=CASES)
def test_the_sniffing_order(data, charset, text):
    assert decode_html(data, charset).endswith(text)


def test_a_meta_past_the_first_1024_bytes_is_not_read():
    late = b"<p>" + b" " * PRESCAN_BYTES + b'<meta charset="koi8-r">\xc1'
    assert decode_html(late).endswith("\xc1")  # windows-1252 (not UTF-8), not koi8-r's а
    early = b"<p>" + b" " * (PRESCAN_BYTES - 40) + b'<meta charset="koi8-r">\xc1'
    assert decode_html(early).endswith("а")


def test_a_page_declaring_an_encoding_browsers_read_as_no_text_is_refused_naming_it():
    module, payload, page = _page("modal")
    data = _declaring(page, "hz-gb-2312").encode()
    with pytest.raises(ParseError) as refused:
        module.parse([payload(RECORDED["modal"], data=data)])
    said = str(refused.value)
    assert "'hz-gb-2312'" in said and "pricing.html" in said and "\n" not in said
