// The viewer's view of a result kept by reference (results by reference, `io.mcpbox/result` in
// the result's `_meta`): the model saw a preview; this pages through the whole, read page by page
// through the host from the `results://<id>?offset=&limit=` resource, so it never passes through
// the model. An array of objects is a table (the columns of the page's objects), anything else a
// collapsible JSON tree, a text its lines. Inlined into viewer.html by viewerResource.ts, where
// `el` and `app` are the viewer's.

const RESULT_META_KEY = 'io.mcpbox/result';
const STORED_PAGE = 50;

/** The stored result a tool result names, if any. */
// biome-ignore lint/correctness/noUnusedVariables: viewer.html, where this file is inlined, calls it
function storedResultOf(result) {
  const ref = result?._meta?.[RESULT_META_KEY];
  return typeof ref?.uri === 'string' ? ref : undefined;
}

/**
 * Reads and draws a page of a pager section (this view's and the DataFrame's in viewer.html):
 * marks the section loading meanwhile, and shows what went wrong in its error line.
 */
async function loadPage({ view, status, error }, readAndDraw) {
  error.textContent = '';
  status.textContent = 'loading…';
  view.dataset.loading = 'true';
  try {
    await readAndDraw();
  } catch (e) {
    error.textContent = e instanceof Error ? e.message : String(e);
    status.textContent = '';
  } finally {
    delete view.dataset.loading;
  }
}

const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A cell's text: strings as they are, the rest as JSON (a nested value cut short). */
function cellText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

/** A page of objects as a table: every key of the page's objects is a column, in first-seen order. */
function recordTable(items) {
  const columns = [];
  for (const item of items)
    for (const key of Object.keys(item)) if (!columns.includes(key)) columns.push(key);
  const head = el(
    'tr',
    {},
    ...columns.map((name) => el('th', { className: 'text', textContent: name })),
  );
  const body = el(
    'tbody',
    {},
    ...items.map((item) =>
      el(
        'tr',
        {},
        ...columns.map((name) => {
          const value = item[name];
          return el('td', {
            className: typeof value === 'number' ? '' : 'text',
            textContent: cellText(value),
          });
        }),
      ),
    ),
  );
  return el('table', {}, el('thead', {}, head), body);
}

/** A JSON value as a tree: objects and arrays fold (the first levels open), leaves are one line. */
function jsonTree(value, label, depth = 0) {
  const name = label === undefined ? '' : `${label}: `;
  if (value === null || typeof value !== 'object') {
    return el(
      'div',
      { className: 'leaf' },
      el('span', { className: 'key', textContent: name }),
      el('span', { className: `value-${typeof value}`, textContent: JSON.stringify(value) }),
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const size = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length} keys}`;
  const node = el(
    'details',
    { className: 'node', open: depth < 2 },
    el(
      'summary',
      {},
      el('span', { className: 'key', textContent: name }),
      el('span', { className: 'size', textContent: size }),
    ),
  );
  // The children are built when the node is first opened: a page of deep values stays cheap.
  const fill = () => {
    if (node.dataset.filled) return;
    node.dataset.filled = 'true';
    for (const [key, child] of entries) node.append(jsonTree(child, key, depth + 1));
  };
  if (node.open) fill();
  else node.addEventListener('toggle', fill);
  return node;
}

/** The stored result, paged: a table, a tree or lines, with previous/next and the total. */
// biome-ignore lint/correctness/noUnusedVariables: viewer.html, where this file is inlined, calls it
function storedResultView(ref) {
  const state = { offset: 0, slice: undefined };
  const status = el('span', { className: 'status' });
  const error = el('span', { className: 'error' });
  const prev = el('button', { textContent: '‹', title: 'Previous page' });
  const next = el('button', { textContent: '›', title: 'Next page' });
  const body = el('div', { className: 'stored-body' });
  const size = typeof ref.bytes === 'number' ? ` (${ref.bytes.toLocaleString('en-US')} bytes)` : '';
  const view = el(
    'section',
    { className: 'output stored' },
    el(
      'div',
      { className: 'frame-head' },
      el('span', { className: 'frame-title', textContent: `Stored result${size}` }),
      status,
      error,
      el('span', { className: 'pager' }, prev, next),
    ),
    body,
  );

  const load = () =>
    loadPage({ view, status, error }, async () => {
      const read = await app.readServerResource({
        uri: `${ref.uri}?offset=${state.offset}&limit=${STORED_PAGE}`,
      });
      state.slice = JSON.parse(read.contents?.[0]?.text ?? '');
      draw();
    });
  function draw() {
    const { items, total, offset } = state.slice;
    if (ref.kind === 'text') {
      body.replaceChildren(el('pre', { className: 'text', textContent: items.join('\n') }));
    } else if (items.length > 0 && items.every(isRecord) && total > 1) {
      body.replaceChildren(el('div', { className: 'table-wrap' }, recordTable(items)));
    } else {
      body.replaceChildren(
        el(
          'div',
          { className: 'tree' },
          ...items.map((item, i) => jsonTree(item, total > 1 ? offset + i : undefined)),
        ),
      );
    }
    const what = ref.kind === 'text' ? 'lines' : 'items';
    const from = items.length === 0 ? 0 : offset + 1;
    const pages = Math.max(1, Math.ceil(total / STORED_PAGE));
    status.textContent = `${what} ${from.toLocaleString('en-US')}–${(offset + items.length).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} · page ${(Math.floor(offset / STORED_PAGE) + 1).toLocaleString('en-US')} of ${pages.toLocaleString('en-US')}`;
    prev.disabled = offset === 0;
    next.disabled = state.slice.next_offset === undefined;
  }
  prev.addEventListener('click', () => {
    state.offset = Math.max(0, state.offset - STORED_PAGE);
    void load();
  });
  next.addEventListener('click', () => {
    state.offset = state.slice?.next_offset ?? state.offset;
    void load();
  });
  void load();
  return view;
}
