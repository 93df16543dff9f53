/** @mcpbox/proxy — public API. Named exports only. */
export {};
