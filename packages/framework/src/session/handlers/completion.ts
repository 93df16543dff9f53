/**
 * A session's `completion/complete`: argument suggestions from a prompt's or a resource
 * template's completer, at most 100 a reply.
 *
 * @module
 */
import {
  type CompleteResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { Completer } from '../../catalog/types.ts';
import type { SessionHost } from './host.ts';

const EMPTY_COMPLETION: CompleteResult = { completion: { values: [], hasMore: false } };

function completionOf(values: string[]): CompleteResult {
  return {
    completion: {
      values: values.slice(0, 100),
      total: values.length,
      hasMore: values.length > 100,
    },
  };
}

export function registerCompletionHandler(host: SessionHost): void {
  const { server, catalog, counted } = host;
  server.setRequestHandler(
    'completion/complete',
    counted(async (request) => {
      const { ref, argument, context } = request.params;
      let complete: Completer | undefined;
      if (ref.type === 'ref/prompt') {
        const prompt = catalog.getPrompt(ref.name);
        if (!prompt)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
        complete = prompt.completers.get(argument.name);
      } else {
        const template = catalog.getTemplate(ref.uri);
        if (!template) {
          // Completing a fixed URI is not an error in the spec; there is just nothing to offer.
          if (catalog.getResource(ref.uri)) return EMPTY_COMPLETION;
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Resource template ${ref.uri} not found`,
          );
        }
        complete = template.template.completeCallback(argument.name);
      }
      if (!complete) return EMPTY_COMPLETION;
      return completionOf((await complete(argument.value, context)).map(String));
    }),
  );
}
