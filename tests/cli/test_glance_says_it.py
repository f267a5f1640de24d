"""`prices --by chip` and `--by provider` say what every offer's row says: your discount beside
the list price, a doubtful spot price marked, a price that is the GPU's alone, where and when
a price was read and the currency its provider states it in; each offer counted once; and in
csv and json the notes the table prints go to stderr. On the sample's newest run replayed."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests import warehouses

# H100-SXM's cheapest offer in the sample is verda's: the rule halves it.
DISCOUNTS = "provider,percent,label\nverda,50,verda deal\n"
GPU_ALONE = "tensordock prices the GPU alone: the host's vCPUs, memory and disk are billed"
DOUBT = "a spot price not below its offer's on-demand price"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("says") / "w.duckdb", last=1))


@pytest.fixture
def discounts(tmp_path) -> dict[str, str]:
    path = tmp_path / "discounts.csv"
    path.write_text(DISCOUNTS, encoding="utf-8")
    return {"CHIPCOST_DISCOUNTS": str(path)}


def _said(text: str) -> str:
    return " ".join(text.split())  # as read, whatever the width wraps it to


def _ran(run, *args: str, env: dict[str, str] | None = None):
    done = run("prices", *args, env={"COLUMNS": "200", **(env or {})})
    assert done.returncode == 0, done.stderr
    return done


def test_a_discounted_glance_keeps_each_list_price_and_says_the_discount(run, db, discounts):
    """On 300ee1a5 `--by chip --format csv` wrote verda's H100-SXM at 0.435 with neither
    its list price nor its discount: a discounted price read as a list price."""
    asked = ("--chip", "H100-SXM", "--db", db)
    by_chip = _ran(run, "--by", "chip", *asked, "--format", "csv", env=discounts)
    (row,) = csv.DictReader(io.StringIO(by_chip.stdout))
    assert row["provider"] == "verda" and row["discount"] == "50% verda deal"
    assert float(row["list_price_per_chip_hour_usd"]) == 2 * float(row["price_per_chip_hour"])
    assert "after your discounts (verda deal: verda 50%" in _said(by_chip.stderr)
    monthly = _ran(run, "--by", "chip", *asked, "--per", "month", "--format", "json", env=discounts)
    (month,) = json.loads(monthly.stdout)
    assert month["list_price_per_chip_month_usd"] == round(2 * month["price_per_chip_month"], 2)
    by_provider = _ran(run, "--by", "provider", *asked, "--format", "json", env=discounts)
    rows = {r["provider"]: r for r in json.loads(by_provider.stdout)}
    verda, aws = rows["verda"], rows["aws"]
    assert verda["list_on_demand_per_chip_hour_usd"] == 2 * verda["on_demand_per_chip_hour"]
    assert verda["spot_discount"] == verda["on_demand_discount"] == "50% verda deal"
    assert aws["on_demand_discount"] is None
    assert aws["list_on_demand_per_chip_hour_usd"] == aws["on_demand_per_chip_hour"]
    table = _said(_ran(run, "--by", "chip", *asked, env=discounts).stdout)
    assert "list $/chip-hr your discount" in table and "0.8700 50% verda deal" in table
    assert "a rule applied to 1 of 1 rows" in table
    by_provider_table = _said(_ran(run, "--by", "provider", *asked, env=discounts).stdout)
    assert "your discount" in by_provider_table and "50% verda deal" in by_provider_table
    plain = _ran(run, "--by", "chip", *asked, "--format", "csv")  # no file: list prices
    assert "discount" not in next(csv.reader(io.StringIO(plain.stdout)))


def test_the_python_glance_keeps_the_list_price_and_discount_too(db, discounts, monkeypatch):
    """chipcost.prices(by=) returns the rows `--by ... --format json` writes: on 59f587f3 it
    dropped the list price and the discount the command line gave."""
    import chipcost

    for name, value in discounts.items():
        monkeypatch.setenv(name, value)
    frame = chipcost.prices(by="chip", chip="H100-SXM", db=db)
    (row,) = frame.to_dicts()
    assert row["provider"] == "verda" and row["discount"] == "50% verda deal"
    assert row["list_price_per_chip_hour_usd"] == 2 * row["price_per_chip_hour"]


def test_every_glance_says_a_price_is_the_gpus_alone(run, db):
    """On 300ee1a5 `--by chip --chip RTX-3080` (tensordock's) said nothing of it."""
    table = _ran(run, "--by", "chip", "--chip", "RTX-3080", "--db", db)
    assert GPU_ALONE in _said(table.stdout)
    listed = _ran(run, "--by", "chip", "--chip", "RTX-3080", "--format", "json", "--db", db)
    assert [r["gpu_alone"] for r in json.loads(listed.stdout)] == [True]
    assert GPU_ALONE in _said(listed.stderr)
    asked = ("--by", "provider", "--chip", "H100-SXM", "--db", db)
    rows = {r["provider"]: r for r in json.loads(_ran(run, *asked, "--format", "json").stdout)}
    assert rows["cudo"]["gpu_alone"] and rows["modal"]["gpu_alone"] and not rows["aws"]["gpu_alone"]
    assert "cudo, daytona, modal price the GPU alone" in _said(_ran(run, *asked).stdout)
    aws = _ran(run, "--by", "chip", "--provider", "aws", "--db", db)
    assert "GPU alone" not in aws.stdout


def test_every_glance_marks_a_doubtful_spot_price(run, db):
    """On 300ee1a5 lium's RTX-5090 spot at its on-demand price was marked `(!)` in the offer
    table alone."""
    asked = ("--by", "chip", "--provider", "lium", "--pricing-model", "spot", "--db", db)
    table = _said(_ran(run, *asked).stdout)
    assert "spot (!)" in table and f"(!) = {DOUBT}" in table and "lium global 1x RTX 5090" in table
    (row,) = json.loads(_ran(run, *asked, "--format", "json").stdout)
    assert "is not below on demand" in row["spot_doubt"]
    by_provider = ("--by", "provider", "--chip", "RTX-5090", "--db", db)
    said = _said(_ran(run, *by_provider).stdout)
    assert "0.5600 est. (!)" in said and f"(!) = {DOUBT}" in said
    listed = _ran(run, *by_provider, "--format", "csv")
    rows = {r["provider"]: r for r in csv.DictReader(io.StringIO(listed.stdout))}
    assert "is not below on demand" in rows["lium"]["spot_doubt"]
    assert rows["vastai"]["spot_doubt"] == ""
    assert f"note: {DOUBT}" in _said(listed.stderr)


def test_by_chip_says_where_and_when_a_price_was_read_and_counts_each_offer_once(run, db):
    """On 300ee1a5 `--by chip` rows had no date, no source and no stated currency (P100's
    scaleway price is euros converted), and H100-SXM's 391 offers were counted 395, a
    region's cheapest spot zone twice."""
    asked = ("--chip", "P100,H100-SXM", "--db", db)
    rows = {r["chip"]: r for r in json.loads(_ran(run, "--by", "chip", *asked, "--format",
                                                  "json").stdout)}  # fmt: skip
    p100 = rows["P100"]
    assert (p100["source"], p100["currency"], p100["stated_currency"]) == ("scaleway", "USD", "EUR")
    assert p100["valid_from"] <= p100["last_seen_at"] and p100["last_seen_at"].startswith("2026-")
    offers = json.loads(_ran(run, *asked, "--format", "json").stdout)
    h100 = [o for o in offers if o["chip"] == "H100-SXM"]
    stored = [o for o in h100 if o["plan"] != "region_cheapest"]
    assert len(stored) < len(h100) and rows["H100-SXM"]["offers"] == len(stored)


def test_csv_and_json_send_the_tables_notes_to_stderr(run, db):
    """On 300ee1a5 `--by chip --format json` wrote the freshness alone on stderr."""
    table = _said(_ran(run, "--by", "chip", "--db", db).stdout)
    for fmt in ("json", "csv"):
        done = _ran(run, "--by", "chip", "--format", fmt, "--db", db)
        said = _said(done.stderr)
        # gcp's cheapest T4 and V100 are N1-attached GPUs, priced alone too
        for note in ("left out of the cheapest: ", "tensordock prices the GPU alone; gcp's N1"):
            assert note in table and f"note: {note}" in said, (fmt, note)
        assert said.index("left out of the cheapest") < said.index("prices as of")


def test_every_offers_rows_say_a_price_is_the_gpus_alone(run, db):
    """On e495bafd `prices --chip X --format csv|json` and chipcost.prices() had no `gpu_alone`
    (the --by rows had), and csv and json said nothing of it on stderr where the table has its
    note: tensordock's, daytona's and cudo's prices left the host out unmarked in the file."""
    import chipcost
    from chipcost.transform.focus import FOCUS_COLUMNS

    asked = ("--provider", "tensordock,daytona,cudo,aws", "--db", db)
    listed = _ran(run, *asked, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(listed.stdout)))
    alone = {r["provider"]: r["gpu_alone"] for r in rows}
    assert alone == {"tensordock": "true", "daytona": "true", "cudo": "true", "aws": "false"}
    assert len({(r["provider"], r["gpu_alone"]) for r in rows}) == 4  # one mark a provider
    assert "note: cudo, daytona, tensordock price the GPU alone" in _said(listed.stderr)
    written = json.loads(_ran(run, *asked, "--format", "json").stdout)
    assert {(r["provider"], r["gpu_alone"]) for r in written} == {
        ("tensordock", True), ("daytona", True), ("cudo", True), ("aws", False),
    }  # fmt: skip
    frame = chipcost.prices(provider=["tensordock", "daytona", "cudo", "aws"], db=db)
    assert set(frame.select("provider", "gpu_alone").iter_rows()) == {
        ("tensordock", True), ("daytona", True), ("cudo", True), ("aws", False),
    }  # fmt: skip
    one = _ran(run, "--chip", "RTX-3080", "--format", "csv", "--db", db)
    assert f"note: {GPU_ALONE}" in _said(one.stderr)
    aws = _ran(run, "--provider", "aws", "--chip", "H100-SXM", "--format", "json", "--db", db)
    assert "GPU alone" not in aws.stderr
    focus = _ran(run, *asked, "--format", "focus")
    assert tuple(next(csv.reader(io.StringIO(focus.stdout)))) == FOCUS_COLUMNS


def test_modals_offers_and_gcps_n1_gpus_say_their_price_is_the_gpus_alone(run, db):
    """On 5ed854ca the mark went by source, cudo, daytona and tensordock: modal's prices (a
    function pays its CPU cores and memory beside them) and gcp's N1-attached T4 and V100 (the
    N1 VM billed apart) were written gpu_alone false and said nothing, so `cost` ranked them
    on prices without the host. gcp's A2, A3 and G2 prices hold the VM: those stay unmarked."""
    asked = ("--provider", "modal,gcp", "--db", db)
    listed = _ran(run, *asked, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(listed.stdout)))
    marked = {(r["provider"], r["instance_type"]) for r in rows if r["gpu_alone"] == "true"}
    assert {p for p, _ in marked} == {"modal", "gcp"}
    assert {t for p, t in marked if p == "gcp"} == {"nvidia-tesla-t4", "nvidia-tesla-v100"}
    assert all(r["gpu_alone"] == "true" for r in rows if r["provider"] == "modal")
    assert any(r["instance_type"].startswith(("a2-", "a3-", "g2-")) for r in rows)
    note = (
        "note: modal prices the GPU alone; gcp's N1 GPUs (T4, V100, P100, P4) are priced alone: "
        "the host's vCPUs, memory and disk are billed apart"
    )
    assert note in _said(listed.stderr)
    table = _said(_ran(run, "--provider", "modal", "--chip", "H100", "--db", db).stdout)
    assert "note: modal prices the GPU alone: the host's vCPUs, memory and disk are billed" in table
    vm = _ran(run, "--provider", "gcp", "--chip", "H100-SXM", "--format", "json", "--db", db)
    assert "GPU" not in vm.stderr and not any(r["gpu_alone"] for r in json.loads(vm.stdout))
    (t4,) = json.loads(_ran(run, "--by", "chip", "--chip", "T4", *asked, "--format", "json").stdout)
    assert (t4["provider"], t4["instance_type"], t4["gpu_alone"]) == (
        "gcp",
        "nvidia-tesla-t4",
        True,
    )
    by_chip = _said(
        _ran(run, "--by", "chip", "--chip", "T4", "--provider", "gcp", "--db", db).stdout
    )
    assert "note: gcp's N1 GPUs (T4, V100, P100, P4) are priced alone" in by_chip
