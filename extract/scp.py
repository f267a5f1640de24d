"""Samsung Cloud Platform (Samsung SDS): registered so that every run says why its GPU server
prices are not collected yet: no price answer was found to build on."""

from __future__ import annotations

from chipcost.extract.base import Checked, not_collected

SOURCE_NAME = "scp"
PROVIDER = "scp"
# SCP's OpenAPI (requests signed with an access key, a secret key and a project id) has product
# endpoints (`/product/v2/zones/{serviceZoneId}/products`, `/product/v2/product-groups?
# forCalculator=...`), but no recording or document shows a price in their answers; SkyPilot
# has no SCP fetcher and its SCP catalog, with GPU server prices (V100 32GB, A100 80GB in
# KOREA-WEST-1), was written by hand; Samsung publishes no price list to read
# (docs/sources.md, "scp").
OPENAPI = "https://openapi.samsungsdscloud.com"
NOT_COLLECTED = (
    "no price source yet: Samsung Cloud Platform's OpenAPI lists GPU servers and products, but "
    "no recorded answer or document shows their prices, and no public price list was found; "
    "SCP prices are not collected (docs/sources.md, scp)"
)


SOURCE = not_collected(
    SOURCE_NAME,
    PROVIDER,
    description=(
        "Samsung Cloud Platform (Samsung SDS): not collected, always skipped: its OpenAPI shows "
        "no GPU server price in any recorded answer, and no price list was found (docs/sources.md)"
    ),
    reason=NOT_COLLECTED,
    title="Samsung Cloud Platform",
    checked=Checked(
        asks="nothing (registered, not collected)",
    ),
    layout="not collected (no price API to read)",
)
fetch, parse = SOURCE.fetch, SOURCE.parse
