#!/usr/bin/env bash
# Makes sure the base images the Dockerfile names are present in the local engine.
# Official images are used when present or when Docker Hub can be reached. Otherwise (machines that
# reach only the npm registry and Debian's mirrors) it builds LOCAL STAND-INS under exactly those
# names, from a Debian root made by debootstrap: FOR TESTS ONLY, never to publish. Each stand-in
# carries the label imd.standin=test-only.
#   scripts/container/base-images.sh [node|bun|postgres|nginx]...   (default: all four)
# node and bun are the Dockerfile's; postgres and nginx are compose.yaml's, for the stack's test
# (test/container/stack.test.ts), made from Debian bookworm's own packages (PostgreSQL 15 under
# the name postgres:16: the service needs nothing newer).
set -euo pipefail
cd "$(dirname "$0")/../.."

declare -A official=(
  [node]=node:20-bookworm-slim
  [bun]=oven/bun:1.4.5-slim
  [postgres]=postgres:16
  [nginx]=nginx:1.27
)
base=imd-standin/bookworm-minbase
cache=${IMD_CONTAINER_CACHE:-/var/cache/imd-container}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

docker() { command "${DOCKER:-docker}" "$@"; }
present() { docker image inspect "$1" >/dev/null 2>&1; }

# Pulls only when Docker Hub's name resolves: where it does not, nothing is sent its way.
pullable() {
  [ "${CONTAINER_PULL:-auto}" != 0 ] && getent hosts registry-1.docker.io >/dev/null 2>&1
}

bootstrap_base() {
  present "$base" && return 0
  command -v debootstrap >/dev/null || { echo "base-images: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  local root="$cache/bookworm-minbase"
  rm -rf "$root" && mkdir -p "$cache"
  echo "base-images: debootstrap bookworm (minbase) into $root"
  # libstdc++6 for Node; everything else a stand-in needs comes from apt inside its build.
  debootstrap --variant=minbase --include=libstdc++6 bookworm "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$base" >/dev/null
  rm -rf "$root"
}

# docker build of a stand-in: $1 name, $2 context folder; the Dockerfile comes on stdin.
build_standin() {
  docker build --network host --label imd.standin=test-only -t "${official[$1]}" -f - "$2" >/dev/null
  echo "base-images: built stand-in ${official[$1]} (test only)"
}

standin_node() {
  # The host's Node (the README asks for Node 20 or later) and its npm, on the Debian root.
  local node npm context
  node=$(command -v node) npm=$(dirname "$(readlink -f "$(command -v npm)")")/..
  [ "$(node -p 'process.versions.node.split(".")[0] >= 20')" = true ] \
    || { echo "base-images: the node stand-in needs Node 20 or later on the host" >&2; exit 1; }
  context=$(mktemp -d) && cp "$node" "$context/node" && cp -r "$(readlink -f "$npm")" "$context/npm"
  build_standin node "$context" <<DOCKERFILE
FROM $base
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --create-home node
CMD ["node"]
DOCKERFILE
  rm -rf "$context"
}

standin_bun() {
  # Bun from the project's own npm dependency (node_modules/bun, installed by npm ci).
  local context
  [ -x node_modules/bun/bin/bun.exe ] || { echo "base-images: node_modules/bun is missing (npm ci first)" >&2; exit 1; }
  context=$(mktemp -d) && cp node_modules/bun/bin/bun.exe "$context/bun"
  build_standin bun "$context" <<DOCKERFILE
FROM $base
COPY bun /usr/local/bin/bun
RUN ln -s bun /usr/local/bin/bunx \
 && groupadd --gid 1000 bun && useradd --uid 1000 --gid bun --create-home bun
WORKDIR /home/bun/app
CMD ["bun", "repl"]
DOCKERFILE
  rm -rf "$context"
}

standin_postgres() {
  # What compose.yaml and the test use of the official image: POSTGRES_USER, POSTGRES_PASSWORD and
  # POSTGRES_DB make the role and database on a new data folder (the volume
  # /var/lib/postgresql/data), pg_isready answers, PGPORT picks the port (the server and its tools
  # read it), and arguments starting with `-` go to the server (e.g. `-c listen_addresses=...`).
  # The database is made before the server starts listening, so pg_isready never answers early.
  local context
  context=$(mktemp -d)
  cat >"$context/entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
set -eu
[ "${1#-}" != "$1" ] && set -- postgres "$@"
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >/tmp/pwfile
  initdb --username="$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  db=${POSTGRES_DB:-$user}
  [ "$db" = postgres ] || echo "CREATE DATABASE \"$db\" OWNER \"$user\"" | postgres --single -D "$PGDATA" postgres >/dev/null
fi
exec "$@"
ENTRYPOINT
  chmod 0755 "$context/entrypoint.sh"
  build_standin postgres "$context" <<DOCKERFILE
FROM $base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/15 /etc/postgresql/15 \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 0700 /var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME ["/var/lib/postgresql/data"]
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
DOCKERFILE
  rm -rf "$context"
}

standin_nginx() {
  # Debian's nginx with the official image's layout: /etc/nginx/conf.d/*.conf included in http,
  # no other site (Debian's default one would listen on port 80, on a host-network container the
  # host's), logs to the container's output, in the foreground.
  local context
  context=$(mktemp -d)
  build_standin nginx "$context" <<DOCKERFILE
FROM $base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx \
 && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* /etc/nginx/conf.d/* \
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
DOCKERFILE
  rm -rf "$context"
}

[ $# -gt 0 ] || set -- node bun postgres nginx
for name in "$@"; do
  image=${official[$name]:?unknown base image $name}
  if present "$image"; then continue; fi
  if pullable && docker pull -q "$image" >/dev/null 2>&1; then continue; fi
  bootstrap_base
  "standin_$name"
done
