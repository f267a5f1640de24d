"""Where the tests find the repository and its recorded payloads, from any test folder."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
