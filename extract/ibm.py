"""IBM Cloud: registered so that every run says why its GPU prices (Gaudi 3 among them) are not
collected yet: no price source was found to build on."""

from __future__ import annotations

from chipcost.extract.base import Checked, not_collected

SOURCE_NAME = "ibm"
PROVIDER = "ibm"
# IBM's VPC API lists instance profiles (gx3d-160x1792x8gaudi3: 8 Intel Gaudi 3; gx3d-...x8h100,
# x8h200, x8mi300x; gx3-...l40s, l4) with no price; SkyPilot's fetcher writes a price of 0 for
# every one ("The pricing API doesn't return prices for instance.profile"). Prices live in IBM's
# Global Catalog, under entries whose ids for VPC profiles no recording or document shows, and
# no public IBM GPU price was found to check a parser against (docs/sources.md, "ibm").
GLOBAL_CATALOG = "https://globalcatalog.cloud.ibm.com/api/v1"
NOT_COLLECTED = (
    "no price source yet: IBM's VPC API lists GPU profiles (Gaudi 3, H100, H200, MI300X, L40S, "
    "L4) without prices, and the Global Catalog entries that price them were found in no "
    "recording or document; IBM Cloud prices are not collected (docs/sources.md, ibm)"
)


SOURCE = not_collected(
    SOURCE_NAME,
    PROVIDER,
    description=(
        "IBM Cloud: not collected, always skipped: its VPC API lists GPU profiles (Gaudi 3 "
        "among them) without prices, and no priced source was found (docs/sources.md)"
    ),
    reason=NOT_COLLECTED,
    title="IBM Cloud",
    checked=Checked(
        asks="nothing (registered, not collected)",
    ),
    layout="not collected (no price API to read)",
)
fetch, parse = SOURCE.fetch, SOURCE.parse
