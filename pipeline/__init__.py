"""Use-cases without Prefect: collect, backfill, seeding reference data, cost ranking."""
