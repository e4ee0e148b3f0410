#!/usr/bin/env bash
# npm run test:container: builds the image and runs test/container/ against it. Starts dockerd when
# none answers (and stops it at the end). Base images: see scripts/container/base-images.sh (local
# stand-ins, test only, where Docker Hub cannot be reached).
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/container/engine.sh
trap engine_down EXIT
engine_up || exit 1
image_build || exit 1
CONTAINER_TESTS=1 bun --bun vitest run test/container "$@"
