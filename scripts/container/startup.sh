#!/usr/bin/env bash
# Figures for docs/BENCHMARKS.md: the image's size, and the time from `docker run` to `healthy`,
# on a new data volume (the embedded database is created) and again on the same volume. Health is
# probed every second here (the image's own interval is 10 s). Needs the engine and the image
# (npm run test:container builds both). Usage: scripts/container/startup.sh [image] [runs]
set -euo pipefail
image=${1:-image-metadata:test} runs=${2:-3}
docker=${DOCKER:-docker}
port=39${RANDOM:0:3}
echo "image $image: $("$docker" image inspect -f '{{.Size}}' "$image" | awk '{printf "%.1f MB", $1 / 1e6}')"

to_healthy() { # $1 volume: seconds from docker run to healthy
  local start name=imd-startup-$$
  start=$(date +%s.%N)
  "$docker" run -d --name "$name" --network host -e HOST=127.0.0.1 -e PORT="$port" -e DESCRIBER=offline \
    --health-interval 1s -v "$1:/data" "$image" >/dev/null
  until [ "$("$docker" inspect -f '{{.State.Health.Status}}' "$name")" = healthy ]; do sleep 0.1; done
  echo "$(date +%s.%N) - $start" | bc
  "$docker" stop "$name" >/dev/null && "$docker" rm "$name" >/dev/null
}

for run in $(seq 1 "$runs"); do
  volume=imd-startup-$$-$run
  echo "run $run: new volume $(to_healthy "$volume") s, same volume $(to_healthy "$volume") s"
  "$docker" volume rm "$volume" >/dev/null
done
