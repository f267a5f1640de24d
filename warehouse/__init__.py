"""The DuckDB warehouse: schema and migrations, the run loader, and shared read queries."""
