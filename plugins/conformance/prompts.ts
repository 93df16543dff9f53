/**
 * The fixture's prompts; `test_prompt_with_arguments` completes `arg1` (completion-complete).
 *
 * @module
 */
import { completable, type PluginServer } from '@mcpbox/framework';
import { z } from 'zod';
import { RED_PIXEL_PNG } from './media.ts';

const ARG1_SUGGESTIONS = ['paris', 'park', 'party'];

export function registerPrompts(server: PluginServer): void {
  server.registerPrompt(
    'test_simple_prompt',
    { description: 'A simple prompt without arguments.' },
    () => 'This is a simple prompt for testing.',
  );

  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments.',
      argsSchema: {
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ARG1_SUGGESTIONS.filter((s) => s.startsWith(value ?? '')),
        ),
        arg2: z.string().describe('Second test argument'),
      },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );

  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds the resource it is given.',
      argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') },
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        {
          role: 'user',
          content: { type: 'text', text: 'Please process the embedded resource above.' },
        },
      ],
    }),
  );

  server.registerPrompt(
    'test_prompt_with_image',
    { description: 'A prompt with an image.' },
    () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
}
