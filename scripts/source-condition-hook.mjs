// Node resolve hook for source mode (see source-mode.mjs): `@mcpbox/*` packages export their
// TypeScript sources under the `mcpbox-source` condition, their compiled dist/ otherwise.
const CONDITION = 'mcpbox-source';

export async function resolve(specifier, context, nextResolve) {
  if (context.conditions.includes(CONDITION)) return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, CONDITION] });
}
