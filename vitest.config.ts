import { defineConfig } from 'vitest/config';
import { swiftShaderEnv } from './test/helpers/swiftshader.js';

export default defineConfig({
  resolve: { conditions: ['@frognano/source'] },
  ssr: { resolve: { conditions: ['@frognano/source'], externalConditions: ['@frognano/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    // SwiftShader (Debian's chromium) for the webgpu runs of the loss tests; set before the workers start
    env: swiftShaderEnv(),
  },
});
