/** @mcpbox/ipybox — public API. Named exports only. */
export {};
