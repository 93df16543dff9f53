/** The viewer document: the ext-apps bundle inlined, and a clear error if it cannot be. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlineBundle, viewerHtml } from './viewerResource.ts';

test("the bundle's export list becomes an object the viewer's script reads", () => {
  const inlined = inlineBundle('class qB{}var x=1;export{x as other,qB as App};\n');
  assert.equal(inlined, 'class qB{}var x=1;\nconst extApps = { "other": x, "App": qB };');
  assert.equal(
    inlineBundle('var a="</script>";export{a};'),
    'var a="<\\/script>";\nconst extApps = { "a": a };',
  );
});

test('a bundle without an export list is refused, naming the file', () => {
  assert.throws(
    () => inlineBundle('window.App = class {};', '/x/app-with-deps.js'),
    /\/x\/app-with-deps\.js does not end with an export list; the ipybox viewer cannot inline it/,
  );
});

test('the installed ext-apps bundle inlines: one document, no module syntax left at top level', async () => {
  const html = await viewerHtml();
  assert.match(html, /const extApps = \{[^}]*"App": [\w$]+/);
  assert.doesNotMatch(html, /\bexport\s*\{/);
  assert.equal(html.match(/<script/g)?.length, 1);
});
