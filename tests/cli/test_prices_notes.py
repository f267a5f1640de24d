"""The notes under `prices`: a price that is the GPUs' alone (the host's vCPUs, memory and disk
billed on top) is said, and only for the providers that price so. On the bundled sample's
newest run replayed, the command line as its own process."""

from __future__ import annotations

from tests.cli_runner import chipcost


def test_prices_say_when_a_price_is_the_gpus_alone(tmp_path):
    """On 2487f4c cudo's "1.8800 $/instance-hr" sat beside whole instances' prices with no word
    that its vCPUs and memory are billed on top."""
    from tests import warehouses

    db = warehouses.sample(tmp_path / "w.duckdb", last=1)
    done = chipcost("prices", "--provider", "cudo,runpod", "--chip", "H100", "--db", str(db))
    said = " ".join(done.stdout.split())
    assert "note: cudo prices the GPU alone: the host's vCPUs, memory and disk are billed" in said
    aws = chipcost("prices", "--provider", "aws", "--chip", "H100", "--db", str(db))
    assert "GPU alone" not in aws.stdout
