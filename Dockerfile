# The service image: Node 24 LTS, production dependencies only, compiled JavaScript, non-root.
# Build: docker build -t verification-gateway:0.1.0 .   Run: docker run --env-file .env verification-gateway:0.1.0
# (No `# syntax=` line: BuildKit would pull its Dockerfile frontend from a registry, and this file
# needs none of its newer features. Where no registry answers, scripts/images.sh builds the base.)
# The `sandbox` target (docker build --target sandbox) is the vendor sandbox and the demo for
# compose.yaml, never a production image.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# The Kafka client (@confluentinc/kafka-javascript) builds librdkafka from its npm package's
# sources at install (scripts/build-kafka-client.mjs, the postinstall), against Debian's
# OpenSSL, SASL, zlib, zstd and lz4, with this Node's headers (/usr/local/include/node). Installing
# packages needs the network: build with --network host where the default bridge has none.
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential python3 \
      libssl-dev libsasl2-dev zlib1g-dev libzstd-dev liblz4-dev \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts/build-kafka-client.mjs ./scripts/
# The `node` devDependency only supplies Node 24 to npm scripts on machines that lack it;
# this image has Node 24 already.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# compose.yaml's vendor sandbox and demo publisher: the build with its devDependencies.
FROM build AS sandbox
COPY scripts/demo.ts ./scripts/
USER 1000:1000
ENTRYPOINT ["node", "--enable-source-maps", "dist/src/cli.js"]
CMD ["sandbox"]

FROM build AS production-files
# The vendor sandbox and the demo stay out of the production image (the `sandbox` and `dev`
# commands load them on demand); @fastify/multipart, which only the sandbox uses, is a
# devDependency and goes with the prune.
# Of the Kafka client's native build only the addon and the two shared libraries it loads
# (build/deps/librdkafka*.so.1, by its rpath) are kept: librdkafka's sources, objects and static
# archives were 272 MB of a 576 MB image.
RUN npm prune --omit=dev && rm -rf dist/src/sandbox dist/src/demo \
 && cd node_modules/@confluentinc/kafka-javascript \
 && rm -rf deps build/Release/obj.target build/deps/include build/deps/pkgconfig build/deps/librdkafka \
      build/deps/*.a build/deps/*.mk build/deps/*.Makefile

FROM node:24-bookworm-slim
# The shared libraries librdkafka was linked against, and nothing of the build's toolchain.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 libsasl2-2 zlib1g libzstd1 liblz4-1 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production-files /app/node_modules ./node_modules
COPY --from=production-files /app/dist/src ./dist/src
COPY package.json ./
# The image's `node` user, by number: a pod with runAsNonRoot can only verify a numeric user
# (the chart's securityContext runs as 1000:1000 too).
USER 1000:1000
EXPOSE 8080
# 8 MiB semi-spaces: V8's young generation otherwise grows to 64 MiB semi-spaces (measured on
# a 24 GiB machine), and scavenging it with a window of requests alive paused the loop 10-30 ms,
# bunching the vendor calls due then (bench/run.ts, scenario b).
# Two malloc arenas: by default glibc gives threads (V8's platform workers, libuv's pool) arenas
# of their own, and memory freed in one is not reused by another: about 10 MiB of peak RSS in
# bench (b).
# 64 threads in libuv's pool: librdkafka's blocking calls hold one each (src/threadpool.ts).
ENV MALLOC_ARENA_MAX=2 UV_THREADPOOL_SIZE=64
ENTRYPOINT ["node", "--enable-source-maps", "--max-semi-space-size=8", "dist/src/cli.js"]
CMD ["run"]
