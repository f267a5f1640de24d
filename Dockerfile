# chipcost in a container, for a Prefect Docker or Kubernetes work pool (docs/deploy.md).
# Built from the repository root:  docker build -t chipcost:latest .
# No secret is baked in: AWS keys, provider keys, the lake's PostgreSQL conninfo and SMTP
# settings come from the work pool's job variables (environment) at run time.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml constraints.txt README.md ./
COPY chipcost chipcost
COPY api api
COPY archive archive
COPY cli cli
COPY core core
COPY pipeline pipeline
COPY reads reads
COPY extract extract
COPY transform transform
COPY warehouse warehouse
COPY reports reports
COPY flows flows
COPY sample sample
# A regular (non-editable) install: only chipcost and its dependencies land in the venv.
RUN python -m venv /opt/chipcost \
 && /opt/chipcost/bin/pip install --no-cache-dir --disable-pip-version-check \
      -c constraints.txt '.[lake]'

FROM python:3.11-slim
COPY --from=build /opt/chipcost /opt/chipcost
# The flows' entrypoints (prefect.yaml) are read from /app/flows.
COPY flows /app/flows
COPY prefect.yaml /app/prefect.yaml
RUN useradd --create-home --uid 10001 chipcost \
 && mkdir -p /app/data && chown chipcost /app/data
USER chipcost
WORKDIR /app
ENV PATH=/opt/chipcost/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DO_NOT_TRACK=1 \
    PREFECT_SERVER_ANALYTICS_ENABLED=false \
    CHIPCOST_DATA_DIR=/app/data
# A container's disk is gone after the run: point CHIPCOST_WAREHOUSE at a lake
# (ducklake:postgres:...) with CHIPCOST_LAKE_DATA and CHIPCOST_ARCHIVE on s3://.
CMD ["chipcost", "--help"]
