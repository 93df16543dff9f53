// Node module resolve hook (registered with `module.register` by hostPackages.ts; runs on the
// loader thread).
//
// Why: a plugin outside the host's tree (~/mcp_plugins/weather, a scaffold in ~/weather-plugin)
// has no node_modules of its own, so `import { z } from 'zod'` fails there although the host
// has zod. When a specifier the host shares with plugins (`data.shared`, a regular expression
// source) cannot be resolved from the plugin, it is resolved again from this file's folder,
// inside the host package. A plugin that brings its own copy (in a node_modules up its
// directory tree) is resolved normally first, so its own copy wins.
let shared = /^$/;

export function initialize(data) {
  shared = new RegExp(data.shared);
}

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !shared.test(specifier)) throw error;
    try {
      return await nextResolve(specifier, { ...context, parentURL: import.meta.url });
    } catch {
      throw error;
    }
  }
}
