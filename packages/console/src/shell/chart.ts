/// <reference lib="dom" />
import type { Chart as ChartJs, ChartConfiguration, ChartType } from 'chart.js' with { 'resolution-mode': 'import' };

/**
 * Chart.js is not bundled: the page loads its browser build (chart.umd.min.js, 200 KB, cached for a
 * year under its hash) before the page's script, which finds it as the global `Chart`. Only its
 * types come from the package.
 */
declare const Chart: typeof ChartJs;

/** A chart on the canvas, replacing the one drawn there before (live pages redraw), sized by its box, not animated. */
export function chart<T extends ChartType>(canvas: HTMLCanvasElement, config: ChartConfiguration<T>): ChartJs<T> {
  Chart.getChart(canvas)?.destroy();
  config.options = { animation: false, responsive: true, maintainAspectRatio: false, ...config.options } as typeof config.options;
  return new Chart(canvas, config);
}

/** Removes the canvas's chart, if any. */
export function unchart(canvas: HTMLCanvasElement): void {
  Chart.getChart(canvas)?.destroy();
}
