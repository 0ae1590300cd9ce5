/** One page view: logged when it ends, with how long it was on screen. */
interface View {
  path: string;
  title: string;
  start: number;
  renderTime: number;
}

export interface PageEvent {
  path: string;
  title: string;
  /** Seconds on screen (spec 6: FLOAT seconds). */
  duration: number;
  /** ms from the navigation to the page's first render (spec 6: INT ms). */
  render_time: number;
}

/**
 * Page views from navigations (spec 4.3 rule 4): a view starts on load and on every change of the
 * path (pushState, popstate, hash routers' path), and is logged when the next one starts or the page
 * goes away. A replaceState or a query/hash change that keeps the path is no new view, so SPA routers
 * that rewrite the URL in place never log phantom views.
 */
export class Pages {
  private view: View | undefined;

  constructor(private readonly emit: (e: PageEvent, at: number) => void) {}

  /** A navigation to `path` at `now`; `renderTime` may be filled in later with rendered(). */
  navigate(path: string, title: string, now: number, renderTime = 0): void {
    if (this.view?.path === path) return;
    this.end(now);
    this.view = { path, title, start: now, renderTime };
  }

  /** The current view's render time and (SPA routers set it after the route change) title. */
  rendered(renderTime: number, title: string): void {
    if (!this.view) return;
    this.view.renderTime = Math.max(0, Math.round(renderTime));
    if (title) this.view.title = title;
  }

  /** Logs the current view (page hidden or left); a later resume() starts it again. */
  end(now: number, title?: string): void {
    const v = this.view;
    if (!v) return;
    this.view = undefined;
    this.emit({ path: v.path, title: title || v.title || v.path, duration: Math.max(0, now - v.start) / 1000, render_time: v.renderTime }, now);
  }

  get path(): string | undefined {
    return this.view?.path;
  }
}
