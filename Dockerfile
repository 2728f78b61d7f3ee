# github-deployment-bridge container: build with dev dependencies, run with production ones only.
#   buildah bud --build-arg VERSION=$(node -p "require('./package.json').version") \
#     --build-arg REVISION=$(git rev-parse HEAD) -t github-deployment-bridge:dev .
# The exact Node.js release the tests run on: package.json's `node` devDependency is the same version, so `npm test`
# (on any machine, whatever its own Node) runs on what ships (test/container/runtime-stage.test.ts checks both).
# By tag here, not digest: the digest of node:24.21.0-bookworm-slim could not be looked up where this was written
# (Docker Hub unreachable), and a digest is never written from memory. The release workflow resolves the tag to its
# index digest and builds from `NODE_IMAGE=node:…@sha256:…` (its provenance records it); to pin here, set the default
# to what `docker buildx imagetools inspect node:24.21.0-bookworm-slim` prints as Digest.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 13 ships prebuilt Node-API binaries (linux x64/arm64, glibc and musl), so nothing compiles, but npm
# still runs node-gyp for its binding.gyp (which then finds the prebuilt binary): node-gyp needs python3 and make.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="github-deployment-bridge" \
      org.opencontainers.image.description="Turns Flux CD reconciliations into deployments on GitHub, Forgejo and GitLab" \
      org.opencontainers.image.source="https://github.com/github-deployment-bridge/github-deployment-bridge" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
# BUILD_REVISION: the commit label of gdb_build_info.
# MALLOC_ARENA_MAX: glibc's malloc arenas, 2 instead of up to 8 per core for V8's and libuv's threads, each keeping
# freed memory (BENCHMARKS.md §5); the benchmarks and end-to-end tests set it too (test/harness/node-flags.ts).
# MALLOC_TRIM_THRESHOLD_: glibc's default (128 KiB), set so that it stays fixed: left unset, malloc raises it with
# every large block freed, and keeps up to twice that freed at the top of each heap (Node 24 idle: 5-6 MiB less, §5).
ENV NODE_ENV=production \
    BUILD_REVISION=${REVISION} \
    DATABASE_PATH=/data/github-deployment-bridge.db \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The only writable path: the database volume. The root filesystem can be read-only. npm, npx and corepack are not
# needed to run the bridge (node runs dist/src/main.js): removed, so the image carries no package manager to use.
RUN mkdir -p /data && chown 65532:65532 /data \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
VOLUME ["/data"]
USER 65532:65532
# PORT's default; not 8080, which Flux opens to every namespace in flux-system (docs/container.md).
EXPOSE 8484
# main.ts handles SIGTERM: 503 to new events, in-flight GitHub writes finish, database closed.
STOPSIGNAL SIGTERM
# V8's heap sizing, the one place it is set (BENCHMARKS.md §5): without a cap V8 sizes the heap from the
# machine's memory and lets the old generation grow to 4× the live objects before collecting (at 10,000 tracked
# deployments 277 MiB of heap for 78 MiB in use), and the young generation to 2 × 16 MiB. 256 MiB of old space
# makes the growth factor V8's smallest (1.3×); 2 MiB semi-spaces keep the young generation at 4 MiB. The
# benchmarks and end-to-end tests start the bridge with these same flags (test/harness/node-flags.ts reads this line).
ENTRYPOINT ["node", "--max-old-space-size=256", "--max-semi-space-size=2", "dist/src/main.js"]
