/**
 * SwiftShader, the Vulkan driver on the CPU that Chromium ships, lets Dawn (the
 * `webgpu` npm package) and so the tfjs `webgpu` backend run on a machine
 * without a GPU. Debian's `chromium` package installs it as
 * `/usr/lib/chromium/libvk_swiftshader.so` with its ICD manifest
 * `vk_swiftshader_icd.json`, next to a Vulkan loader `libvulkan.so.1`.
 *
 * The Vulkan loader reads its driver list from the environment when Dawn
 * starts, and the dynamic linker reads `LD_LIBRARY_PATH` only when a process
 * starts, so both must be set before the test workers are spawned:
 * `vitest.config.ts` passes {@link swiftShaderEnv}'s result as `test.env`, which
 * vitest gives to every worker process it forks (`pool: 'forks'`).
 * This module has no dependencies beyond `node:fs` / `node:path` so the config can import it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where Debian's `chromium` package puts SwiftShader and its Vulkan loader. */
export const CHROMIUM_LIB_DIR = '/usr/lib/chromium';
/** SwiftShader's Vulkan ICD manifest inside {@link CHROMIUM_LIB_DIR}. */
export const SWIFTSHADER_ICD = join(CHROMIUM_LIB_DIR, 'vk_swiftshader_icd.json');

/**
 * The environment the test workers need for Dawn to find SwiftShader, or `{}`:
 * - `{}` when the caller already chose the Vulkan drivers (`VK_DRIVER_FILES`,
 *   `VK_ICD_FILENAMES` or `VK_ADD_DRIVER_FILES` set, as `bench/gpu/h200.sh` on the H200 does)
 *   or when SwiftShader is not installed (no `chromium` package);
 * - otherwise `VK_ADD_DRIVER_FILES` = SwiftShader's manifest (added to the drivers the
 *   loader finds itself, so a real GPU, when there is one, is still seen and Dawn prefers
 *   it), and `LD_LIBRARY_PATH` extended with Chromium's directory, so that Dawn's
 *   `dlopen("libvulkan.so.1")` finds Chromium's Vulkan loader (Debian's chromium does not
 *   depend on `libvulkan1`; where that is installed too, Chromium's loader, which knows
 *   `VK_ADD_DRIVER_FILES` whatever the system's version, is the one used, and it still
 *   reads the system's driver manifests). The other libraries of that directory have
 *   unversioned names (`libEGL.so`, ...) that nothing else asks for.
 */
export function swiftShaderEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES || env.VK_ADD_DRIVER_FILES) return {};
  if (!existsSync(SWIFTSHADER_ICD) || !existsSync(join(CHROMIUM_LIB_DIR, 'libvk_swiftshader.so'))) return {};
  const out: Record<string, string> = { VK_ADD_DRIVER_FILES: SWIFTSHADER_ICD };
  if (existsSync(join(CHROMIUM_LIB_DIR, 'libvulkan.so.1'))) {
    out.LD_LIBRARY_PATH = env.LD_LIBRARY_PATH ? `${env.LD_LIBRARY_PATH}:${CHROMIUM_LIB_DIR}` : CHROMIUM_LIB_DIR;
  }
  return out;
}
