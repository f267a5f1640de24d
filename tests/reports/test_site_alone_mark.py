"""The mark beside a price of the GPU alone has one home, chipcost.core.vocabulary.ALONE_MARK:
`chipcost index` writes it beside a level, and the price explorer's page carries it to its
script (`data-alone-mark` on the table) and its legend, where on 710db2b4 the script wrote its
own ' (GPU alone)' beside the index's constant. The bundled sample's explorer, made with the
mark changed: daytona's offers, priced alone, show the page's mark and no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.cli.commands import price_index
from chipcost.core import vocabulary
from chipcost.reports import explorer_page
from chipcost.reports.site import write_site
from tests import warehouses
from tests.browser import needs_chromium

OTHER = " (GPU only)"


def test_the_index_and_the_page_take_the_one_mark():
    assert price_index.ALONE_MARK is vocabulary.ALONE_MARK is explorer_page.ALONE_MARK
    script = Path(explorer_page.__file__).parent / "assets" / "explorer.js"
    assert "(GPU alone)" not in script.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("alone-mark")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explorer_page, "ALONE_MARK", OTHER)
        write_site(warehouses.sample(root / "w.duckdb"), root / "site")
    return root / "site"


def test_the_page_carries_the_mark_to_its_legend(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    assert f'data-alone-mark="{OTHER}"' in page and f"<dt>{OTHER.strip()}</dt>" in page
    assert "(GPU alone)" not in page


@needs_chromium
def test_the_cells_show_the_mark_the_page_carries(browser, site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri() + "#view=offer&provider=daytona")
        page.reload()
        cells = page.eval_on_selector_all(
            "#offers tbody td", "tds => tds.map((td) => td.textContent)"
        )
        marked = [cell for cell in cells if OTHER in cell]
        assert marked and all(cell.endswith(OTHER) for cell in marked), marked
        assert not [cell for cell in cells if "GPU alone" in cell]
    finally:
        context.close()
