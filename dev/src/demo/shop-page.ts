/**
 * The demo shop (`GET /demo`): a small single-page app built on the web library's script build
 * (`/sdk/web.js`, global `evp`), as a web team would write one: plain HTML, one script, no framework,
 * every text set with textContent. Served under a strict content policy (no inline script or style),
 * which the library needs nothing beyond. docs/sdk-web.md, "The demo shop", walks through it.
 */
export const SHOP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo pharmacy</title>
<link rel="icon" href="/demo/icon.svg">
<link rel="stylesheet" href="/demo/shop.css">
<script src="/sdk/web.js"></script>
<script src="/demo/shop.js" defer></script>
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

export const SHOP_CSS = `*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1f2937;background:#f8fafc}
header{display:flex;flex-wrap:wrap;gap:16px;align-items:center;padding:12px 24px;background:#0f766e;color:#fff}
header a{color:#fff;text-decoration:none;margin-right:12px}
.brand{font-weight:700;font-size:18px}
nav{flex:1}
#login{display:flex;gap:8px;align-items:center}
#login input{padding:4px 8px;border-radius:4px;border:0}
button{cursor:pointer;padding:6px 12px;border-radius:6px;border:1px solid #0f766e;background:#fff;color:#0f766e;font:inherit}
button.primary{background:#0f766e;color:#fff}
main{max-width:880px;margin:24px auto;padding:0 24px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:16px}
.card{background:#fff;border-radius:10px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.card h3{margin:0 0 4px}
.muted{color:#6b7280}
.price{font-weight:600;margin:8px 0}
table{width:100%;border-collapse:collapse;background:#fff}
td,th{padding:8px;border-bottom:1px solid #e5e7eb;text-align:left}
footer{max-width:880px;margin:32px auto;padding:0 24px;color:#6b7280;font-size:13px}
`;

export const SHOP_JS = String.raw`(function () {
  'use strict';
  var CURRENCY = 'KES';
  var state = { drugs: [], cart: loadCart(), user: localStorage.getItem('demo-shop:user') || '' };
  var view = document.getElementById('view');

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function button(text, onClick, cls, id) {
    var b = el('button', text, cls);
    b.type = 'button';
    if (id) b.id = id;
    b.addEventListener('click', onClick);
    return b;
  }
  function loadCart() {
    try { return JSON.parse(localStorage.getItem('demo-shop:cart') || '') || newCart(); } catch (e) { return newCart(); }
  }
  function newCart() { return { id: 'cart-' + Date.now().toString(36), items: [] }; }
  function saveCart() {
    localStorage.setItem('demo-shop:cart', JSON.stringify(state.cart));
    document.getElementById('cart-count').textContent = String(state.cart.items.reduce(function (n, i) { return n + i.quantity; }, 0));
  }
  function drug(id) { return state.drugs.filter(function (d) { return d.id === id; })[0]; }
  function total() { return state.cart.items.reduce(function (s, i) { return s + i.price * i.quantity; }, 0); }
  function item(i) { return { id: i.id, type: 'drug', quantity: i.quantity, price: i.price, currency: CURRENCY }; }

  function add(id) {
    var d = drug(id);
    if (!d) return;
    var line = state.cart.items.filter(function (i) { return i.id === id; })[0];
    if (line) line.quantity += 1; else state.cart.items.push(line = { id: d.id, name: d.name, price: d.price, quantity: 1 });
    saveCart();
    evp.track('cart', { id: state.cart.id, action: 'add_item', cart_price: total(), currency: CURRENCY, item: { id: d.id, type: 'drug', quantity: 1, price: d.price, currency: CURRENCY } });
  }
  function remove(id) {
    var line = state.cart.items.filter(function (i) { return i.id === id; })[0];
    if (!line) return;
    state.cart.items = state.cart.items.filter(function (i) { return i.id !== id; });
    saveCart();
    evp.track('cart', { id: state.cart.id, action: 'remove_item', cart_price: total(), currency: CURRENCY, item: item(line) });
    render();
  }
  function checkout() {
    if (state.cart.items.length === 0) return;
    evp.track('checkout', { id: 'order-' + Date.now().toString(36), cart_id: state.cart.id, cart_price: total(), currency: CURRENCY, shop_mode: 'pickup', items: state.cart.items.map(item), is_successful: true });
    state.cart = newCart();
    saveCart();
    go('/demo/order-placed');
  }

  // The app's own navigation (an SPA): the library logs a page event with its duration on every path change.
  function go(path) {
    if (location.pathname !== path) history.pushState(null, '', path);
    render();
  }
  document.addEventListener('click', function (e) {
    var a = e.target && e.target.closest ? e.target.closest('a[data-nav]') : null;
    if (!a) return;
    e.preventDefault();
    go(a.getAttribute('href'));
  });
  window.addEventListener('popstate', render);

  function drugCard(d) {
    var c = el('div', null, 'card');
    c.append(el('h3', d.name), el('div', d.form + ' · ' + d.strength, 'muted'), el('div', d.price + ' ' + CURRENCY, 'price'));
    var b = button('Add to cart', function () { add(d.id); b.textContent = 'Added'; }, 'primary');
    b.setAttribute('data-add', d.id);
    c.append(b);
    return c;
  }
  var pages = {
    '/demo': function () {
      view.append(el('h1', 'Medicines'));
      if (state.drugs.length === 0) view.append(el('p', 'Loading the drug catalog…', 'muted'));
      var g = el('div', null, 'grid');
      state.drugs.forEach(function (d) { g.append(drugCard(d)); });
      view.append(g);
    },
    '/demo/refill': function () {
      view.append(el('h1', 'Your refills'), el('p', 'Medicines you take regularly, ready to order again.', 'muted'));
      // The library logs this page view when the user leaves the page (with how long they stayed).
      var g = el('div', null, 'grid');
      state.drugs.slice(0, 1).forEach(function (d) { g.append(drugCard(d)); });
      view.append(g);
    },
    '/demo/cart': function () {
      view.append(el('h1', 'Cart'));
      if (state.cart.items.length === 0) { view.append(el('p', 'Your cart is empty.', 'muted')); return; }
      var t = el('table');
      state.cart.items.forEach(function (i) {
        var tr = el('tr');
        var rm = button('Remove', function () { remove(i.id); });
        var td = el('td');
        td.append(rm);
        tr.append(el('td', i.name), el('td', '× ' + i.quantity), el('td', i.price * i.quantity + ' ' + CURRENCY), td);
        t.append(tr);
      });
      view.append(t, el('p', 'Total: ' + total() + ' ' + CURRENCY, 'price'), button('Check out', checkout, 'primary', 'checkout'));
    },
    '/demo/order-placed': function () {
      view.append(el('h1', 'Thank you!'), el('p', 'Your order is placed; pick it up at the pharmacy.'));
    },
  };
  function render() {
    view.textContent = '';
    (pages[location.pathname] || pages['/demo'])();
  }

  function showUser() {
    document.getElementById('who').textContent = state.user ? 'Signed in as ' + state.user : '';
    document.getElementById('login-name').hidden = !!state.user;
    document.getElementById('login-btn').hidden = !!state.user;
    document.getElementById('logout-btn').hidden = !state.user;
  }
  function userId(name) { return 'shopper-' + name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-'); }
  document.getElementById('login').addEventListener('submit', function (e) {
    e.preventDefault();
    var name = document.getElementById('login-name').value.trim();
    if (!name) return;
    state.user = name;
    localStorage.setItem('demo-shop:user', name);
    // register/login switch the library to the user; the name goes to the user catalog (campaign templates read it).
    evp.identify('login', userId(name), { name: name });
    showUser();
  });
  document.getElementById('logout-btn').addEventListener('click', function () {
    evp.identify('logout', userId(state.user));
    state.user = '';
    localStorage.removeItem('demo-shop:user');
    showUser();
  });

  function loadDrugs() {
    fetch('/demo/drugs.json').then(function (r) { return r.json(); }).then(function (b) {
      state.drugs = b.data;
      render();
      // The catalog is seeded on the platform's first start: it may take a moment to be stored.
      if (state.drugs.length === 0) setTimeout(loadDrugs, 1000);
    });
  }

  fetch('/demo/config.json').then(function (r) { return r.json(); }).then(function (cfg) {
    // Rule 2: the library never navigates; a message's call to action reaches the app here.
    evp.onAction(function (a) {
      if (a.cta_type === 'add_to_cart' && a.cta_id) { add(a.cta_id); go('/demo/cart'); }
    });
    evp.init({ sdkKey: cfg.sdkKey, apiUrl: location.origin + '/v1', appId: 'demo-shop', appVersion: '1.0.0 (1)', flushIntervalMs: 1000, actionPollMs: 3000, debug: cfg.debug });
    saveCart();
    showUser();
    render();
    loadDrugs();
  });
})();
`;
