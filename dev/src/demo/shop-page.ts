import { join } from 'node:path';
import { bundleAssets, type ConsoleBuild } from '@evp/console';

/**
 * The demo shop (`GET /demo`): a small single-page app built on the web library's script build
 * (`/sdk/web.js`, global `evp`), as a web team would write one: plain HTML, one script, no framework,
 * every text set with textContent. Its script and style are typed sources (shop/), built by esbuild
 * into hashed files as the console's pages are (packages/console's bundleAssets). Served under a
 * strict content policy (no inline script or style), which the library needs nothing beyond.
 * docs/sdk-web.md, "The demo shop", walks through it.
 */

/** Builds the shop's script and style in memory (`npm start` does, once, when it serves the demo). */
export const bundleShop = (): Promise<ConsoleBuild> =>
  bundleAssets({ shop: join(__dirname, 'shop', 'main.ts') }, { shop: join(__dirname, 'shop', 'style.css') });

/** The shop's one document (every path of the app), loading its built script and style from these paths. */
export const shopHtml = (assets: { script: string; style: string }): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo pharmacy</title>
<link rel="icon" href="/demo/icon.svg">
<link rel="stylesheet" href="${assets.style}">
<script src="/sdk/web.js"></script>
<script src="${assets.script}" defer></script>
</head>
<body>
<header>
  <a class="brand" href="/demo" data-nav>Demo pharmacy</a>
  <nav>
    <a href="/demo" data-nav>Shop</a>
    <a href="/demo/refill" data-nav id="nav-refill">Refills</a>
    <a href="/demo/cart" data-nav id="nav-cart">Cart (<span id="cart-count">0</span>)</a>
  </nav>
  <form id="login">
    <span id="who"></span>
    <input id="login-name" placeholder="Your name" autocomplete="off" required>
    <button id="login-btn" type="submit">Sign in</button>
    <button id="logout-btn" type="button" hidden>Sign out</button>
  </form>
</header>
<main id="view" aria-live="polite"></main>
<footer>Every click here is an event: watch them arrive in the <a href="/inspector" target="_blank" rel="noopener">inspector</a> (API key). In-app messages of your campaigns appear over this page.</footer>
</body>
</html>
`;

/** A pill, as the tab's icon (else the browser asks for /favicon.ico, which the base URL does not have). */
export const SHOP_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="2" y="5" width="12" height="6" rx="3" fill="#0f766e"/></svg>';
