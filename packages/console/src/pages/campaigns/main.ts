/// <reference lib="dom" />
/** The Campaigns pages: the list, or one campaign's page under /console/campaigns/{id}. */
import { startPage } from '../../shell';
import { campaignPage } from './campaign';
import { campaignList } from './list';

startPage({
  run: () => {
    const m = /^\/console\/campaigns\/([^/]+)$/.exec(location.pathname);
    if (m) campaignPage(decodeURIComponent(m[1]!));
    else campaignList();
  },
});
