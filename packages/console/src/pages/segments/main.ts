/// <reference lib="dom" />
/** The Segments pages: the list, or one segment's page under /console/segments/{id}. */
import { startPage } from '../../shell';
import { segmentList } from './list';
import { segmentPage } from './segment';

startPage({
  run: () => {
    const m = /^\/console\/segments\/([^/]+)$/.exec(location.pathname);
    if (m) segmentPage(decodeURIComponent(m[1]!));
    else segmentList();
  },
});
