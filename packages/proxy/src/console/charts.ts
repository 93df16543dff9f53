/**
 * Small inline SVG bar charts for the console's health page: no script, no library.
 *
 * @module
 */
import { Html, html } from './html.ts';

export interface ChartOptions {
  /** Accessible name, also shown as the title. */
  label: string;
  /** Text of the newest value, shown beside the title. */
  current: string;
  /** The scale's top; default the largest value (at least 1). */
  max?: number;
  width?: number;
  height?: number;
}

/** Bars of `values`, oldest left; each bar's tooltip is its value. */
export function barChart(values: number[], options: ChartOptions): Html {
  const width = options.width ?? 360;
  const height = options.height ?? 60;
  const max = options.max ?? Math.max(1, ...values);
  const step = width / Math.max(1, values.length);
  const bars = values.map((value, i) => {
    const h = max === 0 ? 0 : Math.round((Math.min(value, max) / max) * (height - 2));
    const x = (i * step).toFixed(1);
    const w = Math.max(1, step - 1).toFixed(1);
    return `<rect x="${x}" y="${height - h}" width="${w}" height="${h}"><title>${Number(value.toFixed(3))}</title></rect>`;
  });
  return html`<figure class="chart"><figcaption>${options.label} <b>${options.current}</b></figcaption>
<svg role="img" aria-label="${options.label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" preserveAspectRatio="none"><line x1="0" y1="${height - 0.5}" x2="${width}" y2="${height - 0.5}"/>${new Html(bars.join(''))}</svg></figure>`;
}
