// Node module resolve hook (registered with `module.register`, runs on the loader thread).
//
// Why: `import(url + '?v=2')` gives a fresh copy of a plugin's entry file, but its own relative
// imports (`./helper.ts`) resolve to their plain URLs, which Node has cached — so a reload would
// run new entry code against stale helpers. This hook passes the entry's `mcpbox-fresh` tag on to
// every file the plugin imports from inside its own folder, so the whole plugin is re-read.
// Packages under node_modules and files outside the plugin's folder (the framework itself) keep
// their single shared copy.
//
// The tag is `<generation>@<folder URL>`: the generation makes the URL new, the folder bounds
// the propagation.
const PARAM = 'mcpbox-fresh';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (!parent?.includes(`${PARAM}=`) || !result.url.startsWith('file:')) return result;
  const tag = new URL(parent).searchParams.get(PARAM);
  if (!tag) return result;
  const root = tag.slice(tag.indexOf('@') + 1);
  if (!result.url.startsWith(root) || result.url.includes('/node_modules/')) return result;
  const url = new URL(result.url);
  url.searchParams.set(PARAM, tag);
  return { ...result, url: url.href };
}
