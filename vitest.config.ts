import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/support/summaryReporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite and sharp are heavy; two workers suit the 2-core machines this runs on.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
