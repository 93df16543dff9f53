/** The pin modes, as the config reads them (kept apart so the config needs nothing else). */
import type { PinMode } from './types.ts';

export const PIN_MODES: readonly PinMode[] = ['strict', 'warn', 'off'];
