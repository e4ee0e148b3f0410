# Multi-stage: dependencies are installed by npm from the committed package-lock.json (frozen,
# production only), then run on the official Bun image as a non-root user. Both stages are Debian
# (glibc), so sharp's prebuilt binaries match.
#   docker build -t image-metadata .
#   docker run -p 3000:3000 -v imd:/data -e DESCRIBER=offline image-metadata     # no model: offline describer
#   docker run -p 3000:3000 -v imd:/data -e OPENAI_API_KEY=sk-... image-metadata  # a model (docs/model-endpoints.md)
# Behind a TLS-intercepting proxy, give npm its certificate authority as a build secret (mounted
# for the install step only, never part of an image):
#   docker build --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt -t image-metadata .
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Only what runs: no dev dependencies, then no type declarations, source maps or Effect's
# TypeScript sources (shipped for source maps only).
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete \
 && rm -rf node_modules/effect/src node_modules/@effect/*/src

# The Bun of package-lock.json: the runtime settings below and the README's measurements are this
# version's.
FROM oven/bun:1.4.5-slim
WORKDIR /app
# Requests in flight get 8 s after SIGTERM: inside `docker stop`'s default 10 s before SIGKILL
# (compose.yaml gives 30 s and sets 25 s). The runtime settings `npm start` sets (README, "Runtime
# settings"): four worker threads, 2,048 outgoing requests at once, a heap sized for 512 MiB,
# freed memory kept a second for the next upload.
ENV NODE_ENV=production \
    UV_THREADPOOL_SIZE=4 \
    BUN_CONFIG_MAX_HTTP_REQUESTS=2048 \
    BUN_JSC_forceRAMSize=536870912 \
    MIMALLOC_PURGE_DELAY=1000 \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    SHUTDOWN_TIMEOUT_MS=8000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bunfig.toml tsconfig.json ./
COPY src ./src
# npm leaves out, without a word, an optional package whose engines, os, cpu or libc do not match
# (sharp's native binary under an older Node in the deps stage): the service would then crash at
# start. Load sharp here so that such an image fails to build instead.
RUN bun -e 'const { versions } = (await import("sharp")).default; console.log("sharp", versions.sharp, "libvips", versions.vips)' \
 && mkdir -p /data && chown bun:bun /data && chmod 0700 /data
USER bun
VOLUME ["/data"]
EXPOSE 3000
# Every 10 s: `healthy` comes within 10 s of readiness, for a bun process of some 30 ms each time.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT ?? 3000) + '/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# `npm start`'s command itself, not `bun run start` around it: the service is PID 1, so it gets
# `docker stop`'s SIGTERM directly. (The data folder's lock is the kernel's, on DATA_DIR/lock: two
# containers on one volume exclude each other although both are PID 1.)
CMD ["bun", "src/main.ts"]
