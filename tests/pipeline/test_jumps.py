"""Price jumps: flagged against a real DuckDB warehouse, loaded anyway, shown in the notes; a
whole table moved by one factor is held, its run of the source not loaded."""

from __future__ import annotations

from dataclasses import replace

from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import Settings
from chipcost.pipeline.collect import WarehouseSession
from chipcost.pipeline.jumps import JUMP_FACTOR, MAX_LISTED, TABLE_OFFERS
from chipcost.pipeline.jumps import flag_price_jumps as flag_jumps_on
from chipcost.warehouse.db import connect
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.helpers import day, record, run_of


def settings_for(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, db_path=warehouses.new(tmp_path / "chipcost.duckdb"))


def load(settings: Settings, run) -> None:
    with WarehouseSession(settings) as session:
        load_run(session.con, run)


def flag_price_jumps(settings: Settings, results, **asked):
    """The check as the flow makes it: on the collection's own connection."""
    with WarehouseSession(settings) as session:
        return flag_jumps_on(session.con, results, **asked)


def h100(price: float, **changes):
    fields = {"instance_type": "1x H100 SXM", "chip_count": 1.0, **changes}
    return record(price_per_hour=price, **fields)


def test_a_jump_beyond_the_factor_is_flagged_with_old_new_factor_and_date(tmp_path):
    settings = settings_for(tmp_path)
    load(settings, run_of([h100(1.99), h100(2.00, instance_type="2x H100 SXM")], day(19)))
    second = run_of([h100(8.40), h100(2.50, instance_type="2x H100 SXM")], day(20))
    added = flag_price_jumps(settings, second.sources)
    expected = "1x H100 SXM us-east-1 on demand jumped 1.99 → 8.40 (×4.2) since 2026-11-20"
    assert [note for _, note in added] == [f"{expected}: loaded; check the page"]
    assert second.sources[0].notes == [note for _, note in added]
    assert added[0][0] == "aws-pricing-api"


def test_flagged_prices_are_still_loaded_and_the_note_is_kept_with_the_run(tmp_path):
    settings = settings_for(tmp_path)
    load(settings, run_of([h100(1.99)], day(19)))
    second = run_of([h100(8.40)], day(20))
    flag_price_jumps(settings, second.sources)
    load(settings, second)
    con = connect(settings.db_path, read_only=True)
    try:
        price = con.execute("SELECT price_per_hour FROM current_prices").fetchall()
        notes = con.execute(
            "SELECT notes FROM source_runs WHERE run_id = ?", [second.run_id]
        ).fetchall()
    finally:
        con.close()
    assert price == [(8.40,)]
    assert "jumped 1.99 → 8.40" in notes[0][0][0]


def test_falls_are_flagged_too_and_moves_within_the_factor_are_not(tmp_path):
    settings = settings_for(tmp_path)
    offers = [h100(9.0, instance_type=f"t{i}") for i in range(3)]
    load(settings, run_of(offers, day(1)))
    moved = [replace(offers[0], price_per_hour=2.9), replace(offers[1], price_per_hour=3.1)]
    moved.append(replace(offers[2], price_per_hour=9.0 * JUMP_FACTOR))  # exactly 3x: not over
    second = run_of(moved, day(2))
    notes = [note for _, note in flag_price_jumps(settings, second.sources)]
    assert len(notes) == 1 and notes[0].startswith("t0 us-east-1 on demand jumped 9.00 → 2.90")
    assert "(×0.32)" in notes[0]


def test_a_changed_chip_count_is_compared_per_chip(tmp_path):
    settings = settings_for(tmp_path)
    load(settings, run_of([record(chip_count=8.0, price_per_hour=55.04)], day(1)))
    second = run_of([record(chip_count=1.0, price_per_hour=55.04)], day(2))
    [(_, note)] = flag_price_jumps(settings, second.sources)
    assert "55.04 → 55.04 (×8.0, 8 → 1 chips)" in note


def test_plan_term_and_payment_name_the_offer(tmp_path):
    settings = settings_for(tmp_path)
    offer = record(pricing_model="reserved", term="1yr", payment="all_upfront", plan="standard")
    load(settings, run_of([offer], day(1)))
    second = run_of([replace(offer, price_per_hour=offer.price_per_hour / 5)], day(2))
    [(_, note)] = flag_price_jumps(settings, second.sources)
    assert note.startswith("p5.48xlarge us-east-1 reserved 1yr, standard, all upfront jumped")


def test_an_older_observation_replayed_late_is_not_compared(tmp_path):
    settings = settings_for(tmp_path)
    load(settings, run_of([h100(1.99)], day(5)))
    late = run_of([h100(8.40)], day(3))
    assert flag_price_jumps(settings, late.sources) == []
    assert late.sources[0].notes == []


def test_failed_sources_other_sources_and_first_runs_flag_nothing(tmp_path):
    settings = settings_for(tmp_path)
    first = run_of([h100(1.99)], day(1))
    assert flag_price_jumps(settings, first.sources) == []  # no warehouse yet
    load(settings, first)
    failed = run_of([h100(8.40)], day(2), status=FAILED)
    failed.sources[0].records = [replace(h100(8.40), observed_at=day(2))]
    assert flag_price_jumps(settings, failed.sources) == []
    other = run_of([h100(8.40, source="aws-bulk")], day(2))
    other.sources[0].source = "aws-bulk"
    assert flag_price_jumps(settings, other.sources) == []


def test_many_jumps_in_one_source_are_listed_up_to_a_limit_then_counted(tmp_path):
    settings = settings_for(tmp_path)
    offers = [h100(1.0 + i / 100, instance_type=f"type-{i:02d}") for i in range(MAX_LISTED + 5)]
    load(settings, run_of(offers, day(1)))
    # each by a factor of its own (4x to 18x): many jumps, no one factor of the whole table
    moved = [replace(o, price_per_hour=o.price_per_hour * (4 + i)) for i, o in enumerate(offers)]
    second = run_of(moved, day(2))
    notes = [note for _, note in flag_price_jumps(settings, second.sources)]
    assert len(notes) == MAX_LISTED + 1
    assert notes[-1].startswith("and 5 more offers moved more than 3x")


def test_one_query_per_run(tmp_path, monkeypatch):
    import chipcost.pipeline.jumps as jumps_module

    settings = settings_for(tmp_path)
    load(settings, run_of([h100(1.0, instance_type=f"t{i}") for i in range(50)], day(1)))
    calls = []
    real = jumps_module.moved_prices
    monkeypatch.setattr(
        jumps_module, "moved_prices", lambda con, f, x: calls.append(f.height) or real(con, f, x)
    )
    moved = [h100(4.0 * 1.05**i, instance_type=f"t{i}") for i in range(50)]  # 4x to 44x
    added = flag_price_jumps(settings, run_of(moved, day(2)).sources)
    assert calls == [50]
    assert len(added) == MAX_LISTED + 1  # 50 jumps: ten listed, the rest counted


def _table(n: int, factor: float, *, source_offers: int | None = None):
    """n offers held, then a run of the source's `source_offers` (n by default) in which the
    first n moved by `factor` (a cent of rounding each), the rest unchanged."""
    offers = [h100(0.24 + i / 10, instance_type=f"type-{i:02d}") for i in range(n)]
    others = [h100(2.0, instance_type=f"still-{i}") for i in range((source_offers or n) - n)]
    moved = [replace(o, price_per_hour=round(o.price_per_hour * factor, 2)) for o in offers]
    return run_of([*offers, *others], day(1)), run_of([*moved, *others], day(2))


def test_a_whole_table_moved_by_one_factor_is_held_and_its_prices_stay(tmp_path):
    """On 444acd6f Verda's prices sent in cents loaded as current prices, flagged only as
    jumps: A100-40GB at 73.00 an hour."""
    settings = settings_for(tmp_path)
    first, second = _table(6, 100)
    load(settings, first)
    [(source, said)] = flag_price_jumps(settings, second.sources, run_dir="archive/RUN")
    held = second.sources[0]
    assert (source, held.status, held.records, held.seen_keys) == (
        "aws-pricing-api",
        FAILED,
        [],
        set(),
    )
    assert said == held.message and said.startswith("aws-pricing-api: 6 of its 6 prices")
    assert "×100 at once since 2026-11-02" in said
    assert "archive/RUN/aws-pricing-api/0001.json.gz" in said  # the payload to look at
    assert "chipcost collect --replay archive/RUN --source aws-pricing-api" in said
    assert "--accept-moves aws-pricing-api" in said
    load(settings, second)
    con = connect(settings.db_path, read_only=True)
    try:
        prices = con.execute("SELECT DISTINCT last_seen_at FROM current_prices").fetchall()
        status = con.execute("SELECT status FROM source_runs ORDER BY observed_at").fetchall()
    finally:
        con.close()
    assert [p.date() for (p,) in prices] == [day(1).date()]  # nothing of the held run
    assert status == [(OK,), (FAILED,)]


def test_a_table_accepted_is_loaded_with_its_jumps_noted(tmp_path):
    settings = settings_for(tmp_path)
    first, second = _table(6, 100)
    load(settings, first)
    added = flag_price_jumps(settings, second.sources, accept={"aws-pricing-api"})
    result = second.sources[0]
    assert result.status == OK and len(result.records) == 6
    assert result.notes[0].startswith("6 of its 6 prices compared moved ×100 at once")
    assert result.notes[0].endswith("loaded, as --accept-moves asked")
    assert len(added) == 7  # that note, then each offer's jump


def test_rounding_of_small_prices_still_reads_as_one_factor(tmp_path):
    """0.14 in cents may come as 13.99 or 14.01: its factor is 99.9 or 100.1."""
    settings = settings_for(tmp_path)
    first, second = _table(5, 100)
    second.sources[0].records = [
        replace(r, price_per_hour=r.price_per_hour + (0.01 if i % 2 else -0.01))
        for i, r in enumerate(second.sources[0].records)
    ]
    load(settings, first)
    flag_price_jumps(settings, second.sources)
    assert second.sources[0].status == FAILED


def test_a_minority_of_the_table_a_few_offers_or_scattered_factors_load(tmp_path):
    # Fewer than half of the offers compared: a family repriced, not the table.
    settings = settings_for(tmp_path / "minority")
    first, second = _table(4, 100, source_offers=10)
    load(settings, first)
    assert len(flag_price_jumps(settings, second.sources)) == 4
    assert second.sources[0].status == OK
    # Fewer than TABLE_OFFERS: too few to call a table.
    settings = settings_for(tmp_path / "few")
    first, second = _table(TABLE_OFFERS - 1, 100)
    load(settings, first)
    flag_price_jumps(settings, second.sources)
    assert second.sources[0].status == OK
    # Every offer moved, each by its own factor (a spot market's day).
    settings = settings_for(tmp_path / "scattered")
    first, _ = _table(6, 1)
    load(settings, first)
    scattered = [
        replace(r, price_per_hour=r.price_per_hour * factor)
        for r, factor in zip(first.sources[0].records, (4, 6, 9, 0.2, 14, 30), strict=True)
    ]
    second = run_of(scattered, day(2))
    assert len(flag_price_jumps(settings, second.sources)) == 6
    assert second.sources[0].status == OK


def test_a_source_now_pricing_in_another_currency_is_said_once(tmp_path):
    """On 0f222db2 a provider moving its prices from US dollars to euros (Verda's answer with
    its currency changed) loaded 99 changes and said nothing: each moved by the rate only,
    within the jump factor. Said in one note naming both currencies, loaded as stated."""
    settings = settings_for(tmp_path)
    offers = [h100(1.99), h100(2.50, instance_type="2x H100 SXM"), h100(3.0, region="eu-west-1")]
    load(settings, run_of(offers, day(19)))
    second = run_of([replace(r, currency="EUR") for r in offers[:2]] + offers[2:], day(20))
    added = flag_price_jumps(settings, second.sources)
    assert [note for _, note in added] == [
        "2 offers now priced in EUR, last seen in USD on 2026-11-20: loaded as stated "
        "(reads convert each price at its day's ECB rate); check the page if the provider did "
        "not announce it"
    ]
    assert second.sources[0].status == OK
