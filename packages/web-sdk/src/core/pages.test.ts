import { Pages, type PageEvent } from './pages';
import { T0 } from './testing/fakes';

describe('page views', () => {
  const setup = () => {
    const out: [PageEvent, number][] = [];
    return { pages: new Pages((e, at) => out.push([e, at])), out };
  };

  it('logs a view when the path changes, with its seconds on screen and render time', () => {
    const { pages, out } = setup();
    pages.navigate('/', 'Home', T0);
    pages.rendered(312.4, 'Home');
    pages.navigate('/cart', '', T0 + 4_250);
    expect(out).toEqual([[{ path: '/', title: 'Home', duration: 4.25, render_time: 312 }, T0 + 4_250]]);
  });

  it('ignores replaceState-style changes that keep the path (no phantom views)', () => {
    const { pages, out } = setup();
    pages.navigate('/search', 'Search', T0);
    pages.navigate('/search', 'Search', T0 + 100);
    pages.navigate('/search', 'Search', T0 + 200);
    expect(out).toHaveLength(0);
    pages.end(T0 + 1_000);
    expect(out.map(([e]) => [e.path, e.duration])).toEqual([['/search', 1]]);
  });

  it('takes the title set after the route change, and the path when there is none', () => {
    const { pages, out } = setup();
    pages.navigate('/a', '', T0);
    pages.rendered(20, 'Product A');
    pages.navigate('/b', '', T0 + 500);
    pages.end(T0 + 600);
    expect(out.map(([e]) => e.title)).toEqual(['Product A', '/b']);
  });

  it('logs nothing twice: end() after end() and navigation back to the same path after end()', () => {
    const { pages, out } = setup();
    pages.navigate('/a', 'A', T0);
    pages.end(T0 + 1000);
    pages.end(T0 + 2000);
    pages.navigate('/a', 'A', T0 + 3000);
    pages.end(T0 + 3500);
    expect(out.map(([e]) => [e.path, e.duration])).toEqual([
      ['/a', 1],
      ['/a', 0.5],
    ]);
  });
});
