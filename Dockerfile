# One image for every service: `docker run IMAGE dice --address 0.0.0.0:50051`.
# The service name (dice, deck, rules-fallen, projections, relay; or nothing = all
# services in one process) is the CMD.

# ---- build stage: pinned runtime deps in a venv, generated protobuf code -------------
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
WORKDIR /src

COPY pyproject.toml requirements.lock ./
# Runtime deps only ([project].dependencies), pinned by requirements.lock.
RUN python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))' > runtime.txt \
 && python -m venv /opt/venv \
 && /opt/venv/bin/pip install -c requirements.lock -r runtime.txt \
 && python -m venv /opt/tools \
 && /opt/tools/bin/pip install -c requirements.lock grpcio-tools

COPY protos ./protos
# Same layout as `make proto`: gen/<package>/... with __init__.py in every subdirectory.
RUN mkdir -p /app/gen \
 && /opt/tools/bin/python -m grpc_tools.protoc -Iprotos --python_out=/app/gen --grpc_python_out=/app/gen \
      $(find protos -name '*.proto') \
 && find /app/gen -mindepth 1 -type d -exec touch {}/__init__.py \;

COPY services ./services
COPY benchmarks ./benchmarks
# The engine's hot modules compiled with mypyc (services/native.py, docs/native.md): a C
# compiler, the Python headers and mypy in this stage only; the runtime stage gets the
# extensions and their manifest. FALLEN_NATIVE=0 builds an image that runs them from source.
ARG FALLEN_NATIVE=1
RUN if [ "$FALLEN_NATIVE" != 0 ]; then \
      set -e; \
      inc="$(python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"; \
      pkgs="gcc libc6-dev"; [ -f "$inc/Python.h" ] || pkgs="$pkgs python3-dev"; \
      command -v gcc >/dev/null && [ -f "$inc/Python.h" ] || { \
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends $pkgs >/dev/null; }; \
      /opt/tools/bin/pip install -c requirements.lock mypy setuptools; \
      /opt/tools/bin/python -m services.native_build build --python-executable /opt/venv/bin/python; \
      mkdir -p /app/build/native && cp -r build/native/lib build/native/manifest.json /app/build/native/; \
    fi
# Installs the `fallenctl` console script (no deps: they are already pinned above).
RUN /opt/venv/bin/pip install --no-deps --no-compile . \
 && cp -r services benchmarks /app/ \
 && find /app -name '__pycache__' -prune -exec rm -rf {} + \
 && /opt/venv/bin/python -c 'import sys; sys.path[:0] = ["/app"]; import services.native as n; print("engine modules:", n.install())'

# ---- runtime stage -------------------------------------------------------------------
FROM python:3.11-slim AS runtime
ARG UID=10001
RUN groupadd --system --gid ${UID} fallen \
 && useradd --system --uid ${UID} --gid fallen --home-dir /var/lib/fallen --create-home \
      --shell /usr/sbin/nologin fallen
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app/gen:/app \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    FALLEN_HEALTH_ADDR=127.0.0.1:50051
# Writable scratch (e.g. faust's data dir is relative to the working directory).
WORKDIR /var/lib/fallen
USER 10001:10001
EXPOSE 50051 9100 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-m", "services.platform.healthcheck"]
ENTRYPOINT ["fallenctl", "serve"]
CMD ["--address", "0.0.0.0:50051", "--metrics-port", "9100"]
