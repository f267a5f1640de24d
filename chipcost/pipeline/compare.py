"""What `chipcost compare A B` does: is chip A cheaper per token than chip B, per pricing model.

Both chips' offers come from the cost ranking (chipcost.pipeline.cost: the same prices, fit
rule and throughput choice at the asked speed); the comparison is made on the same provider
where one offers both chips on that pricing model and term, else between each chip's
cheapest offer (said on the line). The range uses every usable figure chipcost holds for
each chip at that speed: the best case pairs A's highest figure with B's lowest, the worst
case the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.pipeline.cost import Ask, CostRanking, fit_notes, rank_cost, speed_notes
from chipcost.transform.cost import CostQuestion
from chipcost.transform.tokens import change_words, cost_change, cost_per_million_tokens
from chipcost.warehouse.cost_per_token import at_speed, figures, model_parameters

Row = dict[str, object]


@dataclass(frozen=True)
class Comparison:
    """One pricing model and term: A's and B's offer, and A's cost change against B."""

    pricing: str  # 'on_demand', 'reserved 1yr'
    a: Row
    b: Row
    same_provider: bool
    change: float  # A's cost per token / B's - 1: negative is cheaper
    best: float | None  # the change with A's highest and B's lowest usable figure
    worst: float | None  # ... and with A's lowest and B's highest

    @property
    def words(self) -> str:
        """'32% cheaper', '15% dearer', 'as cheap'."""
        return change_words(self.change)


@dataclass(frozen=True)
class CompareResult:
    chip_a: str
    chip_b: str
    ranking: CostRanking  # both chips' offers, with the notes of the ranking
    lines: list[Comparison]
    figures: dict[str, list[float]]  # each chip's usable published tokens/s at the speed
    notes: list[str]  # the asked speed, figures not at it or far above it, whether it fits


def _published(con: duckdb.DuckDBPyConnection, ask: Ask, chips: tuple[str, str]) -> dict:
    """Each chip's usable published tokens/s for the model and workload at the asked speed
    (all of them when none is at it)."""
    with at_speed(con, ask.speed):
        rows = figures(con, ask.model, ask.workload).rows
    found = {}
    for chip in chips:
        mine = [r for r in rows if r["chip"] == chip and r["usable"] and r["origin"] != "derived"]
        mine = [r for r in mine if r["at_speed"]] or mine
        found[chip] = [float(r["tokens_per_second_per_chip"]) for r in mine]  # type: ignore[arg-type]
    return found


def _pricing(row: Row) -> str:
    parts = [row["pricing_model"], row["term"]]
    return " ".join(str(p) for p in parts if p not in (None, "none", "default"))


def _pricing_order(item: tuple[str, object]) -> tuple[int, str]:
    """On-demand first, then as the vocabulary orders pricing models, shorter terms first."""
    from chipcost.core.vocabulary import PRICING_MODELS, TERMS

    model, _, term = item[0].partition(" ")
    rank = PRICING_MODELS.index(model) if model in PRICING_MODELS else len(PRICING_MODELS)
    return rank, f"{TERMS.index(term) if term in TERMS else 99:02d}{term}"


def _cost(row: Row, tps: float) -> float:
    return cost_per_million_tokens(float(row["price_per_chip_hour"]), tps)  # type: ignore[arg-type]


def _pair(offers_a: list[Row], offers_b: list[Row]) -> tuple[Row, Row, bool]:
    """A's cheapest offer and B's on the same provider if it has one, else B's cheapest."""
    for a_offer in offers_a:  # the cheapest A offer whose provider also offers B
        same = [b for b in offers_b if b["provider"] == a_offer["provider"]]
        if same:
            return a_offer, same[0], True
    return offers_a[0], offers_b[0], False


def compare(con: duckdb.DuckDBPyConnection, ask: Ask, chip_a: str, chip_b: str) -> CompareResult:
    """A against B on every pricing model and term both have an offer on."""
    if chip_a == chip_b:
        raise ChipcostError(f"compare {chip_a} with another chip, not with itself")
    both = replace(ask, chips=[chip_a, chip_b], baseline=chip_b, all_offers=True, limit=10**9)
    question = CostQuestion(tokens=None, overhead=0.0, migration_cost=None, daily_tokens=None)
    ranking = rank_cost(con, both, question)
    published = _published(con, ask, (chip_a, chip_b))
    by_pricing: dict[str, dict[str, list[Row]]] = {}
    for row in ranking.rows:  # every offer, cheapest first
        by_pricing.setdefault(_pricing(row), {}).setdefault(str(row["chip"]), []).append(row)
    lines = []
    for pricing, offers in sorted(by_pricing.items(), key=_pricing_order):
        if chip_a not in offers or chip_b not in offers:
            continue
        a, b, same = _pair(offers[chip_a], offers[chip_b])
        change = cost_change(
            float(a["cost_per_million_tokens"]), float(b["cost_per_million_tokens"])
        )  # type: ignore[arg-type]
        best = worst = None
        fa, fb = published[chip_a], published[chip_b]
        if fa and fb and len(fa) + len(fb) > 2:
            best = _cost(a, max(fa)) / _cost(b, min(fb)) - 1
            worst = _cost(a, min(fa)) / _cost(b, max(fb)) - 1
        lines.append(Comparison(pricing, a, b, same, change, best, worst))
    if not lines:
        have = {c: sorted(p for p, o in by_pricing.items() if c in o) for c in (chip_a, chip_b)}
        raise ChipcostError(
            f"{chip_a} and {chip_b} share no pricing model under these filters ({chip_a}: "
            f"{', '.join(have[chip_a]) or 'none'}; {chip_b}: {', '.join(have[chip_b]) or 'none'})"
            "; widen --provider/--region/--pricing-model"
        )
    parameters = model_parameters(con, ask.model)
    notes = speed_notes(both, ranking.rows) + fit_notes(parameters, both, ranking.rows)
    notes += ask.mine.notes([row for line in lines for row in (line.a, line.b)])
    return CompareResult(chip_a, chip_b, ranking, lines, published, notes)


# The pairs the articles chipcost grew from ask about (docs/cost-per-token.md, "Where the
# articles' figures do not follow"): Trainium against NVIDIA's H100, H200 and B200, Google's
# TPU v6e and AMD's MI300X against the H100. The weekly report and the explorer answer them.
ARTICLE_PAIRS = (
    ("Trainium2", "H100-SXM"),
    ("Trainium2", "H200"),
    ("Trainium2", "B200"),
    ("Trainium3", "H100-SXM"),
    ("Trainium3", "H200"),
    ("Trainium3", "B200"),
    ("TPU-v6e", "H100-SXM"),
    ("MI300X", "H100-SXM"),
)
ARTICLE_QUESTIONS = (("llama-3-70b", "inference"), ("llama-3-70b", "training"))
# Every answer carries every field (None where a pair is not answered).
ANSWER_FIELDS = (
    "pricing", "answer", "cost_change", "best_case_change", "worst_case_change",
    "a_cost_per_million", "b_cost_per_million", "a_where", "b_where", "same_provider",
    "a_figure", "b_figure", "a_figure_at_speed", "b_figure_at_speed", "caveats", "why_not",
)  # fmt: skip


def _figure_text(row: Row) -> str:
    """'3,819 tok/s per chip (benchmark, 5.2 tok/s per user)'."""
    said = [str(row.get("throughput_kind") or "")]
    per_user = row.get("throughput_tokens_per_second_per_user")
    if per_user:
        said.append(f"{float(per_user):,.1f} tok/s per user")  # type: ignore[arg-type]
    elif row.get("throughput_operating_point"):
        said.append(str(row["throughput_operating_point"]))
    tps = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    return f"{tps:,.0f} tok/s per chip ({', '.join(said)})"


def _caveats(notes: list[str]) -> str:
    """The comparison's notes that qualify the answer (not the speed asked or the fit rule)."""
    return "; ".join(n for n in notes if not n.startswith(("throughput at", "fits:")))


def article_answers(con: duckdb.DuckDBPyConnection, stale_days: int) -> list[dict[str, object]]:
    """For each article pair, model and workload: A against B on demand (else the first
    pricing model both have), at the default speed, as `chipcost compare` answers it; a pair
    chipcost cannot answer says why instead."""
    answers = []
    for model, workload in ARTICLE_QUESTIONS:
        for chip_a, chip_b in ARTICLE_PAIRS:
            row: dict[str, object] = {
                **dict.fromkeys(ANSWER_FIELDS),
                "model": model, "workload": workload, "chip_a": chip_a, "chip_b": chip_b,
            }  # fmt: skip
            ask = Ask(
                model=model, workload=workload, chips=[], baseline=chip_b,
                baseline_given=True, stale_days=stale_days,
            )  # fmt: skip
            try:
                result = compare(con, ask, chip_a, chip_b)
            except ChipcostError as exc:
                why = str(exc).split(". ", 1)[0].rstrip(".")  # the reason, not the chip list
                answers.append({**row, "why_not": f"{chip_a} against {chip_b}: {why}"})
                continue
            line = result.lines[0]  # on demand first (_pricing_order)
            a, b = line.a, line.b
            answers.append(
                {
                    **row,
                    "pricing": line.pricing,
                    "answer": f"{chip_a} is {line.words} per token than {chip_b}",
                    "cost_change": line.change,
                    "best_case_change": line.best,
                    "worst_case_change": line.worst,
                    "a_cost_per_million": a["cost_per_million_tokens"],
                    "b_cost_per_million": b["cost_per_million_tokens"],
                    "a_where": f"{a['provider']} {a['region']}",
                    "b_where": f"{b['provider']} {b['region']}",
                    "same_provider": line.same_provider,
                    "a_figure": _figure_text(a),
                    "b_figure": _figure_text(b),
                    "a_figure_at_speed": a.get("throughput_at_speed") is not False,
                    "b_figure_at_speed": b.get("throughput_at_speed") is not False,
                    "caveats": _caveats(result.notes),
                    "why_not": None,
                }
            )
    return answers
