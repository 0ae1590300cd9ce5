/// <reference lib="dom" />
/**
 * The demo shop's script (`GET /demo`, docs/sdk-web.md "The demo shop"): a small single-page app on
 * the web library's script build (`/sdk/web.js`, global `evp`), as a web team would write one:
 * plain DOM, no framework, every text set with textContent. Built like the console's pages
 * (packages/console's bundleAssets), but its own site: no console shell, no API key.
 */
import type { Evp } from '@evp/web-sdk';
import type { ShopDrug } from '../drugs';
import { addToCart, cartCount, cartTotal, checkoutOf, CURRENCY, newCart, removeFromCart, userId, type Cart } from './cart';

/** The web library's script build defines it (loaded before this script). */
declare const evp: Evp;

const CART_KEY = 'demo-shop:cart';
const USER_KEY = 'demo-shop:user';

function loadCart(): Cart {
  try {
    return (JSON.parse(localStorage.getItem(CART_KEY) ?? '') as Cart | null) ?? newCart();
  } catch {
    return newCart();
  }
}

const state = { drugs: [] as ShopDrug[], cart: loadCart(), user: localStorage.getItem(USER_KEY) ?? '' };
const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const view = byId('view');

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string | number | null, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function button(text: string, onClick: () => void, cls?: string, id?: string): HTMLButtonElement {
  const b = el('button', text, cls);
  b.type = 'button';
  if (id) b.id = id;
  b.addEventListener('click', onClick);
  return b;
}

function saveCart(): void {
  localStorage.setItem(CART_KEY, JSON.stringify(state.cart));
  byId('cart-count').textContent = String(cartCount(state.cart));
}

function add(id: string): void {
  const d = state.drugs.find((x) => x.id === id);
  if (!d) return;
  const props = addToCart(state.cart, d);
  saveCart();
  void evp.track('cart', props);
}

function remove(id: string): void {
  const props = removeFromCart(state.cart, id);
  if (!props) return;
  saveCart();
  void evp.track('cart', props);
  render();
}

function checkout(): void {
  if (state.cart.items.length === 0) return;
  void evp.track('checkout', checkoutOf(state.cart));
  state.cart = newCart();
  saveCart();
  go('/demo/order-placed');
}

// The app's own navigation (an SPA): the library logs a page event with its duration on every path change.
function go(path: string): void {
  if (location.pathname !== path) history.pushState(null, '', path);
  render();
}
document.addEventListener('click', (e) => {
  const a = e.target instanceof Element ? e.target.closest('a[data-nav]') : null;
  if (!a) return;
  e.preventDefault();
  go(a.getAttribute('href') ?? '/demo');
});
window.addEventListener('popstate', render);

function drugCard(d: ShopDrug): HTMLElement {
  const c = el('div', null, 'card');
  c.append(el('h3', d.name), el('div', `${d.form} · ${d.strength}`, 'muted'), el('div', `${d.price} ${CURRENCY}`, 'price'));
  const b = button(
    'Add to cart',
    () => {
      add(d.id);
      b.textContent = 'Added';
    },
    'primary',
  );
  b.setAttribute('data-add', d.id);
  c.append(b);
  return c;
}

function grid(drugs: readonly ShopDrug[]): HTMLElement {
  const g = el('div', null, 'grid');
  g.append(...drugs.map(drugCard));
  return g;
}

const pages: Record<string, () => void> = {
  '/demo': () => {
    view.append(el('h1', 'Medicines'));
    if (state.drugs.length === 0) view.append(el('p', 'Loading the drug catalog…', 'muted'));
    view.append(grid(state.drugs));
  },
  '/demo/refill': () => {
    // The library logs this page view when the user leaves the page (with how long they stayed).
    view.append(el('h1', 'Your refills'), el('p', 'Medicines you take regularly, ready to order again.', 'muted'), grid(state.drugs.slice(0, 1)));
  },
  '/demo/cart': () => {
    view.append(el('h1', 'Cart'));
    if (state.cart.items.length === 0) {
      view.append(el('p', 'Your cart is empty.', 'muted'));
      return;
    }
    const t = el('table');
    for (const i of state.cart.items) {
      const td = el('td');
      td.append(button('Remove', () => remove(i.id)));
      const tr = el('tr');
      tr.append(el('td', i.name), el('td', `× ${i.quantity}`), el('td', `${i.price * i.quantity} ${CURRENCY}`), td);
      t.append(tr);
    }
    view.append(t, el('p', `Total: ${cartTotal(state.cart)} ${CURRENCY}`, 'price'), button('Check out', checkout, 'primary', 'checkout'));
  },
  '/demo/order-placed': () => {
    view.append(el('h1', 'Thank you!'), el('p', 'Your order is placed; pick it up at the pharmacy.'));
  },
};

function render(): void {
  view.textContent = '';
  (pages[location.pathname] ?? pages['/demo']!)();
}

function showUser(): void {
  byId('who').textContent = state.user ? `Signed in as ${state.user}` : '';
  byId('login-name').hidden = !!state.user;
  byId('login-btn').hidden = !!state.user;
  byId('logout-btn').hidden = !state.user;
}

/**
 * The shopper's user token from the shop's own server (`GET /demo/user-token`, signed with the app's
 * key, docs/keys.md "User tokens"), as a real shop's back end signs one after its login: the demo app
 * runs in `enforce`, so the shopper's events and messages need it.
 */
async function userToken(id: string): Promise<string> {
  const res = await fetch(`/demo/user-token?user_id=${encodeURIComponent(id)}`);
  if (!res.ok) throw new Error(`the shop's server gave no user token (${res.status})`);
  return ((await res.json()) as { token: string }).token;
}

byId('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const name = byId<HTMLInputElement>('login-name').value.trim();
  if (!name) return;
  state.user = name;
  localStorage.setItem(USER_KEY, name);
  // register/login switch the library to the user, with the user's token; the name goes to the
  // user catalog (campaign templates read it). Without a token now, the library asks again
  // (onUserTokenExpired) before it sends. Signed in on screen once the library has the user.
  void userToken(userId(name))
    .catch(() => undefined)
    .then((token) => evp.identify('login', userId(name), { name }, token ? { token } : undefined))
    .finally(showUser);
});
byId('logout-btn').addEventListener('click', () => {
  void evp.identify('logout', userId(state.user));
  state.user = '';
  localStorage.removeItem(USER_KEY);
  showUser();
});

async function loadDrugs(): Promise<void> {
  const b = (await (await fetch('/demo/drugs.json')).json()) as { data: ShopDrug[] };
  state.drugs = b.data;
  render();
  // The catalog is seeded on the platform's first start: it may take a moment to be stored.
  if (state.drugs.length === 0) setTimeout(() => void loadDrugs(), 1000);
}

async function start(): Promise<void> {
  const cfg = (await (await fetch('/demo/config.json')).json()) as { sdkKey: string; debug: boolean };
  // Rule 2: the library never navigates; a message's call to action reaches the app here.
  evp.onAction((a) => {
    if (a.cta_type === 'add_to_cart' && a.cta_id) {
      add(a.cta_id);
      go('/demo/cart');
    }
  });
  // A token expired (an hour), or a returning shopper's page has none yet: the shop's server signs a new one.
  evp.onUserTokenExpired(() => userToken(userId(state.user)));
  evp.init({
    sdkKey: cfg.sdkKey,
    apiUrl: `${location.origin}/v1`,
    appId: 'demo-shop',
    appVersion: '1.0.0 (1)',
    flushIntervalMs: 1000,
    actionPollMs: 3000,
    debug: cfg.debug,
  });
  saveCart();
  showUser();
  render();
  await loadDrugs();
}

void start();
