# Sourced by scripts/container/test.sh and .ci/run: a Docker engine for the container tests.
# engine_up starts dockerd when none answers (root, Debian's docker.io), host networking only: no
# bridge, no iptables rules. engine_down stops only a dockerd that engine_up started.
engine_log=${IMD_CONTAINER_CACHE:-/var/cache/imd-container}/dockerd.log
engine_pid=

engine_up() {
  # A client that builds with BuildKit (the Dockerfile's build secret): Debian's own client has it
  # built in; a newer client without the buildx plugin has not.
  if [ -z "${DOCKER:-}" ]; then
    if docker buildx version >/dev/null 2>&1 || [ ! -x /usr/bin/docker ]; then DOCKER=docker; else DOCKER=/usr/bin/docker; fi
  fi
  export DOCKER
  "$DOCKER" info >/dev/null 2>&1 && return 0
  if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
    echo "container: no Docker engine answers and dockerd cannot be started here" >&2
    return 1
  fi
  mkdir -p "$(dirname "$engine_log")"
  setsid dockerd --bridge=none --iptables=false --ip-masq=false >"$engine_log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 1 60); do
    "$DOCKER" info >/dev/null 2>&1 && return 0
    kill -0 "$engine_pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "container: dockerd did not start (log: $engine_log)" >&2
  tail -5 "$engine_log" >&2
  engine_down
  return 1
}

engine_down() {
  [ -n "$engine_pid" ] || return 0
  kill "$engine_pid" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.5; done
  engine_pid=
}

# Builds the image (base images first, stand-ins where the official ones cannot be had).
image_build() {
  scripts/container/base-images.sh || return 1
  local secret=()
  # A registry reached through a TLS proxy: npm in the build needs the host's certificate authorities.
  [ -s /etc/ssl/certs/ca-certificates.crt ] && secret=(--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt)
  DOCKER_BUILDKIT=1 "$DOCKER" build --network host "${secret[@]}" -t "${CONTAINER_IMAGE:-image-metadata:test}" . >"${IMD_CONTAINER_CACHE:-/var/cache/imd-container}/build.log" 2>&1 \
    || { tail -30 "${IMD_CONTAINER_CACHE:-/var/cache/imd-container}/build.log" >&2; return 1; }
}
