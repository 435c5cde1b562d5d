import { defineConfig } from "vitest/config";

// Two suites: `unit` (the SDK, emulator, provider, policy and importer against an in-process
// emulator on 127.0.0.1:0) and `e2e` (the real Pulumi engine). scripts/test.sh runs both and
// prints the combined `N passed, N failed` line.
export default defineConfig({
  test: {
    // Builds dist/ from the current source first: the gRPC-host and e2e tests load it.
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
