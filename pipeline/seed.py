"""Reference data into the warehouse: chips, instance types, models and throughput.

The chips, instance types, reference models and reference throughput figures mirror the files
in core/data; derived figures are computed from them. A writer opens the warehouse
through `open_warehouse`, which reseeds once when those files (or the derivation) changed
since the last seed, not on every connection.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

import duckdb

from chipcost.core.catalog import chip_rows
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import Figure
from chipcost.core.settings import Warehouse
from chipcost.core.version import __version__
from chipcost.pipeline.instance_catalog import instance_type_rows
from chipcost.transform import (
    derivation,
    derivation_error,
    derivation_fit,
    roofline,
    throughput_figures,
    training,
)
from chipcost.transform.derivation import capped_at_load, derived_figures
from chipcost.transform.references import (
    derivation_assumptions,
    model_rows,
    model_standing,
    roofline_settings,
    throughput_files,
    throughput_references,
    with_interconnect,
)
from chipcost.transform.rows import number
from chipcost.transform.training import calibrate_training
from chipcost.warehouse import throughput_store
from chipcost.warehouse.db import connect, set_state, state
from chipcost.warehouse.insert import replace_table

# The files the reference tables are made from; a change to any of them reseeds.
REFERENCE_FILES = (
    "chips.csv",
    "models.csv",
    "model_equivalents.csv",
    "derivation.csv",
    "roofline.csv",
    "interconnect.csv",
    "aws_families.csv",
    "aws_instance_types.csv",
    "aws_ultraserver_types.csv",
    "gcp_machine_types.csv",
    "gcp_tpus.csv",
    "gcp_tpu_slices.csv",
    "azure_series.csv",
    "oci_gpu_shapes.csv",
    "oci_gpu_models.csv",
)
STATE_NAME = "reference_data"


def reference_digest() -> str:
    """One digest of the reference files and of the code that derives from them."""
    digest = hashlib.sha256(__version__.encode())
    for name in (*REFERENCE_FILES, *throughput_files()):
        digest.update(name.encode())
        data = resources.files("chipcost.core").joinpath("data", *name.split("/"))
        digest.update(data.read_bytes())
    modules = (roofline, throughput_figures, derivation, training, derivation_error, derivation_fit)
    for module in modules:  # a change re-derives without a release
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def open_warehouse(
    path: Path | Warehouse, *, read_only: bool = False, wait: float = 0.0
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; a writer also gets the schema migrated and reference data current.

    `wait`: seconds to wait for another process holding the file (warehouse/lock_wait.py).
    """
    con = connect(path, read_only=read_only, wait=wait)
    if not read_only:
        try:
            seed_reference(con)
        except BaseException:
            con.close()
            raise
    return con


def seed_reference(con: duckdb.DuckDBPyConnection, *, force: bool = False) -> bool:
    """Reload chips, instance types, models and figures when the files changed; True if it did."""
    digest = reference_digest()
    if not force and state(con, STATE_NAME) == digest:
        return False
    con.execute("BEGIN TRANSACTION")
    try:
        replace_table(con, "chips", chip_rows())
        replace_table(con, "instance_types", instance_type_rows())
        throughput_store.replace_reference_models(con, model_rows())
        _refresh_figures(con)
        set_state(con, STATE_NAME, digest)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return True


def _refresh_figures(con: duckdb.DuckDBPyConnection) -> None:
    """Reference figures and a derived figure per chip, model and workload (after chips)."""
    chips, models = throughput_store.derivation_inputs(con)
    throughput_store.replace_generated_figures(con, _generated(_frozen(chips), _frozen(models)))


def _frozen(rows: list[dict]) -> tuple[tuple[tuple[str, object], ...], ...]:
    """Rows as a key of _generated's cache: each row's (column, value) pairs, in order."""
    return tuple(tuple(row.items()) for row in rows)


@lru_cache(maxsize=2)  # a user's model added: the set before and after
def _generated(
    chips: tuple[tuple[tuple[str, object], ...], ...],
    models: tuple[tuple[tuple[str, object], ...], ...],
) -> tuple[Figure, ...]:
    """The reference figures and the figures derived for these chips and models. The rest of
    what a derivation reads (the reference files, the fitted calibration) is read once per
    process, so each new warehouse of a process is given the same figures without deriving
    them again (a third of a second of CPU each)."""
    chip_specs = with_interconnect([dict(chip) for chip in chips])
    model_specs = [dict(model) for model in models]
    derived = derived_figures(
        chip_specs, model_specs, derivation_assumptions(), roofline_settings(), _calibrated
    )
    # Training at the MFU the published training figures reach, where any do.
    derived = calibrate_training(derived, throughput_references(), chip_specs, model_specs)
    derived = capped_at_load(derived, throughput_references())
    return (*throughput_references(), *derived)


def _calibrated(
    chip: str, model: Mapping[str, object], speed: float | None
) -> tuple[float, str] | None:
    """The roofline's factor for a chip and model at a per-user speed (None: maximum
    throughput), fitted on the catalogue's measurements."""
    parameters = number(model["parameters"])
    factor = derivation_fit.catalogue().factor(chip, parameters, speed)
    if factor is None:
        return None
    return factor.value, factor.label(derivation_fit.size_group(parameters))


def add_user_model(
    con: duckdb.DuckDBPyConnection, model: str, parameters: float, source: str
) -> None:
    """Record (or replace) the size of a model of the user's own, then re-derive its figures."""
    if any(m["model"] == model for m in model_rows()):
        raise ChipcostError(
            f"{model} is a reference model (core/data/models.csv): its size is not yours to "
            "change; record measured throughput with `chipcost throughput add` instead"
        )
    standing, why = model_standing(model)
    if why:
        raise ChipcostError(
            f"{model} is answered with the figures of {standing}, a reference model "
            f"(core/data/model_equivalents.csv: {why}); ask for it by either name, and "
            "record measured throughput with `chipcost throughput add`"
        )
    con.execute("BEGIN TRANSACTION")
    try:
        throughput_store.put_user_model(con, model, parameters, source)
        _refresh_figures(con)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
