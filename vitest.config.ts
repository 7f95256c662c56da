import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@frognano/source'] },
  ssr: { resolve: { conditions: ['@frognano/source'], externalConditions: ['@frognano/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
