// `node --import` this (NODE_OPTIONS) with OTEL_IMPORTS_FILE set: every @opentelemetry module the
// process resolves is listed in that file (otelImportsHook.mjs).
import { register } from 'node:module';

register('./otelImportsHook.mjs', import.meta.url, {
  data: { file: process.env.OTEL_IMPORTS_FILE },
});
