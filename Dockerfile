# Dockerfile - nqueensd, the N-Queens HTTP service, as a small non-root container image.
#
#   docker build -t nqueens .
#   docker run --rm -p 8080:8080 nqueens
#
# Two stages: the first installs the toolchain and -dev packages and builds only the nqueensd and
# nqueens (the CLI) targets; the second is a plain bookworm-slim with the four runtime libraries they
# link and the stripped binaries (the CLI runs the shards of deploy/count-job.yaml). The store (finished counts and checkpoints of long ones) lives on the volume
# /var/lib/nqueens, so it outlives the container: docker run -v nqueens-data:/var/lib/nqueens ... Configure the container with NQUEENSD_* environment variables rather than flags,
# so that the HEALTHCHECK's `nqueensd --probe` (a separate process) sees the same port.

# By tag, so that a rebuild takes Debian's security updates; pass debian:bookworm-slim@sha256:<digest>
# (--build-arg DEBIAN_IMAGE=...) to hold the base fixed.
ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libmicrohttpd-dev libcjson-dev zlib1g-dev libsqlite3-dev libpq-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# .dockerignore keeps build folders, .git and node_modules out of the context.
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNQ_BENCH=OFF \
 && cmake --build /build --target nqueensd nqueens-cli -j "$(nproc)" \
 && strip --strip-unneeded /build/src/server/nqueensd /build/src/cli/nqueens \
 && /build/src/server/nqueensd --version && /build/src/cli/nqueens count 8
# Labelled last, so the layers above stay cached; lets a clean-up pick this project's images only.
LABEL org.opencontainers.image.title=nqueens

FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12 libcjson1 zlib1g libsqlite3-0 libpq5 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin nqueens \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/nqueens
COPY --from=build /build/src/server/nqueensd /usr/local/bin/nqueensd
COPY --from=build /build/src/cli/nqueens /usr/local/bin/nqueens
LABEL org.opencontainers.image.title=nqueens
# Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 10001:10001
# MALLOC_MMAP_THRESHOLD_: glibc otherwise raises its mmap threshold once the first large body is freed
# and keeps later ones in its heap, about 90 MiB more resident with clients that stop reading
# (docs/performance.md, "Clients that stop reading").
ENV NQUEENSD_BIND=0.0.0.0 \
    NQUEENSD_PORT=8080 \
    NQUEENSD_STORE=/var/lib/nqueens/nqueens.db \
    MALLOC_MMAP_THRESHOLD_=262144
VOLUME /var/lib/nqueens
EXPOSE 8080
# nqueensd drains on SIGTERM: readiness 503, no new connections, in-flight requests get
# NQUEENSD_GRACE_S (default 8 s, below docker stop's 10 s) to finish, long counts write their last
# checkpoint, then exit 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["nqueensd", "--probe"]
ENTRYPOINT ["nqueensd"]
