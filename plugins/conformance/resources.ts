/**
 * The fixture's resources: static text and binary, a template, and `test://watched-resource`
 * for the subscribe/unsubscribe scenarios (its content changes through `test_touch_watched_resource`,
 * which notifies subscribed clients).
 *
 * @module
 */
import { type PluginServer, ResourceTemplate } from '@mcpbox/framework';
import { RED_PIXEL_PNG } from './media.ts';

export const WATCHED_URI = 'test://watched-resource';

export function registerResources(server: PluginServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource.', mimeType: 'text/plain' },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  );

  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource (a 1x1 PNG).', mimeType: 'image/png' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }] }),
  );

  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for an id, from a URI template.', mimeType: 'application/json' },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );

  let version = 1;
  server.registerResource(
    'watched-resource',
    WATCHED_URI,
    { description: 'A resource clients can subscribe to.', mimeType: 'text/plain' },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: 'text/plain', text: `Watched resource, version ${version}` },
      ],
    }),
  );

  server.registerTool(
    'test_touch_watched_resource',
    { description: `Changes ${WATCHED_URI} and notifies the clients subscribed to it.` },
    () => {
      version += 1;
      server.notifyResourceUpdated(WATCHED_URI);
      return `${WATCHED_URI} is now at version ${version}`;
    },
  );
}
