import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests, and integration tests that start real processes
// (tritonserver, cmake builds). Integration tests run one file at a time: the CI box has 2 cores.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          // What deploys keep (client/uploadCache.ts) and any shared-server state go to a test
          // folder, not the user's ~/.local/state; tests that need their own set it themselves.
          env: { TRITON_STUDIO_STATE_DIR: join(tmpdir(), 'triton-studio-test-state') },
          // fileParallelism is a root-only option; one fork runs the files one after another.
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
